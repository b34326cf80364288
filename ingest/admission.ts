import { Backpressure } from './types.ts'

interface Waiting<A, R> {
  arg: A
  resolve: (value: R) => void
  reject: (e: unknown) => void
}

/**
 * Uplinks wait here, as they arrived, until the writer has room for them: only then are they decoded. Under load
 * thousands of uplinks wait for their flush; decoded, each holds its values and its event row long enough for
 * the garbage collector to copy and promote them all, while its raw payload is one buffer. First in, first out
 * (a device's uplinks keep their order, also with those admitted at once), at most `limit` waiting: beyond that
 * `run` rejects with Backpressure, as the writer does when it is full. Saturated from 80% of the limit until the
 * waiting fall to half of it.
 */
export class Admission<A, R> {
  private queue: Array<Waiting<A, R> | undefined> = []
  private head = 0
  private waiters: Array<() => void> = []
  private readonly high: number
  private readonly low: number

  constructor(
    /** Starts an admitted item (decoding it and handing it to the writer). */
    private start: (arg: A) => Promise<R>,
    /** Whether the writer has room for one more item now. */
    private room: () => boolean,
    private limit: number,
  ) {
    this.high = Math.max(1, Math.floor(limit * 0.8))
    this.low = Math.floor(limit / 2)
  }

  /** Items waiting. */
  get waiting(): number {
    return this.queue.length - this.head
  }

  get saturated(): boolean {
    return this.waiting >= this.high
  }

  /** Starts `arg` now when nothing waits and there is room, else queues it behind those waiting. */
  run(arg: A): Promise<R> {
    if (this.waiting === 0 && this.room()) return this.start(arg)
    if (this.waiting >= this.limit) return Promise.reject(new Backpressure(1))
    return new Promise<R>((resolve, reject) => this.queue.push({ arg, resolve, reject }))
  }

  /** Starts waiting items in order while there is room. */
  release() {
    while (this.head < this.queue.length && this.room()) {
      const w = this.queue[this.head]!
      this.queue[this.head++] = undefined
      // settled from the started item's promise: resolving with that promise instead cost a job and a second pair of
      // resolving functions an item, under load most items
      this.start(w.arg).then(w.resolve, w.reject)
    }
    if (this.head === this.queue.length) {
      this.queue = []
      this.head = 0
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head)
      this.head = 0
    }
    if (this.waiting <= this.low) for (const w of this.waiters.splice(0)) w()
  }

  /** Resolves once at most half the limit waits (at once when that is so now). */
  drained(): Promise<void> {
    if (this.waiting <= this.low) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push(resolve))
  }
}
