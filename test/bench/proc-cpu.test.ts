import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Worker } from 'node:worker_threads'
import { threadCpuUs, threadIds, threadsCpuUs, procCpuUs } from '../../bench/_support/proc-cpu.ts'

const cpu = suite("bench: a process's CPU by thread (/proc)")

/** Spins the calling thread for `ms` of wall time. */
function spin(ms: number) {
  const end = Date.now() + ms
  let x = 0
  while (Date.now() < end) x++
  return x
}

cpu('the main thread is one of the threads and its CPU grows while it works', () => {
  assert.ok(threadIds(process.pid).includes(process.pid))
  const before = threadCpuUs(process.pid)
  spin(200)
  const after = threadCpuUs(process.pid)
  // 200 ms of spinning: at least 100 ms counted (10 ms ticks, a busy machine may take the core away)
  assert.ok(after - before >= 100_000, `main thread ${after - before} µs`)
  assert.ok(procCpuUs(process.pid) >= after)
})

cpu(
  "a thread started later is told apart, with its own CPU and not the main thread's",
  async () => {
    const own = new Set(threadIds(process.pid))
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads')
     parentPort.once('message', (ms) => {
       const end = Date.now() + ms
       let x = 0
       while (Date.now() < end) x++
       parentPort.postMessage(x)
     })`,
      { eval: true },
    )
    await new Promise((resolve) => worker.once('online', resolve))
    const t0 = threadsCpuUs(process.pid)
    const newOnes = [...t0.keys()].filter((tid) => !own.has(tid))
    assert.ok(newOnes.length >= 1, 'the worker shows as a new thread')
    const done = new Promise((resolve) => worker.once('message', resolve))
    worker.postMessage(300)
    await done
    const t1 = threadsCpuUs(process.pid)
    const grew = newOnes.map((tid) => (t1.get(tid) ?? 0) - (t0.get(tid) ?? 0))
    // the worker spun 300 ms; this thread only waited
    assert.ok(Math.max(...grew) >= 150_000, `new threads grew ${grew.join(', ')} µs`)
    assert.ok(
      (t1.get(process.pid) ?? 0) - (t0.get(process.pid) ?? 0) < 150_000,
      'the wait did not count as main-thread work',
    )
    await worker.terminate()
    // a thread that ended is simply absent from the next reading
    assert.not.ok(newOnes.every((tid) => threadsCpuUs(process.pid).has(tid)))
  },
)

cpu.run()
