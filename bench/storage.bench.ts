/**
 * Storage benchmark (issue 21), `npm run bench -- storage`: what the embedded telemetry store costs on disk and
 * how fast it reads what it packed.
 * 1. One device x 10 data points x 30 days at 1 Hz (25,920,000 values; BENCH_STORAGE_DAYS changes the days), each
 *    a reading with two decimals that changes every second (a random walk), loaded through write() with explicit
 *    times, flushed and compacted. Bytes a value: the chunks table and its index (SQLite's dbstat), and the whole
 *    file. Then readRaw of one data point over one day (86,400 values; goal under 10 ms in the store) and over the
 *    whole period.
 */
import { createClient } from '@libsql/client'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LibsqlTelemetryStore } from '../store/libsql/telemetry.ts'
import type { TelemetryPoint } from '../store/telemetry.ts'
import { table } from './_support/runner.ts'

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
  const t0 = performance.now()
  for (let s = 0; s < seconds; s += per) {
    const pts: TelemetryPoint[] = []
    for (let k = s; k < Math.min(seconds, s + per); k++)
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
      }
    await store.write(pts)
  }
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
  const chunkBytes = await bytesOf(url, ['chunks', 'chunks_series_start'])
  const usedBytes = await bytesOf(url, ['chunks', 'chunks_series_start', 'series', 'wal', 'meta'])
  const fileBytes = statSync(url.slice('file:'.length)).size
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
      ],
    ),
  )
}

try {
  await benchMonth()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
