import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { createClient } from '@libsql/client'
import { LibsqlTelemetryStore, type LibsqlTelemetryOptions } from '../../store/tsdb/store.ts'
import type { TelemetryPoint, TelemetryValue } from '../../store/telemetry.ts'
import { telemetryContract } from './telemetry.contract.ts'
import { encodePoints, type PointColumns } from '../../store/tsdb/worker/points-wire.ts'
import { SCHEMA_VERSION } from '../../store/tsdb/file.ts'
import { KIND_TIMES_SHARED } from '../../store/tsdb/codec.ts'
import { aggregateSorted, windowBounds } from '../../store/windows.ts'
import { BASE, PER_BATCH, assertBatches, batch, runChild } from './libsql-telemetry-child.ts'

const dir = mkdtempSync(join(tmpdir(), 'devicecloud-telemetry-'))
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
let files = 0
const newUrl = () => `file:${join(dir, `t${++files}.db`)}`

const contractUrl = newUrl()
telemetryContract('libsql', () => LibsqlTelemetryStore.open({ url: contractUrl }), {
  settle: async (s) => {
    await s.flush()
    await s.compact(true)
  },
})

const HOUR = 3_600_000
const DAY_MS = 24 * HOUR
const open = (url: string, o: Partial<LibsqlTelemetryOptions> = {}) =>
  LibsqlTelemetryStore.open({ url, flushIntervalMs: 0, ...o })
const pts = (
  deviceID: string,
  dp: string,
  rows: Array<[number, TelemetryValue]>,
): TelemetryPoint[] =>
  rows.map(([time, value]) => ({
    tenantID: 't1',
    productID: 'p',
    deviceID,
    dataPointID: dp,
    time,
    value,
  }))

/** The values of data point x of a device of tenant t1 in the first hour from BASE. */
const firstHourOfX = async (s: LibsqlTelemetryStore, deviceID = 'd') =>
  (
    await s.readRaw({
      tenantID: 't1',
      deviceID,
      dataPointIDs: ['x'],
      start: BASE,
      end: BASE + HOUR,
    })
  ).get('x')

/** Reads a table of the store's file from a second connection. */
async function raw(url: string, sql: string): Promise<number> {
  return (await rawRows(url, sql))[0]![0]!
}

/** Rows of a query on the store's file from a second connection, as arrays of numbers. */
async function rawRows(url: string, sql: string): Promise<number[][]> {
  const c = createClient({ url })
  try {
    return (await c.execute(sql)).rows.map((r) => Array.from(r, Number))
  } finally {
    c.close()
  }
}

/**
 * Shared time columns and value packs are counted exactly: each blob's refs equal the chunks naming it, none is
 * missing, and every packed chunk's values lie inside its pack.
 */
async function assertSharedBlobs(url: string) {
  assert.is(
    await raw(
      url,
      `SELECT count(*) FROM chunk_packs p
         WHERE refs != (SELECT count(*) FROM chunks c WHERE c.pack = p.id)`,
    ),
    0,
    'pack reference counts',
  )
  assert.is(
    await raw(
      url,
      `SELECT count(*) FROM chunks c WHERE c.pack IS NOT NULL AND (length(c.vals) != 0
         OR c.pack_off + c.pack_len > coalesce((SELECT length(bytes) FROM chunk_packs p WHERE p.id = c.pack), -1))`,
    ),
    0,
    'packed values outside their pack, or dangling',
  )
  assert.is(
    await raw(
      url,
      `SELECT count(*) FROM chunk_times t
         WHERE refs != (SELECT count(*) FROM chunks c WHERE c.kind & ${KIND_TIMES_SHARED} AND c.times = t.hash)`,
    ),
    0,
    'reference counts',
  )
  assert.is(
    await raw(
      url,
      `SELECT count(*) FROM chunks c WHERE c.kind & ${KIND_TIMES_SHARED} AND NOT EXISTS (SELECT 1 FROM chunk_times t WHERE t.hash = c.times)`,
    ),
    0,
    'dangling references',
  )
}

/**
 * Makes a closed store's file look as a version 6 binary wrote it: packed values back inline, no packs (the caller
 * drops what older versions also lacked and sets the version).
 */
async function withoutPacks(c: ReturnType<typeof createClient>) {
  await c.execute(`UPDATE chunks SET vals = substr((SELECT bytes FROM chunk_packs WHERE id = pack), pack_off + 1,
                     pack_len) WHERE pack IS NOT NULL`)
  await c.execute('DROP TRIGGER chunk_packs_release')
  for (const col of ['pack', 'pack_off', 'pack_len'])
    await c.execute(`ALTER TABLE chunks DROP COLUMN ${col}`)
  await c.execute('DROP TABLE chunk_packs')
}

const t = suite('libsql telemetry store')

t(
  'deleteBefore :: `otherwise` covers products no rule names; memtable values wait for their flush; chunks with a younger value stay whole',
  async () => {
    const s = await open(newUrl())
    const T = Date.UTC(2026, 0, 10)
    const at = (
      productID: string,
      deviceID: string,
      time: number,
      value: number,
    ): TelemetryPoint => ({
      tenantID: 't1',
      productID,
      deviceID,
      dataPointID: 'x',
      time,
      value,
    })
    await s.write([
      at('ruled', 'a', T - 3 * HOUR, 1),
      at('other', 'b', T - 3 * HOUR, 2),
      at('other', 'b', T + 1, 3), // older than the limit, but its hour's chunk holds a younger value: it stays
      at('other', 'b', T + 40 * 60_000, 4),
    ])
    await s.flush()
    await s.write([at('other', 'b', T - 2 * HOUR, 5)]) // only in the memtable
    const L = T + 30 * 60_000
    const n = await s.deleteBefore(
      [{ tenantID: 't1', productID: 'ruled', before: T - 4 * HOUR }],
      L,
    )
    assert.is(n, 1, "only b's chunk of T-3h went")
    const range = (deviceID: string) => ({
      tenantID: 't1',
      deviceID,
      dataPointIDs: ['x'],
      start: 0,
      end: T + HOUR,
    })
    assert.equal(
      (await s.readRaw(range('a'))).get('x')!.value,
      [1],
      "the rule keeps a's value (limit T-4h)",
    )
    assert.equal((await s.readRaw(range('b'))).get('x')!.value, [5, 3, 4])
    await s.flush()
    assert.is(
      await s.deleteBefore([], L),
      2,
      "flushed, the memtable value goes; a's value now falls under otherwise",
    )
    assert.equal((await s.readRaw(range('b'))).get('x')!.value, [3, 4])
    await s.close()
  },
)

t(
  'paced retention :: every old value goes in several holds, writes go in between; close() cuts a pause short',
  async () => {
    const url = newUrl()
    const T = Date.UTC(2026, 0, 11)
    const old = (k: number) =>
      Array.from({ length: 400 }, (_, d) =>
        pts(`d${d}`, 'x', [
          [T + k, d],
          [T + HOUR + k, d],
        ]),
      ).flat()
    let s = await open(url, { retentionShare: 0.05 })
    await s.write(old(0))
    await s.flush()
    await s.compact(true)
    let finished = false
    const job = s.deleteBefore([], T + 2 * HOUR).then((n) => ((finished = true), n))
    // a write waits for one hold at most, not for the job
    await s.write(pts('fresh', 'x', [[T + 3 * HOUR, 1]]))
    assert.not.ok(finished, 'the write went in while retention was still at work')
    assert.is(await job, 800)
    assert.is(await raw(url, 'SELECT count(*) FROM chunks'), 0)
    await s.close()
    // a share of 0.001 pauses 999 times each hold: closing must not wait for that
    s = await open(url, { retentionShare: 0.001 })
    await s.write(old(1))
    await s.flush()
    await s.compact(true)
    const t0 = performance.now()
    const cut = s.deleteBefore([], T + 2 * HOUR)
    await new Promise((r) => setTimeout(r, 50))
    await s.close()
    const n = await cut
    assert.ok(
      performance.now() - t0 < 3000,
      `deleteBefore ended ${performance.now() - t0} ms after`,
    )
    assert.ok(n < 800, `stopped early (${n} of 800)`)
    s = await open(url)
    assert.is(await s.deleteBefore([], T + 2 * HOUR), 800 - n)
    assert.equal(
      (
        await s.readRaw({
          tenantID: 't1',
          deviceID: 'fresh',
          dataPointIDs: ['x'],
          start: T,
          end: T + 4 * HOUR,
        })
      ).get('x')!.value,
      [1],
    )
    await s.close()
  },
)

t('connection settings :: WAL journal and synchronous NORMAL', async () => {
  const s = await open(newUrl())
  assert.equal(await s.pragmas(), { journalMode: 'wal', synchronous: 1 })
  await s.write(pts('d', 'x', [[BASE, 1]]))
  await s.flush()
  assert.equal(await s.pragmas(), { journalMode: 'wal', synchronous: 1 })
  await s.close()
})

t(
  'kill -9 while flushes and compactions race the writes :: every acked write reads back',
  async () => {
    const url = newUrl()
    const acked = await runChild(url, 'flushing', 300)
    assert.ok(
      (await raw(url, 'SELECT count(*) FROM chunk_packs')) > 0,
      'the child packed past hours before it died',
    )
    await assertSharedBlobs(url)
    const s = await open(url)
    await assertBatches(s, acked)
    await s.compact(true)
    await assertBatches(s, acked)
    await s.close()
    assert.ok(
      (await raw(url, 'SELECT count(*) FROM chunks')) > 0,
      'the child flushed before it died',
    )
    assert.ok(
      (await raw(url, `SELECT count(*) FROM chunks WHERE kind & ${KIND_TIMES_SHARED}`)) > 0,
      'a and b share their time columns',
    )
    await assertSharedBlobs(url)
  },
)

t(
  'wal replay :: values only in the WAL at kill -9 are read after restart, then flushed on close',
  async () => {
    const url = newUrl()
    const acked = await runChild(url, 'wal', 5)
    assert.is(await raw(url, 'SELECT count(*) FROM chunks'), 0)
    assert.ok((await raw(url, 'SELECT count(*) FROM wal')) >= acked + 1)
    const s = await open(url)
    await assertBatches(s, acked)
    const latest = await s.latest('t1', 'dev')
    assert.ok(latest.get('a')!.time >= batch(acked).at(-1)!.time)
    await s.close()
    assert.is(await raw(url, 'SELECT count(*) FROM wal'), 0)
    assert.ok((await raw(url, 'SELECT count(*) FROM chunks')) > 0)
    const again = await open(url)
    await assertBatches(again, acked)
    await again.close()
  },
)

t(
  'deleted device, then kill -9 :: WAL replay does not bring it back, its series ids are not reused',
  async () => {
    const url = newUrl()
    await runChild(url, 'delete', 0)
    assert.ok((await raw(url, 'SELECT count(*) FROM wal')) > 0)
    const s = await open(url)
    const gone = await s.readRaw({
      tenantID: 't1',
      deviceID: 'gone',
      dataPointIDs: ['a', 'b'],
      start: BASE,
      end: BASE + 10 * HOUR,
    })
    assert.equal(gone.get('a'), { time: [], value: [] })
    assert.is((await s.latest('t1', 'gone')).size, 0)
    const kept = await s.readRaw({
      tenantID: 't1',
      deviceID: 'kept',
      dataPointIDs: ['a', 'b'],
      start: BASE,
      end: BASE + 10 * HOUR,
    })
    assert.is(kept.get('a')!.time.length + kept.get('b')!.time.length, PER_BATCH)
    await s.write(batch(2, 'new'))
    await s.close()
    assert.is(
      await raw(url, "SELECT min(id) FROM series WHERE device_id = 'new'"),
      5,
      'ids of deleted series are never reused',
    )
  },
)

t(
  'deleted data point, then kill -9 :: WAL replay does not bring it back, the other point stays, ids not reused',
  async () => {
    const url = newUrl()
    await runChild(url, 'delete-point', 0)
    assert.ok((await raw(url, 'SELECT count(*) FROM wal')) > 0)
    const s = await open(url)
    const range = { tenantID: 't1', dataPointIDs: ['a', 'b'], start: BASE, end: BASE + 10 * HOUR }
    for (const deviceID of ['kept', 'gone']) {
      const r = await s.readRaw({ ...range, deviceID })
      assert.equal(r.get('a'), { time: [], value: [] }, `${deviceID}: a deleted`)
      assert.is(r.get('b')!.time.length, PER_BATCH / 2, `${deviceID}: b kept`)
      assert.equal([...(await s.latest('t1', deviceID)).keys()], ['b'])
    }
    await s.write(batch(2, 'kept'))
    await s.close()
    assert.is(
      await raw(url, "SELECT count(*) FROM series WHERE data_point_id = 'a' AND id <= 4"),
      0,
      'ids of deleted series are never reused',
    )
    assert.is(await raw(url, "SELECT count(*) FROM series WHERE product_id = 'p'"), 3)
  },
)

t(
  'deleteDataPoint over 1,200 devices with flushed, compacted and memtable values :: all of them gone, statistics too',
  async () => {
    const url = newUrl()
    const s = await open(url)
    const devices = Array.from({ length: 1200 }, (_, i) => `d${i}`)
    const write = (dt: number, v: number) =>
      s.write(
        devices.flatMap((d) => [
          ...pts(d, 'x', [[BASE + dt, v]]),
          ...pts(d, 'y', [[BASE + dt, v]]),
        ]),
      )
    await write(0, 1)
    await s.flush()
    await write(1000, 2)
    await s.flush()
    await s.compact(true)
    await write(2000, 3)
    await s.deleteDataPoint('t1', 'p', 'x')
    const range = { tenantID: 't1', dataPointIDs: ['x', 'y'], start: BASE, end: BASE + HOUR }
    const sums = await s.aggregate({ ...range, deviceID: 'd777' }, 'sum', {
      every: '1h',
      tz: 'UTC',
    })
    assert.equal(Object.fromEntries(sums), {
      x: { time: [], value: [] },
      y: { time: [BASE], value: [6] },
    })
    await s.flush()
    assert.is(await raw(url, "SELECT count(*) FROM series WHERE data_point_id = 'x'"), 0)
    assert.is(await raw(url, 'SELECT count(*) FROM series'), 1200)
    assert.is(await raw(url, 'SELECT sum(n) FROM chunks'), 3600)
    assert.is(await raw(url, 'SELECT sum(vsum) FROM chunks'), 1200 * 6)
    await s.close()
  },
)

t(
  'a device written under another product :: its series move with it; deleteDataPoint of the old product leaves them',
  async () => {
    const url = newUrl()
    const s = await open(url)
    const at = (deviceID: string, productID: string, dp: string, dt: number, value: number) => ({
      tenantID: 't1',
      productID,
      deviceID,
      dataPointID: dp,
      time: BASE + dt,
      value,
    })
    await s.write([
      at('moved', 'old', 'x', 0, 1),
      at('moved', 'old', 'y', 0, 2),
      at('stays', 'old', 'x', 0, 3),
    ])
    await s.flush()
    await s.write([at('moved', 'new', 'x', 1000, 4)])
    assert.is(await raw(url, "SELECT count(*) FROM series WHERE product_id = 'new'"), 2)
    await s.deleteDataPoint('t1', 'old', 'x')
    const read = (deviceID: string) =>
      s.readRaw({
        tenantID: 't1',
        deviceID,
        dataPointIDs: ['x', 'y'],
        start: BASE,
        end: BASE + HOUR,
      })
    assert.equal((await read('moved')).get('x'), { time: [BASE, BASE + 1000], value: [1, 4] })
    assert.equal((await read('stays')).get('x'), { time: [], value: [] })
    await s.close()
    const again = await open(url)
    await again.deleteDataPoint('t1', 'new', 'x')
    assert.equal(Object.fromEntries(await again.latest('t1', 'moved')), {
      y: { time: BASE, value: 2 },
    })
    await again.close()
  },
)

t(
  'a schema 2 file :: opens as the current schema; its series get their product when their device is written again',
  async () => {
    const url = newUrl()
    let s = await open(url)
    await s.write([...pts('d', 'x', [[BASE, 1]]), ...pts('idle', 'x', [[BASE, 2]])])
    await s.close()
    const c = createClient({ url })
    await withoutPacks(c)
    await c.execute('ALTER TABLE series DROP COLUMN product_id')
    await c.execute('ALTER TABLE chunks DROP COLUMN rolled')
    await c.execute('DROP TABLE rollups')
    await c.execute("UPDATE meta SET value = 2 WHERE key = 'schema_version'")
    c.close()
    s = await open(url)
    assert.is(await raw(url, "SELECT value FROM meta WHERE key = 'schema_version'"), SCHEMA_VERSION)
    assert.is(await raw(url, 'SELECT count(*) FROM series WHERE product_id IS NULL'), 2)
    await s.write(pts('d', 'y', [[BASE + 1, 3]]))
    assert.is(await raw(url, "SELECT count(*) FROM series WHERE product_id = 'p'"), 2)
    await s.deleteDataPoint('t1', 'p', 'x')
    const x = (deviceID: string) =>
      s.readRaw({ tenantID: 't1', deviceID, dataPointIDs: ['x'], start: BASE, end: BASE + HOUR })
    assert.equal((await x('d')).get('x'), { time: [], value: [] })
    assert.equal((await x('idle')).get('x'), { time: [BASE], value: [2] }, 'product unknown: kept')
    await s.close()
  },
)

t(
  'a write that fails :: new series and product changes of the call are undone in memory',
  async () => {
    const url = newUrl()
    const s = await open(url)
    await s.write(pts('d', 'x', [[BASE, 1]]))
    const c = createClient({ url })
    await c.execute(
      "CREATE TRIGGER no_wal BEFORE INSERT ON wal BEGIN SELECT RAISE(ABORT, 'refused'); END",
    )
    const moved = pts('d', 'y', [[BASE, 2]]).map((p) => ({ ...p, productID: 'q' }))
    assert.match(String(await s.write(moved).catch((e) => e)), /refused/)
    await c.execute('DROP TRIGGER no_wal')
    c.close()
    await s.deleteDataPoint('t1', 'q', 'x')
    const r = await s.readRaw({
      tenantID: 't1',
      deviceID: 'd',
      dataPointIDs: ['x', 'y'],
      start: BASE,
      end: BASE + HOUR,
    })
    assert.equal(Object.fromEntries(r), {
      x: { time: [BASE], value: [1] },
      y: { time: [], value: [] },
    })
    await s.deleteDataPoint('t1', 'p', 'x')
    assert.is((await s.latest('t1', 'd')).size, 0)
    await s.close()
  },
)

t(
  'compaction of a past hour :: one chunk per hour, duplicates resolved by the later write',
  async () => {
    const url = newUrl()
    const s = await open(url)
    const h = BASE + 5 * HOUR
    await s.write(
      pts('d', 'x', [
        [h, 1],
        [h + 1000, 2],
        [h + HOUR + 5, 'next hour'],
      ]),
    )
    await s.flush()
    await s.write(
      pts('d', 'x', [
        [h + 1000, 20],
        [h + 2000, 3],
      ]),
    )
    await s.flush()
    await s.write(
      pts('d', 'x', [
        [h + 2000, true],
        [h - 1, 0],
      ]),
    )
    await s.flush()
    assert.is(await raw(url, 'SELECT count(*) FROM chunks'), 5)
    const before = await s.readRaw({
      tenantID: 't1',
      deviceID: 'd',
      dataPointIDs: ['x'],
      start: h - HOUR,
      end: h + 2 * HOUR,
    })
    assert.ok((await s.compact()) >= 3)
    assert.is(
      await raw(url, 'SELECT count(*) FROM chunks'),
      3,
      'hours h-1, h and h+1: one chunk each',
    )
    const after = await s.readRaw({
      tenantID: 't1',
      deviceID: 'd',
      dataPointIDs: ['x'],
      start: h - HOUR,
      end: h + 2 * HOUR,
    })
    assert.equal(after.get('x'), {
      time: [h - 1, h, h + 1000, h + 2000, h + HOUR + 5],
      value: [0, 1, 20, true, 'next hour'],
    })
    assert.equal(after, before)
    await s.write(pts('d', 'x', [[h + 1000, 21]]))
    await s.close()
    const again = await open(url)
    await again.compact(true)
    const last = await again.readRaw({
      tenantID: 't1',
      deviceID: 'd',
      dataPointIDs: ['x'],
      start: h,
      end: h + HOUR,
    })
    assert.equal(last.get('x')!.value, [1, 21, true])
    await again.close()
  },
)

t('compaction of the current hour :: only once it holds maxChunksPerBucket chunks', async () => {
  const url = newUrl()
  const now = Date.now()
  const s = await open(url, { maxChunksPerBucket: 3, now: () => now })
  const t0 = Math.floor(now / HOUR) * HOUR
  for (let k = 0; k < 2; k++) {
    await s.write(pts('d', 'x', [[t0 + k, k]]))
    await s.flush()
  }
  await s.compact()
  assert.is(await raw(url, 'SELECT count(*) FROM chunks'), 2)
  await s.write(pts('d', 'x', [[t0 + 2, 2]]))
  await s.flush()
  await s.compact()
  assert.is(await raw(url, 'SELECT count(*) FROM chunks'), 1)
  assert.equal((await s.latest('t1', 'd')).get('x'), { time: t0 + 2, value: 2 })
  await s.close()
})

t(
  'compaction while the hour lasts :: only chunks since the last merge are merged again; later writes win; once past, one chunk',
  async () => {
    const url = newUrl()
    const H = Date.UTC(2026, 0, 16, 10)
    let clock = H + 30 * 60_000
    const s = await open(url, { maxChunksPerBucket: 3, now: () => clock, compactGraceMs: 60_000 })
    const chunks = async () =>
      (await rawRows(url, 'SELECT id, n, rolled FROM chunks ORDER BY seq, id')) as Array<
        [number, number, number]
      >
    const expected = new Map<number, number>()
    for (let f = 0; f < 9; f++) {
      // 10 new times a flush, and (from the fourth flush on) one time of the first flush written again
      const batch: Array<[number, number]> = Array.from({ length: 10 }, (_, i) => [
        H + (f * 10 + i) * 1000,
        f * 100 + i,
      ])
      if (f >= 3) batch.push([H + f * 1000, -f])
      for (const [t, v] of batch) expected.set(t, v)
      await s.write(pts('d', 'x', batch))
      await s.flush()
      await s.compact()
    }
    const merged = await chunks()
    // flushes 0-2 merged into one chunk, 3-5 into another, 6-8 into a third: none merged twice
    assert.equal(
      merged.map(([, n]) => n),
      [30, 33, 33],
    )
    assert.ok(
      merged.every(([, , rolled]) => rolled === 0),
      'rolled up once the hour is past',
    )
    const first = merged[0]![0]
    const read = async () =>
      (
        await s.readRaw({
          tenantID: 't1',
          deviceID: 'd',
          dataPointIDs: ['x'],
          start: H,
          end: H + HOUR,
        })
      ).get('x')!
    const want = [...expected].sort((a, b) => a[0] - b[0])
    const got = await read()
    assert.equal(
      got.time.map((t, i) => [t, got.value[i]]),
      want,
    )
    // another three flushes: the first merged chunk stays as it was
    for (let f = 9; f < 12; f++) {
      await s.write(pts('d', 'x', [[H + f * 10_000, f]]))
      expected.set(H + f * 10_000, f)
      await s.flush()
      await s.compact()
    }
    assert.is((await chunks())[0]![0], first, 'not merged again')
    assert.is((await chunks()).length, 4)
    clock = H + HOUR + 60_000
    await s.compact()
    const past = await chunks()
    assert.equal(
      past.map(([, n, rolled]) => [n, rolled]),
      [[expected.size, 1]],
    )
    const all = await read()
    assert.equal(
      all.time.map((t, i) => [t, all.value[i]]),
      [...expected].sort((a, b) => a[0] - b[0]),
    )
    await s.close()
  },
)

t(
  'compaction of many buckets :: a write that arrives meanwhile is stored before the compaction ends',
  async () => {
    const url = newUrl()
    const H = Date.UTC(2026, 0, 16, 10)
    const s = await open(url, { maxChunksPerBucket: 3, now: () => H + 30 * 60_000 })
    // 100 devices x 10 series, three flushes each: 1,000 crowded buckets, about 32 a lock hold
    for (let f = 0; f < 3; f++) {
      const batch: TelemetryPoint[] = []
      for (let d = 0; d < 100; d++)
        for (let k = 0; k < 10; k++) batch.push(...pts(`d${d}`, `p${k}`, [[H + f * 1000, f]]))
      await s.write(batch)
      await s.flush()
    }
    const order: string[] = []
    const compaction = s.compact().then(() => order.push('compaction'))
    // a write from the event loop's next turn, as a worker message arrives
    const write = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => s.write(pts('late', 'x', [[H + 5000, 1]])))
      .then(() => order.push('write'))
    await Promise.all([compaction, write])
    assert.equal(order, ['write', 'compaction'])
    assert.is(await raw(url, 'SELECT count(*) FROM chunks'), 1000, 'every bucket merged')
    await s.close()
  },
)

/** One data point's values of one device of tenant t1 in the hour from `h`. */
async function hourOf(s: LibsqlTelemetryStore, deviceID: string, dp: string, h: number) {
  const range = { tenantID: 't1', deviceID, dataPointIDs: [dp], start: h, end: h + HOUR }
  return (await s.readRaw(range)).get(dp)
}

t(
  'a flush of many series in steps :: writes go in between, reads see every value, a device deleted meanwhile stays gone',
  async () => {
    const url = newUrl()
    const H = Date.UTC(2026, 0, 16, 10)
    const s = await open(url, { flushStep: 100 })
    // 200 devices x 10 series: 20 lock holds
    const batch: TelemetryPoint[] = []
    for (let d = 0; d < 200; d++)
      for (let k = 0; k < 10; k++)
        batch.push(
          ...pts(`d${d}`, `p${k}`, [
            [H, d],
            [H + 1000, k],
          ]),
        )
    await s.write(batch)
    const order: string[] = []
    const flush = s.flush().then(() => order.push('flush'))
    const read = (deviceID: string) => hourOf(s, deviceID, 'p3', H)
    // from the event loop's next turns, as worker messages arrive: a write, reads and a delete
    await new Promise<void>((resolve) => setImmediate(resolve))
    const write = s.write(pts('late', 'x', [[H + 5000, 1]])).then(() => order.push('write'))
    await new Promise<void>((resolve) => setImmediate(resolve))
    assert.ok(
      (await raw(url, 'SELECT count(*) FROM chunks')) < 2000,
      'the flush has not ended yet (the reads below run during it)',
    )
    for (const d of [0, 150, 199])
      assert.equal(await read(`d${d}`), { time: [H, H + 1000], value: [d, 3] })
    assert.equal((await s.latest('t1', 'd199')).get('p3'), { time: H + 1000, value: 3 })
    await s.deleteDevice('t1', 'd199')
    await Promise.all([flush, write])
    assert.equal(order, ['write', 'flush'])
    assert.is(await raw(url, 'SELECT count(*) FROM chunks'), 1990, "every series' chunk but d199's")
    assert.is(
      await raw(url, 'SELECT count(*) FROM wal'),
      1,
      'only the late write, flushed next time',
    )
    assert.equal(await read('d150'), { time: [H, H + 1000], value: [150, 3] })
    assert.equal(await read('d199'), { time: [], value: [] })
    await s.close()
    const again = await open(url)
    assert.equal(await hourOf(again, 'late', 'x', H), { time: [H + 5000], value: [1] })
    assert.equal(await hourOf(again, 'd199', 'p3', H), { time: [], value: [] })
    await again.close()
  },
)

t(
  'a flush that fails half-way :: its values stay readable, the next flush writes them with the newer ones, later writes win',
  async () => {
    const url = newUrl()
    const H = Date.UTC(2026, 0, 16, 10)
    const s = await open(url, { flushStep: 1, busyTimeoutMs: 100 })
    await s.write([
      ...pts('a', 'x', [[H, 1]]),
      ...pts('b', 'x', [[H, 2]]),
      ...pts('c', 'x', [[H, 3]]),
    ])
    const other = createClient({ url })
    const flush = s.flush()
    // the first step commits a's chunk; the other connection then takes the write lock before the second step
    await new Promise<void>((resolve) => setImmediate(resolve))
    const tx = await other.transaction('write')
    const e = await flush.catch((err: Error) => err)
    assert.instance(e, Error)
    assert.match(String(e), /locked|busy/i)
    await tx.rollback()
    other.close()
    assert.is(await raw(url, 'SELECT count(*) FROM chunks'), 1, "the failure came after a's step")
    const read = (deviceID: string) => hourOf(s, deviceID, 'x', H)
    for (const [d, v] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const)
      assert.equal(await read(d), { time: [H], value: [v] }, `${d} readable after the failure`)
    await s.write(pts('b', 'x', [[H, 20]])) // rewrites b's value: newer than the one set aside
    await s.flush()
    assert.is(await raw(url, 'SELECT count(*) FROM wal'), 0)
    assert.equal(await read('b'), { time: [H], value: [20] })
    await s.close()
    const again = await open(url)
    for (const [d, v] of [
      ['a', 1],
      ['b', 20],
      ['c', 3],
    ] as const)
      assert.equal(await hourOf(again, d, 'x', H), { time: [H], value: [v] })
    await again.compact(true)
    assert.equal((await again.latest('t1', 'b')).get('x'), { time: H, value: 20 })
    await again.close()
  },
)

t('a day at 1 Hz after compaction :: 24 chunk rows, read whole', async () => {
  const url = newUrl()
  const s = await open(url)
  for (let k = 0; k < 86_400; k += 20_000)
    await s.write(
      pts(
        'd',
        'x',
        Array.from({ length: Math.min(20_000, 86_400 - k) }, (_, i) => [
          BASE + (k + i) * 1000,
          (k + i) * 0.5,
        ]),
      ),
    )
  await s.flush()
  await s.compact(true)
  assert.is(await raw(url, 'SELECT count(*) FROM chunks'), 24)
  const r = (
    await s.readRaw({
      tenantID: 't1',
      deviceID: 'd',
      dataPointIDs: ['x'],
      start: BASE,
      end: BASE + 24 * HOUR,
    })
  ).get('x')!
  assert.is(r.time.length, 86_400)
  assert.is(r.value[86_399], 86_399 * 0.5)
  assert.is(
    await raw(url, 'SELECT max(length(times)) FROM chunks'),
    16,
    'regular times stored as [t0, step]',
  )
  await s.close()
})

t(
  'time columns shared by the series of a device :: stored once an hour, read exactly, released by every delete',
  async () => {
    const url = newUrl()
    const s = await open(url)
    const T = Date.UTC(2026, 0, 12)
    // irregular receipt times (packed: well over 64 bytes an hour); d1's x, y and z come in the same messages,
    // d1's w in every other one, d2's x at its own times
    const times = (seed: number) =>
      Array.from({ length: 2000 }, (_, i) => T + i * 3000 + ((i * seed) % 17))
    const t1 = times(7)
    const t2 = times(11)
    const points = [
      ...['x', 'y', 'z'].flatMap((dp, k) =>
        pts(
          'd1',
          dp,
          t1.map((t, i) => [t, i * (k + 1) + 0.25]),
        ),
      ),
      ...pts(
        'd1',
        'w',
        t1.filter((_, i) => i % 2 === 0).map((t, i) => [t, -i]),
      ),
      ...pts(
        'd2',
        'x',
        t2.map((t, i) => [t, i % 13]),
      ),
    ]
    await s.write(points)
    await s.flush()
    await s.compact(true)
    const hours = 2 // 2,000 messages 3 s apart: 100 minutes from midnight
    assert.is(
      await raw(url, `SELECT count(*) FROM chunks WHERE kind & ${KIND_TIMES_SHARED}`),
      5 * hours,
    )
    assert.is(
      await raw(url, 'SELECT count(*) FROM chunk_times'),
      3 * hours,
      "d1's x/y/z once, w's and d2's own",
    )
    assert.is(await raw(url, 'SELECT max(refs) FROM chunk_times'), 3)
    await assertSharedBlobs(url)
    const read = async (deviceID: string, ids: string[], start = T, end = T + 3 * HOUR) =>
      s.readRaw({ tenantID: 't1', deviceID, dataPointIDs: ids, start, end })
    const d1 = await read('d1', ['x', 'y', 'z', 'w'])
    assert.equal(d1.get('y'), { time: t1, value: t1.map((_, i) => i * 2 + 0.25) })
    assert.equal(
      d1.get('w')!.time,
      t1.filter((_, i) => i % 2 === 0),
    )
    assert.equal((await read('d2', ['x'])).get('x'), { time: t2, value: t2.map((_, i) => i % 13) })
    // counts and aggregates read the shared times too (an edge chunk decodes its times; a partial hour its values)
    assert.is(
      await s.count({
        tenantID: 't1',
        deviceID: 'd1',
        dataPointIDs: ['z'],
        start: T + 1000,
        end: T + HOUR,
      }),
      1200 - 1,
    )
    const max = await s.aggregate(
      {
        tenantID: 't1',
        deviceID: 'd1',
        dataPointIDs: ['x'],
        start: T + 30 * 60_000,
        end: T + 3 * HOUR,
      },
      'max',
      { every: '1h', tz: 'UTC' },
    )
    assert.equal(max.get('x')!.value, [1199.25, 1999.25])
    // a late value in the first hour: compaction merges it and the hour's old blob of x is released, y and z keep it
    await s.write(pts('d1', 'x', [[T + 1, 99]]))
    await s.flush()
    await s.compact(true)
    assert.is(await raw(url, 'SELECT count(*) FROM chunk_times'), 3 * hours + 1)
    await assertSharedBlobs(url)
    assert.equal((await read('d1', ['x'], T, T + 2)).get('x')!.value, [0.25, 99])
    // retention drops the first hour's chunks with their blobs, then a device's deletion drops the rest of its own
    await s.deleteBefore([], T + HOUR + 1)
    assert.is(await raw(url, 'SELECT count(*) FROM chunk_times'), 3)
    await assertSharedBlobs(url)
    await s.deleteDevice('t1', 'd1')
    assert.is(await raw(url, 'SELECT count(*) FROM chunk_times'), 1)
    await assertSharedBlobs(url)
    assert.equal(
      (await read('d2', ['x'], T + HOUR, T + 3 * HOUR)).get('x')!.time,
      t2.filter((t) => t >= T + HOUR),
    )
    await s.close()
  },
)

t(
  'two tenants with the same times :: one blob, each keeps its values when the other deletes its device',
  async () => {
    const url = newUrl()
    const s = await open(url)
    const T = Date.UTC(2026, 0, 13)
    const times = Array.from({ length: 1000 }, (_, i) => T + i * 2000 + (i % 5))
    const of = (tenantID: string, deviceID: string, k: number) =>
      ['x', 'y'].flatMap((dp) =>
        times.map((time, i) => ({
          tenantID,
          productID: 'p',
          deviceID,
          dataPointID: dp,
          time,
          value: i * k,
        })),
      )
    await s.write([...of('t1', 'same', 1), ...of('t2', 'same', 2)])
    await s.flush()
    await s.compact(true)
    // 2,000 s, all in one hour: its times stored once for both tenants' two series each
    assert.is(await raw(url, 'SELECT count(*) FROM chunk_times'), 1)
    assert.is(await raw(url, 'SELECT refs FROM chunk_times'), 4)
    const read = (tenantID: string) =>
      s.readRaw({
        tenantID,
        deviceID: 'same',
        dataPointIDs: ['x', 'y'],
        start: T,
        end: T + 2 * HOUR,
      })
    await s.deleteDevice('t1', 'same')
    await assertSharedBlobs(url)
    assert.is(await raw(url, 'SELECT refs FROM chunk_times'), 2)
    assert.equal((await read('t1')).get('x'), { time: [], value: [] })
    const t2 = await read('t2')
    assert.equal(t2.get('x'), { time: times, value: times.map((_, i) => i * 2) })
    assert.equal(t2.get('y')!.time, times)
    await s.deleteDevice('t2', 'same')
    assert.is(
      await raw(url, 'SELECT count(*) FROM chunk_times'),
      0,
      'the last reference takes the blob',
    )
    await s.close()
  },
)

t(
  'value packs :: one a device and hour, for each tenant; exact reads; late values, retention and deletions release them',
  async () => {
    const url = newUrl()
    const s = await open(url)
    const T = Date.UTC(2026, 0, 14)
    // 2 tenants x 2 devices x 3 data points, 90 minutes of a value every 10 s: two hours each
    const times = Array.from({ length: 540 }, (_, i) => T + i * 10_000 + (i % 3))
    const valueOf = (tenant: number, device: number, dp: number, i: number) =>
      Math.round(((i * 7919 + tenant * 31 + device * 17 + dp * 5) % 10_000) * 1.01) / 100
    const points = (['t1', 't2'] as const).flatMap((tenantID, tk) =>
      ['a', 'b'].flatMap((deviceID, dk) =>
        ['x', 'y', 'z'].flatMap((dataPointID, pk) =>
          times.map((time, i) => ({
            tenantID,
            productID: 'p',
            deviceID,
            dataPointID,
            time,
            value: valueOf(tk, dk, pk, i),
          })),
        ),
      ),
    )
    await s.write(points)
    await s.flush()
    await s.compact(true)
    assert.is(
      await raw(url, 'SELECT count(*) FROM chunk_packs'),
      2 * 2 * 2,
      'a pack a device and hour',
    )
    assert.is(await raw(url, 'SELECT min(refs) FROM chunk_packs'), 3)
    assert.is(await raw(url, 'SELECT count(*) FROM chunks WHERE pack IS NULL'), 0)
    await assertSharedBlobs(url)
    const read = (tenantID: string, deviceID: string, start = T, end = T + 2 * HOUR) =>
      s.readRaw({ tenantID, deviceID, dataPointIDs: ['x', 'y', 'z'], start, end })
    for (const [tk, tenantID] of ['t1', 't2'].entries())
      for (const [dk, deviceID] of ['a', 'b'].entries()) {
        const got = await read(tenantID, deviceID)
        for (const [pk, dp] of ['x', 'y', 'z'].entries())
          assert.equal(got.get(dp), {
            time: times,
            value: times.map((_, i) => valueOf(tk, dk, pk, i)),
          })
      }
    // aggregates over packed chunks: a partial hour decodes its values, the newest value comes from a pack
    const max = await s.aggregate(
      { tenantID: 't2', deviceID: 'b', dataPointIDs: ['z'], start: T + 600_000, end: T + 2 * HOUR },
      'max',
      { every: '1h', tz: 'UTC' },
    )
    const zb = times.map((_, i) => valueOf(1, 1, 2, i))
    assert.equal(max.get('z')!.value, [
      Math.max(...zb.filter((_, i) => times[i]! >= T + 600_000 && times[i]! < T + HOUR)),
      Math.max(...zb.filter((_, i) => times[i]! >= T + HOUR)),
    ])
    assert.equal((await s.latest('t1', 'a')).get('y'), {
      time: times.at(-1),
      value: valueOf(0, 0, 1, times.length - 1),
    })
    // a late value in t1/a's first hour: x is merged again into a pack of its own; y and z keep the old pack
    await s.write(pts('a', 'x', [[T + 5, -1]]))
    await s.flush()
    await s.compact(true)
    assert.is(await raw(url, 'SELECT count(*) FROM chunk_packs'), 9)
    await assertSharedBlobs(url)
    const x = (await read('t1', 'a', T, T + 20_000)).get('x')!
    assert.equal(x, {
      time: [T, T + 5, T + 10_001],
      value: [valueOf(0, 0, 0, 0), -1, valueOf(0, 0, 0, 1)],
    })
    // retention drops the first hour (its 4 packs and the late one), a device's deletion its other pack, a data
    // point's deletion takes one reference of each remaining pack
    await s.deleteBefore([], T + HOUR + 1)
    assert.is(await raw(url, 'SELECT count(*) FROM chunk_packs'), 4)
    await s.deleteDevice('t1', 'a')
    assert.is(await raw(url, 'SELECT count(*) FROM chunk_packs'), 3)
    await s.deleteDataPoint('t2', 'p', 'x')
    assert.is(await raw(url, 'SELECT count(*) FROM chunk_packs'), 3)
    assert.is(await raw(url, 'SELECT sum(refs) FROM chunk_packs'), 3 + 2 + 2)
    await assertSharedBlobs(url)
    assert.equal(
      (await read('t1', 'b', T + HOUR, T + 2 * HOUR)).get('y')!.value,
      times.flatMap((t, i) => (t >= T + HOUR ? [valueOf(0, 1, 1, i)] : [])),
    )
    assert.equal((await read('t2', 'a', T + HOUR, T + 2 * HOUR)).get('x'), { time: [], value: [] })
    await s.close()
  },
)

t(
  'value packs :: a crowded current hour merges inline; once past, the device hour is one pack with no dead bytes',
  async () => {
    const url = newUrl()
    const H = Date.UTC(2026, 0, 16, 10)
    let clock = H + 30 * 60_000
    const s = await open(url, { now: () => clock, maxChunksPerBucket: 3, compactGraceMs: 60_000 })
    const value = (i: number, k: number) => ((i * 7919 + k * 104_729) % 10_000) / 100
    const times = (flush: number) =>
      Array.from({ length: 100 }, (_, i) => H + flush * 100_000 + i * 997)
    // x and y in every flush, z only in the first: z's bucket never crowds
    for (let f = 0; f < 6; f++) {
      for (const [k, dp] of ['x', 'y', 'z'].entries())
        if (f === 0 || dp !== 'z')
          await s.write(
            pts(
              'd',
              dp,
              times(f).map((t, i) => [t, value(f * 100 + i, k)]),
            ),
          )
      await s.flush()
      await s.compact()
    }
    assert.ok(
      (await raw(
        url,
        "SELECT count(*) FROM chunks WHERE series_id IN (SELECT id FROM series WHERE data_point_id = 'x')",
      )) < 6,
      'x was merged while the hour lasted',
    )
    assert.is(await raw(url, 'SELECT count(*) FROM chunk_packs'), 0, 'no pack in the current hour')
    clock = H + HOUR + 60_000
    await s.compact()
    assert.is(
      await raw(url, 'SELECT count(*) FROM chunk_packs'),
      1,
      "the device's hour in one pack",
    )
    assert.is(await raw(url, 'SELECT refs FROM chunk_packs'), 3)
    assert.is(
      await raw(
        url,
        'SELECT (SELECT sum(length(bytes)) FROM chunk_packs) - (SELECT sum(pack_len) FROM chunks)',
      ),
      0,
      'no dead bytes',
    )
    await assertSharedBlobs(url)
    const got = await s.readRaw({
      tenantID: 't1',
      deviceID: 'd',
      dataPointIDs: ['x', 'y', 'z'],
      start: H,
      end: H + HOUR,
    })
    const all = Array.from({ length: 6 }, (_, f) => times(f)).flat()
    assert.equal(got.get('y'), { time: all, value: all.map((_, j) => value(j, 1)) })
    assert.equal(got.get('z'), { time: times(0), value: times(0).map((_, i) => value(i, 2)) })
    await s.close()
  },
)

t(
  'a schema 6 file :: upgrades in place; its inline values read as before, compaction packs new hours',
  async () => {
    const url = newUrl()
    let s = await open(url)
    const T = Date.UTC(2026, 0, 15)
    const rows = (from: number) =>
      Array.from(
        { length: 300 },
        (_, i) => [from + i * 1000, ((i * 7919) % 1000) + 0.5] as [number, TelemetryValue],
      )
    await s.write([...pts('d', 'x', rows(T)), ...pts('d', 'y', rows(T))])
    await s.flush()
    await s.compact(true)
    await s.close()
    const c = createClient({ url })
    await withoutPacks(c)
    await c.execute("UPDATE meta SET value = 6 WHERE key = 'schema_version'")
    c.close()
    s = await open(url)
    assert.is(await raw(url, "SELECT value FROM meta WHERE key = 'schema_version'"), SCHEMA_VERSION)
    assert.is(await raw(url, 'SELECT count(*) FROM chunks WHERE pack IS NULL'), 2)
    const read = (start: number) =>
      s.readRaw({
        tenantID: 't1',
        deviceID: 'd',
        dataPointIDs: ['x', 'y'],
        start,
        end: start + HOUR,
      })
    assert.equal((await read(T)).get('y'), {
      time: rows(T).map((r) => r[0]),
      value: rows(T).map((r) => r[1]),
    })
    await s.write([...pts('d', 'x', rows(T + HOUR)), ...pts('d', 'y', rows(T + HOUR))])
    await s.flush()
    await s.compact(true)
    assert.is(await raw(url, 'SELECT count(*) FROM chunks WHERE pack IS NOT NULL'), 2)
    assert.is(await raw(url, 'SELECT refs FROM chunk_packs'), 2)
    await assertSharedBlobs(url)
    assert.equal(
      (await read(T + HOUR)).get('x')!.value,
      rows(T).map((r) => r[1]),
    )
    // deleting the old hour's chunks works through the trigger the upgrade added
    await s.deleteBefore([], T + HOUR)
    assert.is(await raw(url, 'SELECT count(*) FROM chunks'), 2)
    await s.close()
  },
)

t(
  'flushes and compactions racing writes :: nothing lost, the last sequential write wins',
  async () => {
    const url = newUrl()
    const s = await open(url, {
      flushIntervalMs: 3,
      flushPoints: 700,
      maxChunksPerBucket: 2,
      compactGraceMs: 0,
    })
    const background: Promise<unknown>[] = []
    const writes = Array.from({ length: 40 }, (_, k) =>
      s.write(
        pts(
          'd',
          'x',
          Array.from({ length: 250 }, (_, i) => [BASE + (i * 40 + k) * 1000, k * 1000 + i]),
        ),
      ),
    )
    for (let k = 0; k < 10; k++) background.push(s.flush(), s.compact(true))
    await Promise.all([...writes, ...background])
    for (let round = 0; round < 15; round++) {
      background.push(s.flush(), s.compact(true))
      await s.write(
        pts(
          'd',
          'y',
          Array.from({ length: 100 }, (_, i) => [
            BASE + i * 60_000,
            round % 2 ? `r${round}` : round,
          ]),
        ),
      )
    }
    await Promise.all(background)
    const r = await s.readRaw({
      tenantID: 't1',
      deviceID: 'd',
      dataPointIDs: ['x', 'y'],
      start: BASE,
      end: BASE + 10 * HOUR,
    })
    const x = r.get('x')!
    assert.is(x.time.length, 40 * 250)
    x.time.forEach((tm, j) => {
      const n = (tm - BASE) / 1000
      if (x.value[j] !== (n % 40) * 1000 + Math.floor(n / 40))
        assert.unreachable(`x at ${n}: ${x.value[j]}`)
    })
    assert.equal(
      r.get('y')!.value,
      Array.from({ length: 100 }, () => 14),
    )
    await s.close()
  },
)

t(
  'one series receiving numbers, strings and booleans :: each value keeps its type through flush and compaction',
  async () => {
    const url = newUrl()
    const s = await open(url)
    await s.write(
      pts('d', 'x', [
        [BASE, 1],
        [BASE + 1, 'one'],
        [BASE + 2, true],
      ]),
    )
    await s.flush()
    await s.write(
      pts('d', 'x', [
        [BASE + 3, false],
        [BASE + 4, ''],
        [BASE + 5, 0],
      ]),
    )
    const want = {
      time: [0, 1, 2, 3, 4, 5].map((x) => BASE + x),
      value: [1, 'one', true, false, '', 0],
    }
    const read = () =>
      s.readRaw({
        tenantID: 't1',
        deviceID: 'd',
        dataPointIDs: ['x'],
        start: BASE,
        end: BASE + HOUR,
      })
    assert.equal((await read()).get('x'), want)
    await s.flush()
    await s.compact(true)
    assert.equal((await read()).get('x'), want)
    await s.close()
  },
)

t('invalid points :: rejected with TypeError, nothing of the call stored', async () => {
  const s = await open(newUrl())
  for (const value of [NaN, Infinity, undefined, null, { a: 1 }] as unknown as TelemetryValue[]) {
    const err = await s
      .write(
        pts('d', 'x', [
          [BASE, 1],
          [BASE + 1, value],
        ]),
      )
      .catch((e) => e)
    assert.instance(err, TypeError)
  }
  const badTime = await s.write(pts('d', 'x', [[NaN, 1]])).catch((e) => e)
  assert.instance(badTime, TypeError)
  assert.equal(await firstHourOfX(s), { time: [], value: [] })
  await s.close()
  const closed = await s.write(pts('d', 'x', [[BASE, 1]])).catch((e) => e)
  assert.match(String(closed), /closed/)
})

t(
  'writeColumns :: the same values as write() of the points, two tenants, numbers, texts and booleans',
  async () => {
    const [byPoints, byColumns] = [await open(newUrl()), await open(newUrl())]
    const mixed: TelemetryPoint[] = [
      ...pts('d1', 'x', [
        [BASE, 1.5],
        [BASE + 1000, 2.5],
      ]),
      ...pts('d2', 'y', [[BASE, 'on']]),
      { ...pts('d1', 'x', [[BASE, 9]])[0]!, tenantID: 't2' },
      ...pts('d2', 'z', [[BASE + 2000, true]]),
    ]
    const numbers = pts('d3', 'x', [
      [BASE, 7],
      [BASE + 1, 8],
    ])
    for (const batch of [mixed, numbers]) {
      await byPoints.write(batch)
      await byColumns.writeColumns(encodePoints(batch).columns)
    }
    const read = (s: LibsqlTelemetryStore, tenantID: string, deviceID: string) =>
      s.readRaw({
        tenantID,
        deviceID,
        dataPointIDs: ['x', 'y', 'z'],
        start: BASE,
        end: BASE + HOUR,
      })
    for (const [tenantID, deviceID] of [
      ['t1', 'd1'],
      ['t1', 'd2'],
      ['t2', 'd1'],
      ['t1', 'd3'],
    ] as const) {
      const want = await read(byPoints, tenantID, deviceID)
      assert.ok(want.size > 0, `${tenantID}/${deviceID} has values`)
      assert.equal(await read(byColumns, tenantID, deviceID), want)
    }
    assert.equal((await read(byColumns, 't2', 'd1')).get('x'), { time: [BASE], value: [9] })
    await byPoints.close()
    await byColumns.close()
  },
)

t(
  'writeColumns :: columns that are not whole, valid points are a TypeError naming the point; none kept',
  async () => {
    const s = await open(newUrl())
    const good = () =>
      encodePoints(
        pts('d', 'x', [
          [BASE, 1],
          [BASE + 1, 2],
          [BASE + 2, 3],
        ]),
      ).columns
    const broken: Array<[string, (c: PointColumns) => void, number]> = [
      ['a time not finite', (c) => (c.times[1] = Number.NaN), 1],
      ['a value not finite', (c) => (c.numbers[2] = Number.POSITIVE_INFINITY), 2],
      ['a data point with no string', (c) => (c.dataPoints[1] = 99), 1],
      ['a device with no string', (c) => (c.runs = Uint32Array.of(0, 1, 99, 3)), 0],
      ['runs short of the points', (c) => (c.runs = Uint32Array.of(0, 1, 2, 2)), 2],
      ['runs past the points', (c) => (c.runs = Uint32Array.of(0, 1, 2, 4)), 2],
      ['values of another length', (c) => (c.numbers = new Float64Array(2)), 0],
      [
        'an object value',
        (c) => ((c.values = [1, { a: 1 } as never, 3]), (c.numbers = new Float64Array(0))),
        1,
      ],
    ]
    for (const [what, breakIt, at] of broken) {
      const c = good()
      breakIt(c)
      const err = (await s.writeColumns(c).catch((e: unknown) => e)) as Error
      assert.instance(err, TypeError, what)
      assert.match(err.message, new RegExp(`index ${at}$`), what)
    }
    assert.equal(await firstHourOfX(s), { time: [], value: [] })
    await s.writeColumns(good())
    assert.equal(await firstHourOfX(s), { time: [BASE, BASE + 1, BASE + 2], value: [1, 2, 3] })
    await s.close()
    assert.match(String(await s.writeColumns(good()).catch((e: unknown) => e)), /closed/)
  },
)

t('memtable over flushPoints :: flushed to chunks without a timer, WAL emptied', async () => {
  const url = newUrl()
  const s = await open(url, { flushPoints: 100 })
  await s.write(
    pts(
      'd',
      'x',
      Array.from({ length: 150 }, (_, i) => [BASE + i, i]),
    ),
  )
  await s.write(pts('d', 'x', [[BASE + 500, 1]])) // during the flush the first write triggered (or in it)
  // the flush runs in steps beside the writes: it has ended once the WAL is empty
  for (let i = 0; i < 100 && (await raw(url, 'SELECT count(*) FROM wal')) > 0; i++) await delay(50)
  assert.is(await raw(url, 'SELECT count(*) FROM wal'), 0)
  assert.ok((await raw(url, 'SELECT count(*) FROM chunks')) >= 1)
  assert.is((await hourOf(s, 'd', 'x', BASE))!.time.length, 151)
  await s.close()
})

/**
 * The reference for aggregates: windows over the raw values (store/windows.ts), no chunk statistics.
 * Sums and means may differ from the store's in the last bits (a chunk's sum is added as one number).
 */
async function assertAggregatesMatch(s: LibsqlTelemetryStore, label: string, seed: number) {
  let x = seed
  const rnd = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  const cases: Array<[string, string]> = [
    ['1h', 'UTC'],
    ['2h', 'UTC'],
    ['6h', 'Europe/Berlin'],
    ['1d', 'Europe/Berlin'],
    ['1h', 'Asia/Kolkata'],
    ['15m', 'UTC'],
    ['1mo', 'UTC'],
  ]
  for (let k = 0; k < 40; k++) {
    const start =
      AGG_BASE -
      6 * HOUR +
      Math.floor(rnd() * 80) * 1_800_000 +
      (rnd() < 0.3 ? Math.floor(rnd() * 1e6) : 0)
    const end =
      start + Math.floor(rnd() * 60 + 1) * HOUR + (rnd() < 0.3 ? Math.floor(rnd() * 1e6) : 0)
    const [every, tz] = cases[k % cases.length]!
    const range = { tenantID: 't1', deviceID: 'agg', dataPointIDs: ['a', 'b', 'none'], start, end }
    const raw = await s.readRaw(range)
    const bounds = windowBounds(start, end, every, tz)
    for (const fn of ['max', 'min', 'mean', 'sum'] as const) {
      const got = await s.aggregate(range, fn, { every, tz })
      for (const dp of ['a', 'b', 'none']) {
        const want = aggregateSorted(raw.get(dp)!.time, raw.get(dp)!.value, bounds, fn)
        const have = got.get(dp)!
        const what = `${label}: ${fn} ${dp} ${every} ${tz} [${start}, ${end})`
        assert.equal(have.time, want.time, what)
        have.value.forEach((v, i) =>
          assert.ok(
            Math.abs((v as number) - want.value[i]!) <=
              1e-9 * Math.max(1, Math.abs(want.value[i]!)),
            `${what} #${i}: ${v} vs ${want.value[i]}`,
          ),
        )
      }
    }
  }
}

const AGG_BASE = Date.UTC(2026, 2, 28)

t(
  'aggregate with chunk statistics :: equals windows over the raw values, through flushes, compaction, rewrites and an old file',
  async () => {
    const url = newUrl()
    let s = await open(url)
    // three days of `a` every 10 s (numbers), `b` every minute (numbers with some strings)
    const a: Array<[number, TelemetryValue]> = []
    const b: Array<[number, TelemetryValue]> = []
    for (let t = AGG_BASE - DAY_MS; t < AGG_BASE + 2 * DAY_MS; t += 10_000)
      a.push([t, Math.round(Math.sin(t / 7e6) * 1000) / 8])
    for (let t = AGG_BASE - DAY_MS; t < AGG_BASE + 2 * DAY_MS; t += 60_000)
      b.push([t, t % 7 === 0 ? 'x' : (t / 60_000) % 113])
    await s.write([...pts('agg', 'a', a), ...pts('agg', 'b', b)])
    await assertAggregatesMatch(s, 'memtable only', 1)
    await s.flush()
    await s.compact(true)
    await assertAggregatesMatch(s, 'one chunk per hour', 2)
    // rewrites: some into compacted hours (memtable), then flushed as second chunks of those hours
    await s.write(
      pts('agg', 'a', [
        [AGG_BASE + 5 * HOUR + 10_000, 1e6],
        [AGG_BASE + 30 * HOUR, -1e6],
        [AGG_BASE + 30 * HOUR + 5, 3],
      ]),
    )
    await assertAggregatesMatch(s, 'rewrites in the memtable', 3)
    await s.flush()
    await assertAggregatesMatch(s, 'hours with two chunks', 4)
    await s.close()
    // an old (schema 1) file: no statistics columns; reopening adds them, its chunks are decoded
    const c = createClient({ url })
    await withoutPacks(c)
    for (const col of ['vmin', 'vmax', 'vsum', 'vcnt', 'rolled'])
      await c.execute(`ALTER TABLE chunks DROP COLUMN ${col}`)
    await c.execute('DROP TABLE rollups')
    await c.execute('ALTER TABLE series DROP COLUMN product_id')
    await c.execute("UPDATE meta SET value = 1 WHERE key = 'schema_version'")
    c.close()
    s = await open(url)
    assert.is(await raw(url, "SELECT value FROM meta WHERE key = 'schema_version'"), SCHEMA_VERSION)
    const old = await raw(url, 'SELECT count(*) FROM chunks WHERE vcnt IS NULL')
    assert.is(old, await raw(url, 'SELECT count(*) FROM chunks'))
    await assertAggregatesMatch(s, 'schema 1 chunks', 5)
    await s.compact(true)
    assert.ok(
      (await raw(url, 'SELECT count(*) FROM chunks WHERE vcnt IS NULL')) < old,
      'merged hours get statistics',
    )
    await assertAggregatesMatch(s, 'after compaction', 6)
    await s.close()
  },
)

t.run()
