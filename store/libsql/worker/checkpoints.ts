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

/** A running checkpointer thread (checkpointer.ts) of one database file. */
export class Checkpointer {
  private constructor(private readonly worker: Worker) {}

  /** Starts it; `onError` hears of a failing checkpoint (once per run of failures). */
  static async start(
    url: string,
    onError: (e: Error) => void,
    intervalMs = 250,
  ): Promise<Checkpointer> {
    const workerData: CheckpointerData = {
      entry: workerEntry('checkpointer'),
      url,
      intervalMs,
    }
    const { worker, first: hello } = await bootWorker<{ ready: boolean; err?: WireError }>(
      'db-checkpointer',
      workerData,
    )
    if (!hello.ready) {
      await worker.terminate()
      throw decodeError(hello.err!)
    }
    worker.on('message', (m: { notice?: string; err?: WireError }) => {
      if (m.notice === 'error' && m.err) onError(decodeError(m.err))
    })
    worker.on('error', (e) => onError(e))
    worker.unref()
    return new Checkpointer(worker)
  }

  /** Stops checkpointing (after the one under way) and ends the thread. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      const onMessage = (m: { closed?: boolean }) => m.closed && resolve()
      this.worker.on('message', onMessage)
      this.worker.once('exit', () => resolve())
    })
    this.worker.postMessage({ t: 'close' })
    await Promise.race([closed, new Promise((r) => setTimeout(r, 2000))])
    await this.worker.terminate()
  }
}
