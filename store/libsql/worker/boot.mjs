// Entry of every database worker. Workers do not inherit the loader hooks `node --import tsx` (or the tsx CLI)
// installed on the main thread, so a .ts entry would fail with "Unknown file extension"; this file registers
// tsx's ESM hooks in the worker, then imports the real entry named by `workerData.entry`.
import { workerData } from 'node:worker_threads'
import { register } from 'tsx/esm/api'

register()
await import(workerData.entry)
