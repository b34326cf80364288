import { decodeError } from './errors.ts'
import type { WireError } from './protocol.ts'
import { bootWorker, workerEntry } from './boot.ts'

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
    entry: workerEntry('backup-worker'),
    url,
    dest,
  }
  const { worker, first: answer } = await bootWorker<{ ok: boolean; err?: WireError }>(
    'db-backup',
    workerData,
  )
  await worker.terminate()
  if (!answer.ok) throw decodeError(answer.err!)
}
