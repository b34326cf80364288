import type { Transferable, Worker } from 'node:worker_threads'
import { Unavailable } from '../../errors.ts'
import { decodeError } from './errors.ts'
import { IdTable } from '../../../src/kernel/id-table.ts'
import type { Notice, Reply, RequestBody } from './protocol.ts'

interface Pending {
  resolve: (value: unknown) => void
  reject: (e: unknown) => void
}

/**
 * The main thread's end of one worker: requests are queued and posted as one array per synchronous stretch
 * (a microtask flush), never one message per call; the worker answers with arrays of replies. When the worker
 * dies (exit or uncaught error) every pending request is rejected with Unavailable, and so is every later one.
 * The worker keeps the process alive only while requests are pending. `B` is the worker's request body type
 * (the database workers' by default); a message that is not an array of replies is a Notice (`onNotice`).
 */
export class PortClient<B extends object = RequestBody> {
  private nextId = 1
  private queue: Array<B & { id: number }> = []
  private transfer: Transferable[] = []
  /** Not a Map: see IdTable. */
  private pending = new IdTable<Pending>()
  private scheduled = false
  private dead: Error | undefined

  /** `onFail` hears once of a worker that died (not of one `terminate` ended). */
  constructor(
    private readonly worker: Worker,
    readonly name: string,
    private readonly onFail: (e: Error) => void = () => {},
    private readonly onNotice: (n: Notice) => void = () => {},
  ) {
    worker.unref()
    worker.on('message', (m: Reply[] | Notice) =>
      Array.isArray(m) ? this.settle(m) : this.onNotice(m),
    )
    worker.on('error', (e: Error) =>
      this.fail(new Unavailable(`${name} worker failed: ${e.message}`)),
    )
    worker.on('exit', (code) => this.fail(new Unavailable(`${name} worker exited (${code})`)))
  }

  /**
   * Sends one request; resolves with the worker's answer or rejects with the error it reported. `transfer`: buffers
   * of the body that move to the worker instead of being copied (the caller no longer uses them).
   */
  request<T>(body: B, transfer?: readonly Transferable[]): Promise<T> {
    if (this.dead) return Promise.reject(this.dead)
    const id = this.nextId++
    const p = new Promise<T>((resolve, reject) =>
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject }),
    )
    if (this.pending.size === 1) this.worker.ref()
    // not `{ ...body, id }`: with object spread, ~130 bytes of every request reached the old generation (a worker
    // echoing 1 KB answers to 10 concurrent requesters: 132 bytes a request promoted, 2 with Object.assign; the
    // service's readiness probe 373 -> 29, a device detail 445 -> 276). Which of V8's paths keeps them is not
    // known; posting what a spread made keeps them, so nothing posted is made by one (projectingWire neither).
    this.queue.push(Object.assign({ id }, body))
    if (transfer) this.transfer.push(...transfer)
    if (!this.scheduled) {
      this.scheduled = true
      queueMicrotask(() => this.flush())
    }
    return p
  }

  /** Why the worker no longer answers (it died, or was terminated); undefined while it serves. */
  get failure(): Error | undefined {
    return this.dead
  }

  /** Requests sent and not answered yet. */
  get inFlight(): number {
    return this.pending.size
  }

  private flush() {
    this.scheduled = false
    if (this.queue.length === 0 || this.dead) return
    const batch = this.queue
    const transfer = this.transfer
    this.queue = []
    this.transfer = []
    this.worker.postMessage(batch, transfer)
  }

  private settle(replies: Reply[]) {
    for (const r of replies) {
      const p = this.pending.take(r.id)
      if (!p) continue
      if (r.ok) p.resolve(r.value)
      else p.reject(decodeError(r.err))
    }
    if (this.pending.size === 0) this.worker.unref()
  }

  private fail(e: Error) {
    if (!this.dead) this.onFail(e)
    this.dead ??= e
    this.queue = []
    this.transfer = []
    const pending = this.pending.drain()
    for (const p of pending) p.reject(this.dead)
  }

  /**
   * Sends `closing` (the worker closes what it holds, after answering what was sent before it), then ends the
   * thread; a worker that cannot answer it is ended all the same.
   */
  async end(closing: B): Promise<void> {
    await this.request(closing).catch(() => undefined)
    await this.terminate()
  }

  /** Ends the worker (only once its connection is closed: see PortDb.close). */
  async terminate(): Promise<void> {
    this.dead ??= new Unavailable(`${this.name} worker closed`)
    await this.worker.terminate()
  }
}
