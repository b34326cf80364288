/**
 * Storage benchmark (issue 21), `npm run bench -- storage`: what the embedded telemetry store costs on disk and
 * how fast it reads what it packed.
 * 1. One device x 10 data points x 30 days at 1 Hz (25,920,000 values; BENCH_STORAGE_DAYS changes the days), each
 *    a reading with two decimals that changes every second (a random walk), loaded through write() with explicit
 *    times, flushed and compacted. Bytes a value: the chunks table and its index (SQLite's dbstat), and the whole
 *    file. Then readRaw of one data point over one day (86,400 values; goal under 10 ms in the store) and over the
 *    whole period. The same month's uplink messages (one a second, the JSON of its 10 values) go into an event log
 *    (a metadata database), folded into blocks a day at a time as the fold job would: bytes a message of the event
 *    log, and of everything (values, rollups, event log).
 * 2. One data point x one year at 1 Hz (31,536,000 values; BENCH_STORAGE_YEAR_DAYS changes the days), loaded the
 *    same way in the zone BENCH_STORAGE_TZ (Europe/Berlin: DST days included), flushed and compacted (rollups
 *    built). Then, in the store: day windows over the year (what metrics_data asks), maxPoints=1000 over the year and
 *    maxPoints=2000 over 90 days (what original_data asks), each with what served it; and the rollups' bytes a value.
 * 3. A backfill (BENCH_STORAGE_PART=backfill): 10 devices x 10 data points x 10,000 s (1,000,000 values, a random
 *    walk each) with times of the day before, written through the store in its worker thread (as the service runs
 *    it, with its checkpointer) in writes of 5,000 points, flushed and compacted; then the free pages given back
 *    (reclaim) while a device writes a value every 2 ms. The file's bytes a value on disk and its pages in use,
 *    after compaction and after giving back, the load rate, the steps of giving back and the writes' waits.
 */
import { createClient } from '@libsql/client'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LibsqlTelemetryStore } from '../store/tsdb/store.ts'
import { openDb } from '../store/libsql/db.ts'
import { WorkerTelemetryStore } from '../store/tsdb/worker/proxy.ts'
import { setTimeout as delay } from 'node:timers/promises'
import { LogsRepo } from '../store/libsql/logs.ts'
import { EventFoldRepo } from '../store/libsql/event-fold.ts'
import type { EventInput } from '../store/types.ts'
import type { TelemetryPoint } from '../store/telemetry.ts'
import { EVENT_LOG_TABLES, VALUE_TABLES, table } from './_support/runner.ts'

const dir = mkdtempSync(join(tmpdir(), 'devicecloud-bench-storage-'))
const DAY = 86_400_000
const BASE = Date.UTC(2026, 0, 5)
const DAYS = Number(process.env.BENCH_STORAGE_DAYS ?? 30)
const POINTS = 10
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)]!

/** Bytes of the named tables and indexes in the file (dbstat). */
async function bytesOf(url: string, names: string[]): Promise<number> {
  const c = createClient({ url })
  try {
    const r = await c.execute({
      sql: `SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN (${names.map(() => '?').join(', ')})`,
      args: names,
    })
    return Number(r.rows[0]![0])
  } finally {
    c.close()
  }
}

async function benchMonth() {
  const url = `file:${join(dir, 'month.db')}`
  const store = await LibsqlTelemetryStore.open({ url })
  const seconds = DAYS * 86_400
  const per = 10_000
  // a random walk per data point, two decimals (mulberry32 for the same figures every run)
  let seed = 7
  const rand = () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), seed | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const level = Array.from({ length: POINTS }, (_, d) => 2000 + d * 100)
  const metaUrl = `file:${join(dir, 'month-meta.db')}`
  const meta = await openDb({ url: metaUrl })
  const logs = new LogsRepo(meta)
  const fold = new EventFoldRepo(meta)
  let events: EventInput[] = []
  let foldMs = 0
  /** Writes the messages so far and folds the whole tail (a day at a time, as the fold job keeps it). */
  const logEvents = async () => {
    for (let i = 0; i < events.length; i += 5000) await logs.addEvents(events.slice(i, i + 5000))
    events = []
    const f0 = performance.now()
    const boundary = await fold.boundary(Date.now() + 1)
    for (let after: number | undefined = 0; after !== undefined;)
      after = (await fold.step(boundary, after)).next
    foldMs += performance.now() - f0
  }
  const t0 = performance.now()
  for (let s = 0; s < seconds; s += per) {
    const pts: TelemetryPoint[] = []
    for (let k = s; k < Math.min(seconds, s + per); k++) {
      const payload: Record<string, number> = {}
      for (let d = 0; d < POINTS; d++) {
        let step = Math.round((rand() - 0.5) * 40)
        if (step === 0) step = 1 // changes every second
        level[d]! += step
        pts.push({
          tenantID: 'bench',
          productID: 'p',
          deviceID: 'month',
          dataPointID: `dp${d}`,
          time: BASE + k * 1000,
          value: level[d]! / 100,
        })
        payload[`dp${d}`] = level[d]! / 100
      }
      events.push({
        tenantID: 'bench',
        deviceIntID: 1,
        deviceID: 'month',
        deviceName: 'month',
        productIntID: 1,
        topic: 'telemetry',
        payload: JSON.stringify(payload),
        IP: '10.0.0.1',
        msgTime: BASE + k * 1000,
      })
    }
    await store.write(pts)
    if (events.length >= 86_400) await logEvents()
  }
  await logEvents()
  await meta.close()
  const loadMs = performance.now() - t0
  await store.flush()
  await store.compact(true)
  const read = (start: number, end: number) =>
    store.readRaw({ tenantID: 'bench', deviceID: 'month', dataPointIDs: ['dp3'], start, end })
  const day: number[] = []
  for (let i = 0; i < 21; i++) {
    const r0 = performance.now()
    const r = await read(BASE + (i % DAYS) * DAY, BASE + ((i % DAYS) + 1) * DAY)
    if (i > 0) day.push(performance.now() - r0)
    if (r.get('dp3')!.time.length !== 86_400) throw new Error('day read incomplete')
  }
  const all: number[] = []
  for (let i = 0; i < 3; i++) {
    const r0 = performance.now()
    const r = await read(BASE, BASE + DAYS * DAY)
    all.push(performance.now() - r0)
    if (r.get('dp3')!.time.length !== seconds) throw new Error('full read incomplete')
  }
  await store.close()
  const values = seconds * POINTS
  const chunkBytes = await bytesOf(url, VALUE_TABLES)
  const usedBytes = await bytesOf(url, [...VALUE_TABLES, 'series', 'wal', 'meta'])
  const fileBytes = statSync(url.slice('file:'.length)).size
  const rollupBytes = await bytesOf(url, ['rollups'])
  const eventBytes = await bytesOf(metaUrl, EVENT_LOG_TABLES)
  console.log(
    `\n${DAYS} days x ${POINTS} data points at 1 Hz: ${values.toLocaleString('en-US')} values, loaded in ${(loadMs / 1000).toFixed(1)} s\n`,
  )
  console.log(
    table(
      ['measure', 'figure', 'goal'],
      [
        ['bytes a value, chunks and their index', (chunkBytes / values).toFixed(2), 'at most 2'],
        ['bytes a value, every table and index in use', (usedBytes / values).toFixed(2), ''],
        [
          'bytes a value, the file (free pages the write-ahead rows left included)',
          (fileBytes / values).toFixed(2),
          '',
        ],
        [
          'readRaw 1 data point x 1 day (86,400 values), p50 / p99 ms',
          `${pct(day, 0.5).toFixed(1)} / ${pct(day, 0.99).toFixed(1)}`,
          'under 10 ms',
        ],
        [`readRaw 1 data point x ${DAYS} days, p50 ms`, pct(all, 0.5).toFixed(1), ''],
        [
          'bytes a message (10 values), the event log folded',
          (eventBytes / seconds).toFixed(1),
          '',
        ],
        [
          'bytes a message in all: values, rollups, event log',
          ((chunkBytes + rollupBytes + eventBytes) / seconds).toFixed(1),
          'at most 100',
        ],
        [`fold of ${seconds.toLocaleString('en-US')} messages, s`, (foldMs / 1000).toFixed(1), ''],
      ],
    ),
  )
}

/** A random walk of two decimals that changes every second (mulberry32: the same figures every run). */
function walk(seed: number, level: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), seed | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    const r = ((t ^ (t >>> 14)) >>> 0) / 4294967296
    level += Math.round((r - 0.5) * 40) || 1
    return level / 100
  }
}

async function benchYear() {
  const days = Number(process.env.BENCH_STORAGE_YEAR_DAYS ?? 365)
  const tz = process.env.BENCH_STORAGE_TZ ?? 'Europe/Berlin'
  const url = `file:${join(dir, 'year.db')}`
  const store = await LibsqlTelemetryStore.open({ url, timezone: tz })
  const start = Date.UTC(2025, 0, 1)
  const seconds = days * 86_400
  const next = walk(11, 2000)
  const t0 = performance.now()
  for (let s = 0; s < seconds; s += 100_000) {
    const pts: TelemetryPoint[] = []
    for (let k = s; k < Math.min(seconds, s + 100_000); k++)
      pts.push({
        tenantID: 'bench',
        productID: 'p',
        deviceID: 'year',
        dataPointID: 'dp',
        time: start + k * 1000,
        value: next(),
      })
    await store.write(pts)
  }
  const loadMs = performance.now() - t0
  const c0 = performance.now()
  await store.flush()
  await store.compact(true)
  const compactMs = performance.now() - c0
  const end = start + days * DAY
  const range = { tenantID: 'bench', deviceID: 'year', dataPointIDs: ['dp'], start, end }
  const timed = async (
    label: string,
    run: () => Promise<Map<string, { time: number[]; resolution?: string }>>,
  ) => {
    const ms: number[] = []
    let got: { time: number[]; resolution?: string } | undefined
    for (let i = 0; i < 23; i++) {
      const r0 = performance.now()
      got = (await run()).get('dp')
      if (i >= 3) ms.push(performance.now() - r0)
    }
    return [
      label,
      `${pct(ms, 0.5).toFixed(1)} / ${pct(ms, 0.99).toFixed(1)}`,
      `${got!.time.length} points, ${got!.resolution ?? 'raw'}`,
    ]
  }
  const rows = [
    await timed(`day windows over ${days} days (metrics_data max, interval=1d)`, () =>
      store.aggregate(range, 'max', { every: '1d', tz }),
    ),
    await timed(`maxPoints=1000 over ${days} days (original_data)`, () =>
      store.downsample(range, 1000, tz),
    ),
    await timed('maxPoints=2000 over the last 90 days (original_data)', () =>
      store.downsample({ ...range, start: end - 90 * DAY }, 2000, tz),
    ),
    await timed('hour windows over the last 7 days (metrics_data mean, interval=1h)', () =>
      store.aggregate({ ...range, start: end - 7 * DAY }, 'mean', { every: '1h', tz }),
    ),
  ]
  await store.close()
  const rollupBytes = await bytesOf(url, ['rollups'])
  const chunkBytes = await bytesOf(url, VALUE_TABLES)
  console.log(
    `\n1 data point x ${days} days at 1 Hz in ${tz}: ${seconds.toLocaleString('en-US')} values, loaded in ${(loadMs / 1000).toFixed(1)} s, flushed, compacted and rolled up in ${(compactMs / 1000).toFixed(1)} s\n`,
  )
  console.log(table(['store call', 'p50 / p99 ms', 'answer'], rows))
  console.log(
    `\nbytes a value: chunks ${(chunkBytes / seconds).toFixed(2)}, rollups ${(rollupBytes / seconds).toFixed(3)}\n`,
  )
}

/** The file's pages from a second connection (the WAL's included), and its size on disk. */
async function pagesOf(file: string) {
  const c = createClient({ url: `file:${file}`, intMode: 'number' })
  try {
    const [pages, free, size] = await c.batch(
      ['PRAGMA page_count', 'PRAGMA freelist_count', 'PRAGMA page_size'],
      'read',
    )
    const n = (r: typeof pages) => Number(r!.rows[0]![0])
    return { used: (n(pages) - n(free)) * n(size), free: n(free), disk: statSync(file).size }
  } finally {
    c.close()
  }
}

async function benchBackfill() {
  const file = join(dir, 'backfill.db')
  const store = await WorkerTelemetryStore.open({ url: `file:${file}` })
  const devices = 10
  const seconds = 10_000
  const values = devices * POINTS * seconds
  const start = Date.now() - DAY - seconds * 1000
  const walks = Array.from({ length: devices * POINTS }, (_, k) => walk(k + 1, 2000 + k * 10))
  const t0 = performance.now()
  const batch: TelemetryPoint[] = []
  for (let s = 0; s < seconds; s++)
    for (let d = 0; d < devices; d++) {
      for (let p = 0; p < POINTS; p++)
        batch.push({
          tenantID: 'bench',
          productID: 'p',
          deviceID: `d${d}`,
          dataPointID: `dp${p}`,
          time: start + s * 1000,
          value: walks[d * POINTS + p]!(),
        })
      if (batch.length >= 5000) await store.write(batch.splice(0))
    }
  await store.write(batch)
  const loadMs = performance.now() - t0
  await store.flush()
  await store.compact(true)
  await delay(1000) // the checkpointer's turns
  const compacted = await pagesOf(file)
  let done = false
  const waits: number[] = []
  const reclaiming = store.reclaim().finally(() => (done = true))
  for (let i = 0; !done; i++) {
    const w0 = performance.now()
    const live = { tenantID: 'bench', productID: 'p', deviceID: 'live', dataPointID: 'dp0' }
    await store.write([{ ...live, time: Date.now() + i, value: i }])
    waits.push(performance.now() - w0)
    await delay(2)
  }
  const r = await reclaiming
  const reclaimMs = performance.now() - t0 - loadMs
  await delay(1000)
  const given = await pagesOf(file)
  await store.close()
  const closed = statSync(file).size
  const per = (b: number) => (b / values).toFixed(2)
  console.log(
    `\nbackfill of ${values.toLocaleString('en-US')} values (${devices} devices x ${POINTS} data points x ${seconds.toLocaleString('en-US')} s) in ${(loadMs / 1000).toFixed(1)} s: ${Math.round(values / (loadMs / 1000)).toLocaleString('en-US')} values/s\n`,
  )
  console.log(
    table(
      ['bytes a value', 'flushed and compacted', 'free pages given back', 'after a clean stop'],
      [
        ['the file on disk', per(compacted.disk), per(given.disk), per(closed)],
        ['its pages in use', per(compacted.used), per(given.used), ''],
      ],
    ),
  )
  console.log(
    `\ngiven back: ${r.pages.toLocaleString('en-US')} pages in ${r.steps} steps, the longest ${r.longestStepMs.toFixed(1)} ms (${(reclaimMs / 1000).toFixed(1)} s from the load's end, flush and compaction included); ${waits.length} writes meanwhile waited p50 ${pct(waits, 0.5).toFixed(1)} ms, at most ${Math.max(...waits).toFixed(1)} ms\n`,
  )
}

try {
  const part = process.env.BENCH_STORAGE_PART
  if (part === undefined || part === 'month') await benchMonth()
  if (part === undefined || part === 'year') await benchYear()
  if (part === undefined || part === 'backfill') await benchBackfill()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
