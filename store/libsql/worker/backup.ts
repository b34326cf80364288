import { Worker } from 'node:worker_threads'
import { decodeError } from './errors.ts'
import type { WireError } from './protocol.ts'

const BOOT = new URL('./boot.mjs', import.meta.url)

export interface BackupWorkerData {
  entry: string
  /** The `file:` URL of the database to copy. */
  url: string
  /** The path of the copy (must not exist). */
  dest: string
}

/**
 * Copies the libSQL file at `url` to `dest` as one consistent snapshot (backup-worker.ts), in a thread of its
 * own so that neither the event loop nor the database workers wait for it.
 */
export async function copyDatabase(url: string, dest: string): Promise<void> {
  const workerData: BackupWorkerData = {
    entry: new URL('./backup-worker.ts', import.meta.url).href,
    url,
    dest,
  }
  const worker = new Worker(BOOT, { workerData, name: 'db-backup' })
  try {
    const answer = await new Promise<{ ok: boolean; err?: WireError }>((resolve, reject) => {
      worker.once('message', resolve)
      worker.once('error', reject)
      worker.once('exit', (code) => reject(new Error(`db-backup worker exited (${code})`)))
    })
    if (!answer.ok) throw decodeError(answer.err!)
  } finally {
    await worker.terminate()
  }
}
