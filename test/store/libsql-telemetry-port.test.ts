/**
 * The embedded telemetry store in its worker thread (store/tsdb/worker/proxy.ts): the whole telemetry
 * contract over the proxy, kill -9 of a process whose store runs in a worker, the columns points cross as, and
 * what the proxy adds (early stream ends, invalid points, background errors, a dead worker).
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { threadsNamed } from '../_support/procs.ts'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LibsqlTelemetryStore } from '../../store/tsdb/store.ts'
import { WorkerTelemetryStore } from '../../store/tsdb/worker/proxy.ts'
import { encodePoints, type PointColumns } from '../../store/tsdb/worker/points-wire.ts'
import type { TelemetryPoint } from '../../store/telemetry.ts'
import { Unavailable } from '../../store/errors.ts'
import { telemetryContract } from './telemetry.contract.ts'
import { BASE, assertBatches, runChild } from './libsql-telemetry-child.ts'

const dir = mkdtempSync(join(tmpdir(), 'devicecloud-telemetry-port-'))
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
let files = 0
const newUrl = () => `file:${join(dir, `t${++files}.db`)}`

const contractUrl = newUrl()
telemetryContract(
  'libsql in a worker thread',
  () => WorkerTelemetryStore.open({ url: contractUrl }),
  {
    settle: async (s) => {
      await s.flush()
      await s.compact(true)
    },
  },
)

/** The points of `c`, in their order: encodePoints undone, to check it (the store reads the columns themselves). */
function decodePoints(c: PointColumns): TelemetryPoint[] {
  const out: TelemetryPoint[] = new Array<TelemetryPoint>(c.times.length)
  const numeric = c.values.length === 0
  let i = 0
  for (let r = 0; r < c.runs.length; r += 4) {
    const tenantID = c.strings[c.runs[r]!]!
    const productID = c.strings[c.runs[r + 1]!]!
    const deviceID = c.strings[c.runs[r + 2]!]!
    for (const end = i + c.runs[r + 3]!; i < end; i++)
      out[i] = {
        tenantID,
        productID,
        deviceID,
        dataPointID: c.strings[c.dataPoints[i]!]!,
        time: c.times[i]!,
        value: numeric ? c.numbers[i]! : c.values[i]!,
      }
  }
  return out
}

const t = suite('libsql telemetry store in a worker thread')
const HOUR = 3_600_000

/** The error `p` rejected with (fails when it resolved). */
async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p
  } catch (e) {
    assert.instance(e, Error)
    return e as Error
  }
  assert.unreachable('resolved; a rejection was expected')
  throw new Error('unreachable')
}
const open = (url: string) => WorkerTelemetryStore.open({ url, flushIntervalMs: 0 })
const points = (
  deviceID: string,
  n: number,
  value = (i: number) => i as number | string | boolean,
) =>
  Array.from({ length: n }, (_, i): TelemetryPoint => ({
    tenantID: 't1',
    productID: 'p',
    deviceID,
    dataPointID: `dp${i % 3}`,
    time: BASE + i * 1000,
    value: value(i),
  }))

t(
  'points cross as columns :: numbers, strings, booleans, several devices and tenants, order kept',
  () => {
    const mixed: TelemetryPoint[] = [
      ...points('a', 5),
      { ...points('b', 1)[0]!, tenantID: 't2', value: 'on' },
      ...points('b', 4, (i) => i % 2 === 0),
      ...points('a', 2, (i) => 0.1 * i),
    ]
    const { columns, transfer, invalid } = encodePoints(mixed)
    assert.is(invalid, -1)
    assert.equal(decodePoints(structuredClone(columns, { transfer })), mixed)
    const numeric = points('c', 30)
    const c = encodePoints(numeric).columns
    assert.is(c.values.length, 0, 'numbers travel in a Float64Array')
    assert.equal(c.strings, ['t1', 'p', 'c', 'dp0', 'dp1', 'dp2'], 'each string once')
    assert.equal([...c.runs], [0, 1, 2, 30], 'one run for one device')
    assert.equal(decodePoints(c), numeric)
  },
)

t('writes, reads and close :: what the worker stored is in the file after close', async () => {
  const url = newUrl()
  const s = await open(url)
  await s.write(points('d1', 300))
  const raw = await s.readRaw({
    tenantID: 't1',
    deviceID: 'd1',
    dataPointIDs: ['dp0', 'dp1'],
    start: BASE,
    end: BASE + HOUR,
  })
  assert.is(raw.get('dp0')!.time.length, 100)
  assert.equal(raw.get('dp1')!.value.slice(0, 2), [1, 4])
  assert.equal(await s.pragmas(), { journalMode: 'wal', synchronous: 1 })
  await s.close()
  assert.match((await rejection(s.write(points('d1', 1)))).message, /closed/)
  const direct = await LibsqlTelemetryStore.open({ url, flushIntervalMs: 0 })
  assert.is(
    await direct.count({
      tenantID: 't1',
      deviceID: 'd1',
      dataPointIDs: ['dp0', 'dp1', 'dp2'],
      start: BASE,
      end: BASE + HOUR,
    }),
    300,
  )
  await direct.close()
})

/** Whether the store's thread has ended within 5 s (polled every 50 ms). */
async function ends(store: WorkerTelemetryStore): Promise<boolean> {
  for (const end = Date.now() + 5000; store.running && Date.now() < end;)
    await new Promise((r) => setTimeout(r, 50))
  return !store.running
}

t(
  'the thread at rest :: ends idle and quiet, not while work waits; the next call brings it back',
  async () => {
    const idle = { idleMs: 1000, flushIntervalMs: 0 }
    // two stores: one left with a bucket waiting for compaction, one settled
    const [busy, calm] = [
      await WorkerTelemetryStore.open({ url: newUrl(), ...idle }),
      await WorkerTelemetryStore.open({ url: newUrl(), ...idle }),
    ]
    const all = {
      tenantID: 't1',
      deviceID: 'd1',
      dataPointIDs: ['dp0', 'dp1', 'dp2'],
      start: BASE,
      end: BASE + HOUR,
    }
    try {
      // (a thread of its own is not told apart by name: other stores of this process end theirs meanwhile)
      assert.ok(threadsNamed('telemetry') >= 1)
      for (const s of [busy, calm]) {
        await s.write(points('d1', 30))
        await s.flush()
      }
      await calm.compact(true)
      assert.ok(await ends(calm), 'the settled store ends')
      assert.ok(busy.running, 'the other runs on')
      await new Promise((r) => setTimeout(r, 2500))
      assert.ok(busy.running, 'a bucket waiting for compaction keeps its thread past idleMs')
      // a readiness ping neither starts it nor fails
      await calm.ping()
      assert.not.ok(calm.running)
      // the next call starts it again and reads what was stored, writes go on
      assert.is(await calm.count(all), 30)
      assert.ok(calm.running)
      await calm.write(points('d2', 3))
      assert.is(await calm.count({ ...all, deviceID: 'd2' }), 3)
      await busy.compact(true)
      assert.ok(await ends(busy), 'settled, it ends too')
      // a stream holds its thread while it is open, however long the consumer takes
      await calm.flush()
      await calm.compact(true)
      const it = calm.stream(all)[Symbol.asyncIterator]()
      const first = await it.next()
      assert.not.ok(first.done)
      await new Promise((r) => setTimeout(r, 2500))
      assert.ok(calm.running, 'an open stream keeps it past idleMs')
      while (!(await it.next()).done);
      assert.ok(await ends(calm))
    } finally {
      await busy.close()
      await calm.close()
    }
    assert.ok(!busy.running && !calm.running, 'close ends them, running or not')
  },
)

t('an invalid point :: TypeError naming its index, nothing of the call stored', async () => {
  const s = await open(newUrl())
  const bad = [...points('d1', 3), { ...points('d1', 1)[0]!, time: Number.NaN }]
  const e = await rejection(s.write(bad))
  assert.instance(e, TypeError)
  assert.match(e.message, /index 3/)
  // checked as the points are encoded for the thread: the first bad one is named, whatever it is
  const one = points('d1', 1)[0]!
  const kinds: Array<[unknown, number]> = [
    [null, 0],
    [{ ...one, deviceID: 7 }, 1],
    [{ ...one, value: { a: 1 } }, 2],
    [{ ...one, value: Number.POSITIVE_INFINITY }, 2],
  ]
  for (const [point, at] of kinds) {
    const calls = [...points('d1', at), point, { ...one, time: Number.NaN }] as TelemetryPoint[]
    const k = await rejection(s.write(calls))
    assert.instance(k, TypeError)
    assert.match(k.message, new RegExp(`index ${at}$`))
  }
  assert.is(
    await s.count({ tenantID: 't1', deviceID: 'd1', dataPointIDs: ['dp0'], start: 0, end: 1e15 }),
    0,
  )
  await s.close()
})

t(
  'a stream left early :: the worker frees it; a full stream gives every value in slices',
  async () => {
    const s = await open(newUrl())
    const day = 86_400
    const many = Array.from({ length: 3 * day }, (_, i): TelemetryPoint => ({
      tenantID: 't1',
      productID: 'p',
      deviceID: 'd1',
      dataPointID: 'x',
      time: BASE + i * 1000,
      value: i,
    }))
    await s.write(many)
    const range = {
      tenantID: 't1',
      deviceID: 'd1',
      dataPointIDs: ['x'],
      start: BASE,
      end: BASE + 3 * day * 1000,
    }
    let n = 0
    for await (const slice of s.stream(range)) n += slice.time.length
    assert.is(n, 3 * day)
    for (let k = 0; k < 300; k++) {
      // more early exits than the worker keeps open streams (256): each must have been closed
      for await (const slice of s.stream(range)) {
        assert.ok(slice.time.length > 0)
        break
      }
    }
    assert.is(await s.count(range), 3 * day)
    await s.close()
  },
)

t(
  'another process holds the write lock past busy_timeout :: the failures reach the main thread, then the store recovers',
  async () => {
    const url = newUrl()
    const errors: unknown[] = []
    const s = await WorkerTelemetryStore.open({
      url,
      flushIntervalMs: 300,
      busyTimeoutMs: 150,
      onError: (e) => errors.push(e),
    })
    // the other connection ready first: between the write and its lock nothing slow may run (a module loading took
    // longer than the flusher's tick on a loaded machine, which then flushed d1 before the lock and met none)
    const { createClient } = await import('@libsql/client/sqlite3')
    const other = createClient({ url })
    // its BEGIN waits out a flush of the store's that holds the lock at that moment (the store's own ticks)
    await other.execute('PRAGMA busy_timeout = 5000')
    await s.write(points('d1', 10)) // in the memtable until the flusher's first tick
    const tx = await other.transaction('write') // another process's writer, for longer than busy_timeout
    const e = await rejection(s.write(points('d2', 10)))
    assert.match(e.message, /locked|busy/i, 'the write that met the lock fails')
    await new Promise((r) => setTimeout(r, 700))
    await tx.rollback()
    other.close()
    assert.ok(errors.length >= 1, 'the flusher reported its failure through onError')
    assert.instance(errors[0], Error)
    assert.match(String((errors[0] as Error).message), /locked|busy/i)
    // the connection the lock wedged was replaced: writes, flushes and close work again
    await s.write(points('d3', 10))
    await s.flush()
    const range = { tenantID: 't1', dataPointIDs: ['dp0', 'dp1', 'dp2'], start: 0, end: 1e15 }
    assert.is(await s.count({ ...range, deviceID: 'd1' }), 10)
    assert.is(await s.count({ ...range, deviceID: 'd2' }), 0, 'the failed write stored nothing')
    assert.is(await s.count({ ...range, deviceID: 'd3' }), 10)
    await s.close()
  },
)

t('a dead worker :: every later call fails with Unavailable, onFail hears once', async () => {
  const failures: Error[] = []
  const s = await WorkerTelemetryStore.open({
    url: newUrl(),
    flushIntervalMs: 0,
    onFail: (e) => failures.push(e),
  })
  await s.write(points('d1', 10))
  // the test's own way in: the worker behind the proxy (no product path ends it)
  const worker = (s as unknown as { port: { worker: import('node:worker_threads').Worker } }).port
    .worker
  await worker.terminate()
  assert.instance(
    await rejection(
      s.count({ tenantID: 't1', deviceID: 'd1', dataPointIDs: ['dp0'], start: 0, end: 1e15 }),
    ),
    Unavailable,
  )
  assert.instance(await rejection(s.ping()), Unavailable)
  assert.instance(await rejection(s.write(points('d1', 1))), Unavailable)
  assert.is(failures.length, 1)
  await s.close()
})

t('kill -9 of a process whose store runs in a worker :: every acked write reads back', async () => {
  const url = newUrl()
  const acked = await runChild(url, 'flushing', 30, 'worker')
  const s = await open(url)
  await assertBatches(s, acked)
  await s.close()
})

t.run()
