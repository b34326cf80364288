/**
 * Embedded telemetry store benchmark (issues 4 and 5), `npm run bench -- telemetry`:
 * 1. write(): 1,000,000 points in 5,000-point calls (100 devices x 10 data points), against a raw libSQL
 *    multi-row INSERT of the same rows (500 rows per statement, 10 statements per transaction) into a plain
 *    (series, time, value) table in a fresh file, same pragmas, same run.
 * 2. 1 device x 10 data points x 7 days at 1 Hz (6,048,000 values) loaded through write() in 100,000-point calls,
 *    flushed and compacted; then readRaw of one data point over one day (20 runs, p50/p99), over 7 days, latest().
 */
import { createClient } from '@libsql/client'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LibsqlTelemetryStore } from '../store/tsdb/store.ts'
import type { TelemetryPoint } from '../store/telemetry.ts'
import { table } from './_support/runner.ts'

const dir = mkdtempSync(join(tmpdir(), 'devicecloud-bench-telemetry-'))
const HOUR = 3_600_000
const DAY = 24 * HOUR
const BASE = Date.UTC(2026, 0, 5)
const WRITE_POINTS = Number(process.env.BENCH_POINTS ?? 1_000_000)
const BATCH = 5000
const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
const ms = (n: number) => n.toFixed(1)
let peakRss = 0
const sampleRss = () => (peakRss = Math.max(peakRss, process.memoryUsage.rss()))

/** Batch b of the write test: 500 instants x 100 devices x 10 data points... as 5,000 points. */
function writeBatch(b: number): TelemetryPoint[] {
  const out: TelemetryPoint[] = new Array<TelemetryPoint>(BATCH)
  for (let i = 0; i < BATCH; i++) {
    const n = b * BATCH + i
    const series = n % 1000
    out[i] = {
      tenantID: 'bench',
      productID: 'p',
      deviceID: `dev-${Math.floor(series / 10)}`,
      dataPointID: `dp${series % 10}`,
      time: BASE + Math.floor(n / 1000) * 1000,
      value: (n % 977) * 0.25,
    }
  }
  return out
}

async function benchStoreWrite(): Promise<{ rate: number; closeMs: number; lat: number[] }> {
  const store = await LibsqlTelemetryStore.open({ url: `file:${join(dir, 'write.db')}` })
  const batches = WRITE_POINTS / BATCH
  const pre = Array.from({ length: 10 }, (_, b) => writeBatch(b)) // warm-up
  for (const p of pre) await store.write(p)
  const lat: number[] = []
  const t0 = performance.now()
  for (let b = 10; b < batches + 10; b++) {
    const points = writeBatch(b)
    const w0 = performance.now()
    await store.write(points)
    lat.push(performance.now() - w0)
    if (b % 20 === 0) sampleRss()
  }
  const elapsed = performance.now() - t0
  const c0 = performance.now()
  await store.close()
  return { rate: (WRITE_POINTS / elapsed) * 1000, closeMs: performance.now() - c0, lat }
}

async function benchRawInsert(): Promise<number> {
  const client = createClient({ url: `file:${join(dir, 'raw.db')}`, concurrency: 1 })
  for (const p of ['PRAGMA journal_mode = WAL', 'PRAGMA synchronous = NORMAL'])
    await client.execute(p)
  await client.execute(
    'CREATE TABLE raw (series INTEGER NOT NULL, time INTEGER NOT NULL, value REAL NOT NULL)',
  )
  const rowSql = `INSERT INTO raw (series, time, value) VALUES ${Array.from({ length: 500 }, () => '(?, ?, ?)').join(', ')}`
  const batches = WRITE_POINTS / BATCH
  const t0 = performance.now()
  for (let b = 10; b < batches + 10; b++) {
    const pts = writeBatch(b)
    const stmts = []
    for (let s = 0; s < BATCH; s += 500) {
      const args: Array<number> = []
      for (let i = s; i < s + 500; i++)
        args.push((b * BATCH + i) % 1000, pts[i]!.time, pts[i]!.value as number)
      stmts.push({ sql: rowSql, args })
    }
    await client.batch(stmts, 'write')
  }
  const elapsed = performance.now() - t0
  client.close()
  return (WRITE_POINTS / elapsed) * 1000
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!

async function benchWeek() {
  const url = `file:${join(dir, 'week.db')}`
  const store = await LibsqlTelemetryStore.open({ url })
  const seconds = 7 * 24 * 3600
  const per = 10_000 // seconds per call: 100,000 points
  const t0 = performance.now()
  for (let s = 0; s < seconds; s += per) {
    const pts: TelemetryPoint[] = []
    for (let k = s; k < Math.min(seconds, s + per); k++)
      for (let d = 0; d < 10; d++)
        pts.push({
          tenantID: 'bench',
          productID: 'p',
          deviceID: 'week',
          dataPointID: `dp${d}`,
          time: BASE + k * 1000,
          value: Math.sin(k / 600) * 20 + d,
        })
    await store.write(pts)
    sampleRss()
  }
  const loadMs = performance.now() - t0
  const c0 = performance.now()
  await store.flush()
  await store.compact(true)
  const compactMs = performance.now() - c0
  const read = (start: number, end: number) =>
    store.readRaw({ tenantID: 'bench', deviceID: 'week', dataPointIDs: ['dp3'], start, end })
  const day: number[] = []
  for (let i = 0; i < 21; i++) {
    const r0 = performance.now()
    const r = await read(BASE + (i % 7) * DAY, BASE + ((i % 7) + 1) * DAY)
    if (i > 0) day.push(performance.now() - r0)
    if (r.get('dp3')!.time.length !== 86_400)
      throw new Error(`day read returned ${r.get('dp3')!.time.length}`)
  }
  const week: number[] = []
  for (let i = 0; i < 5; i++) {
    const r0 = performance.now()
    const r = await read(BASE, BASE + 7 * DAY)
    week.push(performance.now() - r0)
    if (r.get('dp3')!.time.length !== seconds) throw new Error('week read incomplete')
  }
  const latest: number[] = []
  for (let i = 0; i < 20; i++) {
    const r0 = performance.now()
    const l = await store.latest('bench', 'week')
    latest.push(performance.now() - r0)
    if (l.get('dp9')?.time !== BASE + (seconds - 1) * 1000) throw new Error('latest wrong')
  }
  sampleRss()
  await store.close()
  const c = createClient({ url })
  const chunks = Number((await c.execute('SELECT count(*) FROM chunks')).rows[0]![0])
  c.close()
  return {
    values: seconds * 10,
    loadMs,
    compactMs,
    day,
    week,
    latest,
    chunks,
    bytes: statSync(url.slice(5)).size,
  }
}

const ours = await benchStoreWrite()
const rawRate = await benchRawInsert()
console.log(
  `write: ${fmt(WRITE_POINTS)} points, 100 devices x 10 data points, ${BATCH} points per write() call\n`,
)
console.log(
  table(
    ['path', 'points/s', 'ratio to raw', 'notes'],
    [
      [
        'store write() (WAL row + memtable, flushes included)',
        fmt(ours.rate),
        `${Math.round((ours.rate / rawRate) * 100)}%`,
        `write() p50 ${ms(pct(ours.lat, 50))} ms, p99 ${ms(pct(ours.lat, 99))} ms, max ${ms(Math.max(...ours.lat))} ms (size flushes); close() ${ms(ours.closeMs)} ms`,
      ],
      [
        'raw libSQL multi-row INSERT (500 rows/stmt, 10 stmts/tx)',
        fmt(rawRate),
        '100%',
        'plain (series, time, value) table, no index',
      ],
    ],
  ),
)
const w = await benchWeek()
console.log(
  `\nweek: ${fmt(w.values)} values (1 device x 10 data points x 7 days at 1 Hz), ${w.chunks} chunk rows, file ${fmt(w.bytes / 2 ** 20)} MiB\n`,
)
console.log(
  table(
    ['measure', 'p50 ms', 'p99 ms', 'notes'],
    [
      [
        'load through write(), 100,000-point calls',
        ms(w.loadMs),
        '',
        `${fmt((w.values / w.loadMs) * 1000)} points/s`,
      ],
      ['flush + compact(all)', ms(w.compactMs), '', ''],
      [
        'readRaw 1 data point x 1 day (86,400 values), 20 runs',
        ms(pct(w.day, 50)),
        ms(pct(w.day, 99)),
        'goal < 150 ms',
      ],
      [
        'readRaw 1 data point x 7 days (604,800 values), 5 runs',
        ms(pct(w.week, 50)),
        ms(pct(w.week, 99)),
        '',
      ],
      ['latest() of 10 data points, 20 runs', ms(pct(w.latest, 50)), ms(pct(w.latest, 99)), ''],
    ],
  ),
)
console.log(`\npeak RSS ${fmt(peakRss / 2 ** 20)} MiB`)
rmSync(dir, { recursive: true, force: true })
process.exit(0)
