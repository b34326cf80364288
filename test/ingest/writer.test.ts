import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDb, type Db } from '../../store/libsql/db.ts'
import { createMetaStore } from '../../store/libsql/meta.ts'
import type { EventInput } from '../../store/types.ts'
import type { TelemetryPoint } from '../../store/telemetry.ts'
import { UplinkBatchWriter, type WriterOptions } from '../../ingest/writer.ts'
import { Backpressure } from '../../ingest/types.ts'

/**
 * The writer over a real libSQL file: events go through LogsRepo.addEvents, points into a plain table of the same
 * file (multi-row INSERT). `flushes` records the size of each committed write, so batching can be asserted.
 */
interface Ctx {
  dir: string
  db: Db
  flushes: Array<{ points: number; events: number }>
  fail: boolean
}

const ctx = {} as Ctx

async function setup() {
  ctx.dir = mkdtempSync(join(tmpdir(), 'devicecloud-writer-'))
  ctx.db = await openDb({ url: `file:${ctx.dir}/meta.db` })
  await ctx.db.run('CREATE TABLE pts (device_id TEXT, dp TEXT, t INTEGER, v REAL)')
  ctx.flushes = []
  ctx.fail = false
}

function writer(opts: Partial<WriterOptions> = {}, committed: TelemetryPoint[][] = []) {
  const logs = createMetaStore(ctx.db).logs
  let pendingPoints = 0
  return new UplinkBatchWriter(
    {
      async writePoints(points) {
        if (ctx.fail) throw new Error('disk on fire')
        pendingPoints = points.length
        const sql = `INSERT INTO pts VALUES ${points.map(() => '(?, ?, ?, ?)').join(', ')}`
        await ctx.db.run(
          sql,
          points.flatMap((p) => [p.deviceID, p.dataPointID, p.time, Number(p.value)]),
        )
      },
      async writeEvents(events) {
        await new Promise((r) => setTimeout(r, 5))
        await logs.addEvents(events)
        ctx.flushes.push({ points: pendingPoints, events: events.length })
        pendingPoints = 0
      },
    },
    {
      batchPoints: 100,
      queuePoints: 1000,
      lingerMs: 15,
      onCommitted: (p) => committed.push([...p]),
      ...opts,
    },
  )
}

const pts = (n: number, device = 'd1', t0 = 1000): TelemetryPoint[] =>
  Array.from({ length: n }, (_, i) => ({
    tenantID: 't',
    productID: 'p',
    deviceID: device,
    dataPointID: `dp${i}`,
    time: t0 + i,
    value: i,
  }))
const ev = (deviceID = 'd1'): EventInput => ({
  tenantID: 't',
  deviceID,
  topic: 'x',
  payload: '{}',
  status: 1,
})
const count = async (sql: string) => Number((await ctx.db.one(sql))!.n)

const w = suite('UplinkBatchWriter (real libSQL file)')
w.before.each(setup)
w.after.each(() => {
  void ctx.db.close()
  rmSync(ctx.dir, { recursive: true, force: true })
})

w(
  'three submits within the linger :: one flush, each promise resolves after the commit',
  async () => {
    const committed: TelemetryPoint[][] = []
    const bw = writer({}, committed)
    const all = Promise.all([
      bw.submit(pts(2), [ev()]),
      bw.submit(pts(3, 'd2'), [ev('d2')]),
      bw.submit([], [ev('d3')]),
    ])
    assert.is(await count('SELECT count(*) AS n FROM events'), 0)
    await all
    assert.is(await count('SELECT count(*) AS n FROM events'), 3)
    assert.is(await count('SELECT count(*) AS n FROM pts'), 5)
    assert.equal(ctx.flushes, [{ points: 5, events: 3 }])
    assert.is(committed.length, 1)
    assert.is(committed[0]!.length, 5)
    assert.is(bw.size, 0)
  },
)

w('batch size reached :: the flush starts without waiting for the linger', async () => {
  const bw = writer({ batchPoints: 10, lingerMs: 60_000 })
  const started = Date.now()
  await Promise.race([
    bw.submit(pts(9), [ev()]),
    new Promise((_, reject) => setTimeout(() => reject(new Error('waited for the linger')), 5_000)),
  ])
  assert.ok(Date.now() - started < 5_000)
  assert.equal(ctx.flushes, [{ points: 9, events: 1 }])
})

w(
  'items arriving during a flush :: written in the next flush, batches capped at batchPoints',
  async () => {
    const bw = writer({ batchPoints: 20, lingerMs: 1 })
    const first = bw.submit(pts(10), [ev()])
    await new Promise((r) => setTimeout(r, 3)) // the first flush is under way
    const rest = Array.from({ length: 6 }, (_, i) => bw.submit(pts(9, `d${i}`), [ev(`d${i}`)]))
    await Promise.all([first, ...rest])
    assert.is(await count('SELECT count(*) AS n FROM pts'), 64)
    assert.ok(ctx.flushes.length >= 3, JSON.stringify(ctx.flushes))
    for (const f of ctx.flushes) assert.ok(f.points + f.events <= 20, JSON.stringify(ctx.flushes))
  },
)

w(
  'queue full :: submit throws Backpressure synchronously; an empty queue takes an oversized item',
  async () => {
    const bw = writer({ queuePoints: 10, lingerMs: 30 })
    const big = bw.submit(pts(30), [ev()]) // empty queue: taken although over the bound
    assert.throws(
      () => bw.submit(pts(1), [ev()]),
      (e: unknown) => e instanceof Backpressure && e.retryAfterSeconds === 1,
    )
    await big
    await bw.submit(pts(3), [ev()]) // room again after the commit
    assert.is(await count('SELECT count(*) AS n FROM pts'), 33)
  },
)

w(
  'saturated and drained :: set at the high-water mark, cleared at the low-water mark',
  async () => {
    const bw = writer({ queuePoints: 10, lingerMs: 30, highWater: 0.8, lowWater: 0.5 })
    await bw.drained() // not saturated: resolves at once
    const a = bw.submit(pts(3), [ev()])
    assert.is(bw.saturated, false)
    const b = bw.submit(pts(3), [ev()])
    assert.is(bw.saturated, true)
    let drained = false
    const d = bw.drained().then(() => (drained = true))
    assert.is(drained, false)
    await Promise.all([a, b, d])
    assert.is(drained, true)
    assert.is(bw.saturated, false)
  },
)

w(
  'a failed flush :: every item of it rejects, nothing of it is kept, later submits work',
  async () => {
    const bw = writer({ lingerMs: 5 })
    ctx.fail = true
    const results = await Promise.allSettled([bw.submit(pts(2), [ev()]), bw.submit(pts(2), [ev()])])
    assert.equal(
      results.map((r) => r.status),
      ['rejected', 'rejected'],
    )
    assert.match(String((results[0] as PromiseRejectedResult).reason), 'disk on fire')
    assert.is(await count('SELECT count(*) AS n FROM pts'), 0)
    assert.is(bw.size, 0)
    ctx.fail = false
    await bw.submit(pts(2), [ev()])
    assert.is(await count('SELECT count(*) AS n FROM pts'), 2)
  },
)

w('flush() with a long linger :: commits everything queued now', async () => {
  const bw = writer({ lingerMs: 60_000 })
  const items = [bw.submit(pts(4), [ev()]), bw.submit(pts(4), [ev()])]
  await bw.flush()
  assert.is(await count('SELECT count(*) AS n FROM pts'), 8)
  await Promise.all(items)
  await bw.flush() // nothing queued: resolves at once
})

w('close() :: flushes, then submit throws', async () => {
  const bw = writer({ lingerMs: 60_000 })
  const item = bw.submit(pts(1), [ev()])
  await bw.close()
  await item
  assert.is(await count('SELECT count(*) AS n FROM events'), 1)
  assert.throws(() => bw.submit(pts(1), [ev()]), /closed/)
})

/** A sink whose writes finish when the test says (`finish(i)`), recording when each one started. */
function heldSink() {
  const calls: Array<{ kind: 'events' | 'points'; n: number; done: () => void }> = []
  const hold = (kind: 'events' | 'points', n: number) =>
    new Promise<void>((done) => calls.push({ kind, n, done }))
  return {
    calls,
    sink: {
      writeEvents: (e: readonly EventInput[]) => hold('events', e.length),
      writePoints: (p: readonly TelemetryPoint[]) => hold('points', p.length),
    },
  }
}

w(
  'two flushes, the first failing :: its items reject, the items of the second commit, the queue empties',
  async () => {
    const calls: Array<{ ok: () => void; fail: (e: Error) => void }> = []
    const hold = () => new Promise<void>((ok, fail) => calls.push({ ok, fail }))
    const bw = new UplinkBatchWriter(
      { writeEvents: hold, writePoints: hold },
      { batchPoints: 10, queuePoints: 1000, lingerMs: 5 },
    )
    const first = [bw.submit(pts(4), [ev()]), bw.submit(pts(4), [ev()])] // 10: a full batch
    const second = [bw.submit(pts(4, 'd2'), [ev('d2')]), bw.submit(pts(4, 'd2'), [ev('d2')])]
    assert.is(calls.length, 4) // two flushes under way, their events and points each
    calls[0]!.fail(new Error('disk on fire'))
    for (const c of calls.slice(1)) c.ok()
    const [a, b] = [await Promise.allSettled(first), await Promise.allSettled(second)]
    assert.equal(
      a.map((r) => r.status),
      ['rejected', 'rejected'],
    )
    assert.match(String((a[1] as PromiseRejectedResult).reason), 'disk on fire')
    assert.equal(
      b.map((r) => r.status),
      ['fulfilled', 'fulfilled'],
    )
    assert.is(bw.size, 0)
  },
)

w(
  'a full batch while a flush runs :: a second flush starts at once, at most maxFlushes; less waits its turn',
  async () => {
    const { calls, sink } = heldSink()
    const bw = new UplinkBatchWriter(sink, { batchPoints: 10, queuePoints: 1000, lingerMs: 5 })
    const first = bw.submit(pts(9), [ev()]) // 10: a full batch, flushed at once
    assert.is(calls.length, 2)
    const second = bw.submit(pts(9, 'd2'), [ev('d2')]) // full again: a second flush while the first runs
    assert.is(calls.length, 4)
    const third = bw.submit(pts(9, 'd3'), [ev('d3')]) // full, but two flushes run: it waits
    const small = bw.submit(pts(1, 'd4'), [ev('d4')])
    await new Promise((r) => setTimeout(r, 30)) // past the linger: still waiting for a flush to end
    assert.is(calls.length, 4)
    for (const c of calls.splice(0, 2)) c.done()
    await first
    await new Promise((r) => setTimeout(r, 0))
    // the first ended: the second still runs, the third (a full batch) starts beside it, small still waits
    assert.equal(
      calls.map((c) => [c.kind, c.n]),
      [
        ['events', 1],
        ['points', 9],
        ['events', 1],
        ['points', 9],
      ],
    )
    for (const c of calls.splice(0)) c.done()
    await Promise.all([second, third])
    await new Promise((r) => setTimeout(r, 0))
    for (const c of calls.splice(0)) c.done()
    await small
    assert.is(bw.size, 0)
  },
)

w(
  'parallelPoints :: beside a flush under way, a second starts at that many points pending, not only a full batch',
  async () => {
    const { calls, sink } = heldSink()
    const bw = new UplinkBatchWriter(sink, {
      batchPoints: 10,
      queuePoints: 1000,
      lingerMs: 60_000,
      parallelPoints: 5,
    })
    const alone = bw.submit(pts(3), [ev()]) // 4 points, nothing under way: waits for company (the linger)
    assert.is(calls.length, 0)
    const full = bw.submit(pts(5), [ev()]) // 10: a full batch starts
    assert.is(calls.length, 2)
    const some = bw.submit(pts(4, 'd2'), [ev('d2')]) // 5 pending beside a flush: a second starts
    assert.equal(
      calls.map((c) => [c.kind, c.n]),
      [
        ['events', 2],
        ['points', 8],
        ['events', 1],
        ['points', 4],
      ],
    )
    const few = bw.submit(pts(2, 'd3'), [ev('d3')]) // 3: two under way (maxFlushes), and under 5 anyway
    assert.is(calls.length, 4)
    for (const c of calls.splice(0)) c.done()
    await Promise.all([alone, full, some])
    await new Promise((r) => setTimeout(r, 0))
    // the flushes ended: what waited goes at once, whatever its size
    assert.equal(
      calls.map((c) => [c.kind, c.n]),
      [
        ['events', 1],
        ['points', 2],
      ],
    )
    for (const c of calls.splice(0)) c.done()
    await few
    assert.is(bw.size, 0)
  },
)

w(
  'two flushes under way :: the later one committing first still settles after the earlier one, in order',
  async () => {
    const { calls, sink } = heldSink()
    const committed: number[] = []
    const bw = new UplinkBatchWriter(sink, {
      batchPoints: 10,
      queuePoints: 1000,
      lingerMs: 5,
      onCommitted: (p) => committed.push(p.length),
    })
    const order: string[] = []
    const a = bw.submit(pts(9), [ev()]).then(() => order.push('a'))
    const b = bw.submit(pts(4, 'd2'), [ev('d2'), ev('d2'), ev('d2'), ev('d2'), ev('d2'), ev('d2')])
    const bDone = b.then(() => order.push('b'))
    assert.is(calls.length, 4)
    // the second flush commits first
    calls[2]!.done()
    calls[3]!.done()
    await new Promise((r) => setTimeout(r, 20))
    assert.equal(order, [])
    assert.equal(committed, [])
    calls[0]!.done()
    calls[1]!.done()
    await Promise.all([a, bDone])
    assert.equal(order, ['a', 'b'])
    assert.equal(committed, [9, 4])
  },
)

w(
  'the earlier of two flushes fails :: its items are rejected, the later one still commits, in order',
  async () => {
    const seen: string[] = []
    let n = 0
    const bw = new UplinkBatchWriter(
      {
        async writeEvents() {
          const mine = ++n
          await new Promise((r) => setTimeout(r, mine === 1 ? 30 : 1))
          if (mine === 1) throw new Error('disk on fire')
        },
        async writePoints() {},
      },
      { batchPoints: 10, queuePoints: 1000, lingerMs: 5 },
    )
    const a = bw.submit(pts(9), [ev()]).then(
      () => seen.push('a ok'),
      (e: Error) => seen.push(`a ${e.message}`),
    )
    const b = bw.submit(pts(9, 'd2'), [ev('d2')]).then(() => seen.push('b ok'))
    await Promise.all([a, b])
    assert.equal(seen, ['a disk on fire', 'b ok'])
    assert.is(bw.size, 0)
  },
)

w.run()
