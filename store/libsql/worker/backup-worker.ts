/**
 * A short-lived worker copying one libSQL file: `VACUUM INTO` on a connection of its own reads one snapshot of the
 * database (every transaction committed before it began, nothing after) and writes it as a new, compacted file.
 * It holds a read transaction only: the store worker and the telemetry store go on writing meanwhile.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { createClient } from '@libsql/client/sqlite3'
import { encodeError } from './errors.ts'
import type { BackupWorkerData } from './backup.ts'

const { url, dest } = workerData as BackupWorkerData
const client = createClient({ url, intMode: 'number' })
try {
  await client.execute('PRAGMA busy_timeout = 5000')
  await client.execute({ sql: 'VACUUM INTO ?', args: [dest] })
  parentPort!.postMessage({ ok: true })
} catch (e) {
  parentPort!.postMessage({ ok: false, err: encodeError(e) })
} finally {
  client.close()
}
