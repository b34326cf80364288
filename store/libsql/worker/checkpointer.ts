/**
 * The checkpointer: a thread that moves a database's WAL into the file (`PRAGMA wal_checkpoint(PASSIVE)`) every
 * `intervalMs`, on a connection of its own. SQLite otherwise checkpoints inside the commit that crosses 1,000
 * pages, so the store worker (or the telemetry worker) stopped for the copy and its fsync, ~200 ms, and every
 * write queued behind it waited: the p99 of a command was 190 ms against 16 ms without. A passive checkpoint takes no
 * lock writers wait for. The owners raise their own connection's threshold to a backstop (BACKSTOP_PAGES) in case
 * this thread falls behind.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { createClient } from '@libsql/client/sqlite3'
import { encodeError } from './errors.ts'
import type { CheckpointerData } from './checkpoints.ts'

const { url, intervalMs } = workerData as CheckpointerData
const port = parentPort!
const client = createClient({ url, intMode: 'number' })
let timer: NodeJS.Timeout | undefined
let busy = false
let reported = false

async function tick() {
  if (busy) return
  busy = true
  try {
    await client.execute('PRAGMA wal_checkpoint(PASSIVE)')
    reported = false
  } catch (e) {
    if (!reported) port.postMessage({ notice: 'error', err: encodeError(e) })
    reported = true // once per run of failures
  } finally {
    busy = false
  }
}

try {
  await client.execute('PRAGMA busy_timeout = 1000')
  timer = setInterval(() => void tick(), intervalMs)
  port.postMessage({ ready: true })
} catch (e) {
  port.postMessage({ ready: false, err: encodeError(e) })
}

port.on('message', (m: { t: 'close' }) => {
  if (m.t !== 'close') return
  clearInterval(timer)
  const done = () => {
    client.close()
    port.postMessage({ closed: true })
  }
  const wait = () => (busy ? setTimeout(wait, 5) : done())
  wait()
})
