/** A database worker stand-in for test/store/worker-db.test.ts: it answers nothing and exits on its second message. */
import { parentPort } from 'node:worker_threads'

let seen = 0
parentPort!.on('message', () => {
  if (++seen === 2) process.exit(3)
})
parentPort!.postMessage({ ready: true })
