/**
 * One live-stream client's queue of frames: bounded in bytes, read by the connection when its socket wants more
 * (frames queued in the meantime are written together). Pushing never waits: a client that falls behind by more
 * than `limit` bytes stops receiving, and is answered an `overflow` frame with the number of frames it missed once
 * it reads again (then its stream ends), or dropped after `graceMs` if it does not.
 */

const enc = new TextEncoder()

/** An SSE frame as bytes, built once and shared by every client it goes to. */
export function sseFrame(event: string, data: string, id?: number): Uint8Array {
  const lines = data.split('\n').map((l) => `data: ${l}\n`)
  return enc.encode(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\n${lines.join('')}\n`)
}

export const PING_FRAME = enc.encode(': ping\n\n')

export interface QueueOptions {
  /** Bytes a client may have queued (beyond what its socket took) before it overflows. */
  limit: number
  /** How long an overflowed client that does not read is kept before its connection is dropped. */
  graceMs: number
  /** Ends the connection at once (a stalled client after its grace). */
  drop(): void
  /** The body of the overflow frame besides `missed`: e.g. the last event id the client got. */
  overflowInfo(): Record<string, unknown>
  /** Called once when the queue ends (overflowed and told, dropped, or closed). */
  onEnd(): void
}

export class StreamQueue {
  private frames: Uint8Array[] = []
  private bytes = 0
  private missed = 0
  private state: 'live' | 'overflow' | 'ended' = 'live'
  private waiter: (() => void) | undefined
  private grace: ReturnType<typeof setTimeout> | undefined
  private taken: Array<() => void> = []
  /** The connection asked for frames and has not taken them yet: its socket takes whatever is queued. */
  private asked = false

  constructor(private readonly o: QueueOptions) {}

  get overflowed(): boolean {
    return this.state !== 'live'
  }

  /**
   * Queues a frame (never waits); past the limit the client overflows and further frames count as missed.
   * Answers whether the frame was queued.
   */
  push(frame: Uint8Array): boolean {
    if (this.state === 'ended') return false
    if (this.state === 'overflow') {
      this.missed++
      return false
    }
    // a connection waiting for frames takes all that is queued on the next tick (a burst), whatever the amount
    if (!this.asked && this.bytes + frame.length > this.o.limit) {
      this.overflow(1)
      return false
    }
    this.frames.push(frame)
    this.bytes += frame.length
    this.wake()
    return true
  }

  /** Bytes queued and not yet taken by the connection. */
  get queued(): number {
    return this.bytes
  }

  /** Resolves once at most half the limit is queued (true), or the queue stopped taking frames (false). */
  async room(): Promise<boolean> {
    while (this.state === 'live' && this.bytes > this.o.limit / 2)
      await new Promise<void>((r) => this.taken.push(r))
    return this.state === 'live'
  }

  /** The client falls behind now: `missed` frames could not be queued. */
  overflow(missed: number): void {
    if (this.state !== 'live') {
      if (this.state === 'overflow') this.missed += missed
      return
    }
    this.state = 'overflow'
    this.missed = missed
    this.release()
    this.grace = setTimeout(() => {
      this.end()
      this.o.drop()
    }, this.o.graceMs).unref()
    this.wake()
  }

  /**
   * The next bytes to write, once there are some: every frame queued so far in one chunk (gathered on the next
   * tick), then after an overflow the overflow frame; null when the stream ends.
   */
  async next(): Promise<Uint8Array | null> {
    this.asked = true
    while (!this.frames.length && this.state === 'live') {
      await new Promise<void>((r) => (this.waiter = r))
      await new Promise((r) => setImmediate(r)) // frames of the same tick go together
    }
    this.asked = false
    if (this.frames.length) {
      const chunk = this.frames.length === 1 ? this.frames[0]! : Buffer.concat(this.frames)
      this.frames = []
      this.bytes = 0
      this.release()
      return chunk
    }
    if (this.state === 'overflow') {
      const frame = sseFrame(
        'overflow',
        JSON.stringify({ missed: this.missed, ...this.o.overflowInfo() }),
      )
      this.end()
      return frame
    }
    return null
  }

  /** Ends the queue: `next()` answers what is queued, then null. */
  end(): void {
    if (this.state === 'ended') return
    this.state = 'ended'
    clearTimeout(this.grace)
    this.wake()
    this.release()
    this.o.onEnd()
  }

  private release() {
    const t = this.taken
    this.taken = []
    for (const r of t) r()
  }

  private wake() {
    const w = this.waiter
    this.waiter = undefined
    w?.()
  }
}
