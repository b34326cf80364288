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
  // spin until 100 ms of this thread's CPU are counted (10 ms ticks), or 5 s on a machine too busy to give them
  const end = Date.now() + 5000
  let after = before
  while (after - before < 100_000 && Date.now() < end) {
    spin(20)
    after = threadCpuUs(process.pid)
  }
  assert.ok(after - before >= 100_000, `main thread ${after - before} µs`)
  assert.ok(procCpuUs(process.pid) >= after)
})

cpu(
  "a thread started later is told apart, with its own CPU and not the main thread's",
  async () => {
    const own = new Set(threadIds(process.pid))
    // the worker stays (a listener on its port) until terminated, and names its own thread (/proc/thread-self
    // is <pid>/task/<tid>): a start-up may run short-lived threads of its own (module loading), so "the threads
    // new since then" is not the worker's alone
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads')
     const { readlinkSync } = require('node:fs')
     parentPort.postMessage(Number(readlinkSync('/proc/thread-self').split('/').pop()))
     parentPort.on('message', (ms) => {
       const end = Date.now() + ms
       let x = 0
       while (Date.now() < end) x++
       parentPort.postMessage(x)
     })`,
      { eval: true },
    )
    const tid = await new Promise<number>((resolve) => worker.once('message', resolve))
    assert.not.ok(own.has(tid), 'the worker runs on a thread started after the first listing')
    const t0 = threadsCpuUs(process.pid)
    assert.ok(t0.has(tid), 'the worker shows among the threads')
    const done = new Promise((resolve) => worker.once('message', resolve))
    worker.postMessage(1000)
    await done
    const t1 = threadsCpuUs(process.pid)
    // the worker spun 1 s (of which a busy machine gives it at least a tenth); this thread only waited
    const grew = t1.get(tid)! - t0.get(tid)!
    assert.ok(grew >= 100_000, `the worker's thread grew ${grew} µs`)
    assert.ok(
      (t1.get(process.pid) ?? 0) - (t0.get(process.pid) ?? 0) < grew,
      'the wait did not count as main-thread work',
    )
    await worker.terminate()
    // a thread that ended is simply absent from the next reading
    assert.not.ok(threadsCpuUs(process.pid).has(tid))
  },
)

cpu.run()
