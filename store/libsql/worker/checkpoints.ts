import type { Worker } from 'node:worker_threads'
import { decodeError } from './errors.ts'
import type { WireError } from './protocol.ts'
import { bootWorker, workerEntry } from './boot.ts'

/** What a writer connection sets as its own checkpoint threshold when a checkpointer runs: only a backstop. */
export const BACKSTOP_PAGES = 50_000

export interface CheckpointerData {
  entry: string
  url: string
  intervalMs: number
}

export interface CheckpointerOptions {
  /** How often the thread checkpoints while it runs, ms (default 250). */
  intervalMs?: number
  /**
   * How long the thread runs on after the last write, ms (default 10 s): long enough for its ticks to have moved
   * what the writes left in the WAL, and for what the store's own thread writes after them (a flush, a compaction).
   */
  idleMs?: number
}

/**
 * The checkpointer thread (checkpointer.ts) of one database file, run while writes come: the first write after a
 * quiet spell starts it (`wake`), and it ends `idleMs` after the last one, so a service at rest holds no thread for
 * it (each is a V8 isolate of its own, ~18 MB of RSS). Until it runs, the WAL waits; past BACKSTOP_PAGES the
 * writer's own connection checkpoints.
 *
 * States: stopped → (wake) starting → running → (idleMs without a wake) stopping → stopped; a wake while it
 * stops starts the next thread after the old one has ended, so two never checkpoint the same file at once.
 */
export class Checkpointer {
  private readonly intervalMs: number
  private readonly idleMs: number
  /** The thread while it starts or runs (undefined when it failed to start). */
  private thread?: Promise<Worker | undefined>
  /** The end of the last thread, while it ends. */
  private ending: Promise<void> = Promise.resolve()
  private lastWake = 0
  private timer?: NodeJS.Timeout
  private closed = false

  /** `onError` hears of a failing checkpoint (once per run of failures) or a thread that would not start. */
  constructor(
    private readonly url: string,
    private readonly onError: (e: Error) => void,
    options: CheckpointerOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 250
    this.idleMs = options.idleMs ?? 10_000
  }

  /** Whether the thread runs (or starts) now. */
  get running(): boolean {
    return this.thread !== undefined
  }

  /** A write was sent: starts the thread unless it runs, and keeps it running `idleMs` more. Cheap when it runs. */
  wake(): void {
    if (this.closed) return
    this.lastWake = Date.now()
    if (this.thread) return
    this.thread = this.ending.then(() => this.spawn())
    this.watch(this.idleMs)
  }

  /** Ends the thread once `idleMs` passed without a wake. */
  private watch(ms: number) {
    this.timer = setTimeout(() => {
      const quiet = Date.now() - this.lastWake
      if (quiet < this.idleMs) return this.watch(this.idleMs - quiet)
      this.timer = undefined
      this.ending = this.stop()
    }, ms)
    this.timer.unref()
  }

  private async spawn(): Promise<Worker | undefined> {
    const workerData: CheckpointerData = {
      entry: workerEntry('checkpointer'),
      url: this.url,
      intervalMs: this.intervalMs,
    }
    try {
      const { worker, first: hello } = await bootWorker<{ ready: boolean; err?: WireError }>(
        'db-checkpointer',
        workerData,
      )
      if (!hello.ready) {
        await worker.terminate()
        throw decodeError(hello.err!)
      }
      worker.on('message', (m: { notice?: string; err?: WireError }) => {
        if (m.notice === 'error' && m.err) this.onError(decodeError(m.err))
      })
      worker.on('error', (e: Error) => this.onError(e))
      worker.unref()
      return worker
    } catch (e) {
      this.onError(e as Error)
      return undefined
    }
  }

  /** Stops checkpointing (after the one under way) and ends the thread. */
  private async stop(): Promise<void> {
    const thread = this.thread
    this.thread = undefined
    const worker = await thread
    if (!worker) return
    const closed = new Promise<void>((resolve) => {
      const onMessage = (m: { closed?: boolean }) => m.closed && resolve()
      worker.on('message', onMessage)
      worker.once('exit', () => resolve())
    })
    worker.postMessage({ t: 'close' })
    await Promise.race([closed, new Promise((r) => setTimeout(r, 2000))])
    await worker.terminate()
  }

  /** Ends the thread if it runs; later wakes start none. */
  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.timer)
    this.timer = undefined
    await this.ending
    if (this.thread) await this.stop()
  }
}
