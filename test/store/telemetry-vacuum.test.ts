import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { createClient } from '@libsql/client'
import { LibsqlTelemetryStore, type LibsqlTelemetryOptions } from '../../store/tsdb/store.ts'
import { WorkerTelemetryStore } from '../../store/tsdb/worker/proxy.ts'
import type { TelemetryPoint, TelemetryStore } from '../../store/telemetry.ts'

const dir = mkdtempSync(join(tmpdir(), 'devicecloud-vacuum-'))
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
let files = 0
const newFile = () => join(dir, `t${++files}.db`)
const open = (file: string, o: Partial<LibsqlTelemetryOptions> = {}) =>
  LibsqlTelemetryStore.open({ url: `file:${file}`, flushIntervalMs: 0, ...o })

const HOUR = 3_600_000
const DEVICES = 10
const POINTS = 10
/** A backfill: 10 devices x 10 data points x 2,000 s (200,000 values), two-decimal values, from `start` on. */
const BACKFILL_SECONDS = 2000
/** Points a write() of the backfill carries (the ingest writer's default batch). */
const PER_WRITE = 5000
/** How long a write may wait while the store gives pages back (its steps are ~20 ms; a loaded 2-core machine). */
const WRITE_BOUND_MS = 250

async function backfill(s: TelemetryStore, start: number, seconds = BACKFILL_SECONDS) {
  let seed = 3
  const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff
  const batch: TelemetryPoint[] = []
  for (let sec = 0; sec < seconds; sec++)
    for (let d = 0; d < DEVICES; d++) {
      for (let p = 0; p < POINTS; p++)
        batch.push({
          tenantID: 't1',
          productID: 'p',
          deviceID: `d${d}`,
          dataPointID: `x${p}`,
          time: start + sec * 1000,
          value: Math.round(rand() * 10_000) / 100,
        })
      if (batch.length >= PER_WRITE) await s.write(batch.splice(0))
    }
  if (batch.length) await s.write(batch)
}

/** The file's pages as SQLite counts them (the WAL's included), from a second connection. */
async function space(file: string) {
  const c = createClient({ url: `file:${file}`, intMode: 'number' })
  try {
    const [pages, free, size, mode, wal, loose] = await c.batch(
      [
        'PRAGMA page_count',
        'PRAGMA freelist_count',
        'PRAGMA page_size',
        'PRAGMA auto_vacuum',
        'SELECT count(*) FROM wal',
        'SELECT count(*) FROM chunks WHERE pack IS NULL',
      ],
      'read',
    )
    const n = (r: typeof pages) => Number(r!.rows[0]![0])
    return {
      pages: n(pages),
      used: n(pages) - n(free),
      pageSize: n(size),
      autoVacuum: n(mode),
      walRows: n(wal),
      looseChunks: n(loose),
    }
  } finally {
    c.close()
  }
}

/** After a clean stop (the WAL checkpointed into the file): the file's bytes over its used pages' bytes. */
async function fileOverUsed(file: string) {
  const s = await space(file)
  return statSync(file).size / (s.used * s.pageSize)
}

const t = suite('telemetry store gives freed pages back')

t(
  'a backfill of 200,000 values, flushed and compacted by the background flusher :: the file settles within 2x its used pages',
  async () => {
    const file = newFile()
    const s = await open(file, { flushIntervalMs: 50 })
    await backfill(s, Date.now() - 3 * 24 * HOUR)
    let last = await space(file)
    for (const until = Date.now() + 30_000; Date.now() < until; await delay(100)) {
      last = await space(file)
      if (last.walRows === 0 && last.looseChunks === 0 && last.pages <= 2 * last.used) break
    }
    assert.is(last.walRows, 0, 'flushed')
    assert.is(last.looseChunks, 0, 'compacted')
    assert.ok(
      last.pages <= 2 * last.used,
      `${last.pages} pages for ${last.used} in use: freed pages were not given back`,
    )
    await s.close()
    const ratio = await fileOverUsed(file)
    assert.ok(ratio <= 2, `the file is ${ratio.toFixed(2)}x its used pages after a clean stop`)
  },
)

t(
  'reclaim() while writes go on :: no write waits beyond the bound; the file ends within 2x its used pages; every write reads back after reopen',
  async () => {
    const file = newFile()
    let s = await open(file)
    await backfill(s, Date.now() - 3 * 24 * HOUR)
    await s.flush()
    await s.compact(true)
    const bloated = await space(file)
    assert.ok(bloated.pages > 4 * bloated.used, `bloated first: ${bloated.pages} / ${bloated.used}`)
    let done = false
    const reclaiming = s.reclaim().finally(() => (done = true))
    const waits: number[] = []
    const live = Date.now()
    while (!done) {
      const t0 = performance.now()
      await s.write([
        {
          tenantID: 't1',
          productID: 'p',
          deviceID: 'live',
          dataPointID: 'x',
          time: live + waits.length,
          value: waits.length,
        },
      ])
      waits.push(performance.now() - t0)
      await delay(2)
    }
    const r = await reclaiming
    assert.ok(r.steps >= 2, `in steps (${r.steps}), writes in between`)
    assert.ok(r.pages >= bloated.pages - 2 * bloated.used, `${r.pages} pages given back`)
    assert.ok(waits.length >= r.steps, `${waits.length} writes while it ran`)
    const longest = Math.max(...waits)
    assert.ok(longest < WRITE_BOUND_MS, `a write waited ${longest.toFixed(1)} ms`)
    await s.close()
    const ratio = await fileOverUsed(file)
    assert.ok(ratio <= 2, `the file is ${ratio.toFixed(2)}x its used pages`)
    s = await open(file)
    const back = await s.readRaw({
      tenantID: 't1',
      deviceID: 'live',
      dataPointIDs: ['x'],
      start: live,
      end: live + waits.length,
    })
    assert.equal(
      back.get('x')!.value,
      waits.map((_, i) => i),
    )
    await s.close()
  },
)

t(
  'in its worker thread :: reclaim() crosses to the worker; with the checkpointer thread the file and its -wal shrink on disk while it is open',
  async () => {
    const file = newFile()
    const s = await WorkerTelemetryStore.open({ url: `file:${file}`, flushIntervalMs: 0 })
    await backfill(s, Date.now() - 3 * 24 * HOUR)
    await s.flush()
    await s.compact(true)
    const r = await s.reclaim()
    assert.ok(r.pages > 0, 'pages given back')
    let ratio = Infinity
    let wal = Infinity
    // a write now and then: the -wal is cut back when a write starts it over after a complete checkpoint
    for (let i = 0, until = Date.now() + 10_000; Date.now() < until; await delay(100), i++) {
      const { used, pageSize } = await space(file)
      ratio = statSync(file).size / (used * pageSize)
      wal = statSync(`${file}-wal`).size
      if (ratio <= 2 && wal <= 4 * 2 ** 20) break
      await s.write([
        { tenantID: 't1', productID: 'p', deviceID: 'live', dataPointID: 'x', time: i, value: i },
      ])
    }
    assert.ok(ratio <= 2, `the file on disk is ${ratio.toFixed(2)}x its used pages`)
    assert.ok(wal <= 4 * 2 ** 20, `the -wal file holds ${wal} bytes`)
    await s.close()
  },
)

t('retention :: deleteBefore gives the pages it freed back', async () => {
  const file = newFile()
  const s = await open(file)
  const old = Math.floor(Date.now() / HOUR) * HOUR - 10 * 24 * HOUR
  await backfill(s, old)
  await backfill(s, old + 2 * HOUR, BACKFILL_SECONDS / 4)
  await s.flush()
  await s.compact(true)
  await s.reclaim()
  const before = await space(file)
  const n = await s.deleteBefore([], old + 2 * HOUR)
  assert.is(n, DEVICES * POINTS * BACKFILL_SECONDS, 'the older backfill went')
  const after = await space(file)
  assert.ok(after.used < before.used / 2, `${after.used} of ${before.used} pages still in use`)
  assert.ok(after.pages <= 2 * after.used, `${after.pages} pages for ${after.used} in use`)
  await s.close()
})

t(
  'a file without incremental vacuum :: converted at open when small; kept as it is above vacuumAtOpenMaxBytes',
  async () => {
    for (const [limit, converted] of [
      [undefined, true],
      [0, false],
    ] as const) {
      const file = newFile()
      const c = createClient({ url: `file:${file}` })
      await c.execute('PRAGMA journal_mode = WAL') // auto_vacuum stays NONE, as in files of earlier versions
      await c.execute('CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)')
      c.close()
      let s = await open(file, { vacuumAtOpenMaxBytes: 0 })
      await backfill(s, Date.now() - 3 * 24 * HOUR)
      await s.close()
      assert.is((await space(file)).autoVacuum, 0, 'written as an earlier version would')
      const bloated = await space(file)
      assert.ok(bloated.pages > 4 * bloated.used, `bloated: ${bloated.pages} / ${bloated.used}`)
      s = await open(file, limit === undefined ? {} : { vacuumAtOpenMaxBytes: limit })
      const opened = await space(file)
      assert.is(opened.autoVacuum, converted ? 2 : 0)
      if (converted) assert.ok(opened.pages <= 2 * opened.used, `${opened.pages} / ${opened.used}`)
      else assert.is(opened.pages, bloated.pages)
      assert.is((await s.reclaim()).pages, 0)
      const n = await s.count({
        tenantID: 't1',
        deviceID: 'd3',
        dataPointIDs: ['x7'],
        start: 0,
        end: Date.now(),
      })
      assert.is(n, BACKFILL_SECONDS)
      await s.close()
    }
  },
)

t.run()
