// Entry of every database worker. Workers do not inherit the loader hooks `node --import tsx` (or the tsx CLI)
// installed on the main thread, so a .ts entry would fail with "Unknown file extension"; this file registers
// tsx's ESM hooks in the worker, then imports the real entry named by `workerData.entry`.
import { workerData } from 'node:worker_threads'
import { register } from 'tsx/esm/api'

register()
if (process.env.BENCH_ROLES) {
  const { readlinkSync, writeFileSync, mkdirSync } = await import('node:fs')
  mkdirSync('/tmp/roles', { recursive: true })
  const tid = readlinkSync('/proc/thread-self').split('/').pop()
  writeFileSync('/tmp/roles/' + tid, String(workerData.entry).split('/').pop())
}
await import(workerData.entry)
