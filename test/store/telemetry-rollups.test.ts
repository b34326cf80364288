/**
 * Rollups (store/rollups.ts, store/tsdb/rollups.ts): the planning of pieces and aligned buckets, the
 * block codec, and the embedded store answering from rollups exactly as from raw values: in zones with DST and
 * half-hour offsets, after a late write, after raw retention, after a change of zone, and through the worker.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createClient } from '@libsql/client'
import { LibsqlTelemetryStore } from '../../store/tsdb/store.ts'
import { WorkerTelemetryStore } from '../../store/tsdb/worker/proxy.ts'
import { decodeBlock, encodeBlock } from '../../store/tsdb/rollups.ts'
import { alignedBuckets, minuteStats, piecesOf, TierGrid } from '../../store/rollups.ts'
import { aggregateSorted, windowBounds } from '../../store/windows.ts'
import { downsample as downsampleRaw } from '../../store/downsample.ts'
import { tierSpans } from '../../store/rollup-reads.ts'
import type {
  AggregateFn,
  SeriesRange,
  TelemetryStore,
  TelemetryValue,
} from '../../store/telemetry.ts'

const t = suite('rollups')
const dir = mkdtempSync(join(tmpdir(), 'devicecloud-rollups-'))
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
let files = 0
const newUrl = () => `file:${join(dir, `r${++files}.db`)}`

const MIN = 60_000
const HOUR = 3_600_000
const DAY = 24 * HOUR
const at = (iso: string) => Date.parse(iso)

t(
  'piecesOf :: tiers in the middle, finer towards the edges, raw where nothing fits or hours are dirty',
  () => {
    const start = at('2026-01-01T00:00:00Z')
    const grid = new TierGrid('UTC', start - DAY, start + 10 * DAY)
    const edges = [start - 30 * MIN - 5, start + 2 * DAY + 2 * HOUR + 3 * MIN + 7]
    assert.equal(piecesOf(grid, edges, []), [
      { res: 'raw', start: start - 30 * MIN - 5, end: start - 30 * MIN },
      { res: '1m', start: start - 30 * MIN, end: start },
      { res: '1d', start, end: start + 2 * DAY },
      { res: '1h', start: start + 2 * DAY, end: start + 2 * DAY + 2 * HOUR },
      { res: '1m', start: start + 2 * DAY + 2 * HOUR, end: start + 2 * DAY + 2 * HOUR + 3 * MIN },
      { res: 'raw', start: start + 2 * DAY + 2 * HOUR + 3 * MIN, end: edges[1]! },
    ])
    // a dirty hour inside the first day: the day splits into hours around it, that hour is raw
    assert.equal(piecesOf(grid, [start, start + DAY], [start + 5 * HOUR]), [
      { res: '1h', start, end: start + 5 * HOUR },
      { res: 'raw', start: start + 5 * HOUR, end: start + 6 * HOUR },
      { res: '1h', start: start + 6 * HOUR, end: start + DAY },
    ])
    // in Asia/Kolkata (+05:30) hours start at UTC :30; a day starts at 18:30 UTC
    const k = new TierGrid('Asia/Kolkata', start - DAY, start + 3 * DAY)
    assert.equal(piecesOf(k, [start, start + DAY], []), [
      { res: '1m', start, end: start + 30 * MIN },
      { res: '1h', start: start + 30 * MIN, end: start + 23 * HOUR + 30 * MIN },
      { res: '1m', start: start + 23 * HOUR + 30 * MIN, end: start + DAY },
    ])
  },
)

t(
  'alignedBuckets :: the width rounded up to whole minutes, hours or days, aligned in the zone, at most maxPoints/2',
  () => {
    const start = at('2026-01-01T00:00:10Z')
    // 10 minutes over 1,000 points: buckets of 1.2 s, under a minute: none
    assert.is(alignedBuckets(start, start + 10 * MIN, 1000, 'UTC'), undefined)
    // a day over 100 points: 28.8 min; 29 minutes would take 51 aligned buckets: 30-minute buckets
    const a = alignedBuckets(start, start + DAY, 100, 'UTC')!
    assert.is(a.every, '30m')
    assert.is(a.bounds.length - 1, 49)
    assert.ok(a.bounds.every((b) => b % (30 * MIN) === 0))
    // 90 days over 2,000 points: 2.16 h → 3-hour buckets at local multiples of 3 h in Asia/Kolkata (UTC :30)
    const b = alignedBuckets(start, start + 90 * DAY, 2000, 'Asia/Kolkata')!
    assert.is(b.every, '3h')
    assert.ok(b.bounds.every((x) => (x + 5.5 * HOUR) % (3 * HOUR) === 0))
    // a year over 1,000 points: 17.5 h → 18-hour buckets
    assert.is(alignedBuckets(start, start + 365 * DAY, 1000, 'UTC')!.every, '18h')
    // two years over 100 points: 14.6 days → 15-day buckets
    assert.is(alignedBuckets(start, start + 730 * DAY, 100, 'UTC')!.every, '15d')
  },
)

t(
  'tierSpans :: a tier is read over the spans its pieces cover, at most 8, not from its first piece to its last',
  () => {
    const m = (start: number, end: number) => ({
      res: '1m' as const,
      start: start * MIN,
      end: end * MIN,
    })
    // a month's two edges: two reads of minute windows, not every minute between them
    assert.equal(tierSpans([m(43_000, 43_020), m(0, 30)]), [
      { from: 0, to: 30 * MIN },
      { from: 43_000 * MIN, to: 43_020 * MIN },
    ])
    // touching and overlapping pieces (several devices' pieces of one range) are one span
    assert.equal(tierSpans([m(0, 10), m(10, 20), m(5, 15), m(0, 10)]), [{ from: 0, to: 20 * MIN }])
    // twelve spans become eight, the closest joined first: the gaps after the first three are 91, 92 and 93 minutes,
    // the others 90, so the fourth to the eighth piece become one span
    const many = Array.from({ length: 12 }, (_, i) => m(i * 100 + (i < 4 ? i : 0), i * 100 + 10))
    const spans = tierSpans(many)
    assert.is(spans.length, 8)
    assert.equal(spans.slice(0, 4), [
      { from: 0, to: 10 * MIN },
      { from: 101 * MIN, to: 110 * MIN },
      { from: 202 * MIN, to: 210 * MIN },
      { from: 303 * MIN, to: 710 * MIN },
    ])
    for (const p of many)
      assert.ok(
        spans.some((s) => s.from <= p.start && p.end <= s.to),
        `${p.start} covered`,
      )
  },
)

t('block codec :: every field round-trips, whole numbers, decimals and wide floats', () => {
  const hour = at('2026-03-01T10:00:00Z')
  const time = Array.from({ length: 3600 }, (_, i) => hour + i * 1000 + (i % 7))
  for (const value of [
    time.map((_, i) => Math.round(Math.sin(i / 50) * 1000) / 100),
    time.map((_, i) => i * 1e9),
    time.map((_, i) => Math.PI * i),
    time.map((_, i) => (i % 300 === 0 ? `s${i}` : i)),
  ] as TelemetryValue[][]) {
    const stats = minuteStats(time, value)
    assert.is(stats.length, 60)
    assert.equal(decodeBlock(hour, encodeBlock(hour, stats)), stats)
  }
  const bytes = encodeBlock(
    hour,
    minuteStats(
      time,
      time.map((_, i) => Math.round(Math.sin(i / 50) * 1000) / 100),
    ),
  )
  // under 0.3 bytes a value at 1 Hz (the sums of decimals stay Float64)
  assert.ok(bytes.length < 0.3 * 3600, `${bytes.length} bytes for 60 minute windows`)
})

/** 3 days of values every 17 s around `center`, whole numbers, in one data point; a few strings in `mixed`. */
function rows(center: number) {
  const from = center - 36 * HOUR
  return Array.from({ length: Math.floor((72 * HOUR) / 17_000) }, (_, i) => {
    const v = ((i * 7919) % 2000) - 1000
    return [from + i * 17_000, v] as [number, number]
  })
}

async function load(store: TelemetryStore, center: number, device = 'd1') {
  const xs = rows(center)
  await store.write(
    xs.flatMap(([time, v], i) => [
      { tenantID: 't1', productID: 'p', deviceID: device, dataPointID: 'x', time, value: v },
      {
        tenantID: 't1',
        productID: 'p',
        deviceID: device,
        dataPointID: 'mixed',
        time,
        value: i % 400 === 0 ? `s${i}` : v,
      },
    ]),
  )
}

const FNS: AggregateFn[] = ['max', 'min', 'mean', 'sum']

/** Every aggregate and downsample of the range equals the raw reference; answers the resolutions seen. */
async function assertExact(store: TelemetryStore, r: SeriesRange, tz: string, label: string) {
  const raw = await store.readRaw(r)
  const seen = new Map<string, string>()
  for (const every of ['1m', '15m', '1h', '3h', '1d', '1mo', '90s'])
    for (const fn of FNS) {
      const got = await store.aggregate(r, fn, { every, tz })
      const bounds = windowBounds(r.start, r.end, every, tz)
      for (const dp of r.dataPointIDs) {
        const s = raw.get(dp)!
        const g = got.get(dp)!
        assert.equal(
          { time: g.time, value: g.value },
          aggregateSorted(s.time, s.value, bounds, fn),
          `${label}: ${fn} ${every} ${dp}`,
        )
        seen.set(`${every}:${dp}`, g.resolution ?? 'raw')
      }
    }
  for (const maxPoints of [6, 50, 300, 2000]) {
    const got = await store.downsample(r, maxPoints, tz)
    for (const dp of r.dataPointIDs) {
      const want = downsampleRaw(raw.get(dp)!, r.start, r.end, maxPoints, tz)
      const g = got.get(dp)!
      assert.equal(
        { time: g.time, value: g.value },
        { time: want.time, value: want.value },
        `${label}: maxPoints ${maxPoints} ${dp}`,
      )
      seen.set(`max${maxPoints}:${dp}`, g.resolution ?? 'raw')
    }
  }
  return seen
}

/** Runs `body` over a new store in `timezone` holding load()'s values around `center`; closes it after. */
async function withLoaded(
  timezone: string,
  center: number,
  body: (store: LibsqlTelemetryStore) => Promise<void>,
) {
  const store = await LibsqlTelemetryStore.open({ url: newUrl(), flushIntervalMs: 0, timezone })
  try {
    await load(store, center)
    await body(store)
  } finally {
    await store.close()
  }
}

/** The range of device d1 (tenant t1) over `dataPointIDs` from `start` to `end`. */
const d1 = (dataPointIDs: string[], start: number, end: number): SeriesRange => ({
  tenantID: 't1',
  deviceID: 'd1',
  dataPointIDs,
  start,
  end,
})

const settle = async (s: LibsqlTelemetryStore) => {
  await s.flush()
  await s.compact(true)
}

for (const [tz, center] of [
  ['Europe/Berlin', at('2026-10-25T01:00:00Z')], // the autumn change: a 25-hour day, a 2-hour window at 02:00
  ['Europe/Berlin', at('2026-03-29T01:00:00Z')], // the spring change: a 23-hour day
  ['Asia/Kolkata', at('2026-06-10T00:00:00Z')], // +05:30: hours at UTC :30
  ['UTC', at('2026-06-10T00:00:00Z')],
] as const)
  t(
    `${tz} around ${new Date(center).toISOString()} :: rollups answer every window exactly, the coarsest tier serving`,
    () =>
      withLoaded(tz, center, async (store) => {
        const r = d1(['x', 'mixed'], center - 36 * HOUR + 12_345, center + 36 * HOUR - 999)
        const fresh = await assertExact(store, r, tz, 'fresh')
        assert.is(fresh.get('1d:x'), 'raw', 'unflushed values are read raw')
        await settle(store)
        const settled = await assertExact(store, r, tz, 'settled')
        assert.is(settled.get('1d:x'), '1d')
        assert.is(settled.get('1h:x'), '1h')
        assert.is(settled.get('15m:x'), '1m')
        // 90 s windows end mid-minute every other time: too many raw pieces, read raw (exact all the same)
        assert.is(settled.get('90s:x'), 'raw')
        assert.is(settled.get('max6:x'), '1d')
        assert.is(settled.get('max50:x'), '1h')
        assert.is(settled.get('1d:mixed'), '1d')
      }),
  )

t('a late write into a rolled-up hour :: read raw at once, rolled up again by compaction', () => {
  const center = at('2026-06-10T00:00:00Z')
  return withLoaded('Asia/Kolkata', center, async (store) => {
    await settle(store)
    const r = d1(['x'], center - DAY, center + DAY)
    const late = [
      {
        tenantID: 't1',
        productID: 'p',
        deviceID: 'd1',
        dataPointID: 'x',
        time: center + 1000,
        value: 1e6,
      },
      // a rewrite of a stored time: the later write wins in rollups too
      {
        tenantID: 't1',
        productID: 'p',
        deviceID: 'd1',
        dataPointID: 'x',
        time: rows(center)[5000]![0],
        value: -1e6,
      },
    ]
    await store.write(late)
    await assertExact(store, r, 'Asia/Kolkata', 'in the memtable')
    await store.flush()
    await assertExact(store, r, 'Asia/Kolkata', 'a second chunk, not compacted')
    await store.compact(true)
    const seen = await assertExact(store, r, 'Asia/Kolkata', 'compacted')
    assert.is(seen.get('1d:x'), '1d')
    const max = await store.aggregate(r, 'max', { every: '1d', tz: 'Asia/Kolkata' })
    assert.ok(max.get('x')!.value.includes(1e6))
  })
})

t(
  'raw retention :: aggregates and downsamples still answer from rollups; rollup retention removes those',
  () => {
    const center = at('2026-06-10T00:00:00Z')
    return withLoaded('UTC', center, async (store) => {
      await settle(store)
      const r = d1(['x'], center - 36 * HOUR, center + 36 * HOUR)
      const before = new Map<string, unknown>()
      for (const fn of FNS)
        before.set(fn, (await store.aggregate(r, fn, { every: '1h', tz: 'UTC' })).get('x'))
      const chart = (await store.downsample(r, 100, 'UTC')).get('x')! // 2-hour buckets
      assert.is(chart.resolution, '1h')
      // every raw value goes
      assert.ok((await store.deleteBefore([], center + 40 * HOUR)) > 0)
      assert.equal((await store.readRaw(r)).get('x')!.time, [])
      for (const fn of FNS)
        assert.equal(
          (await store.aggregate(r, fn, { every: '1h', tz: 'UTC' })).get('x'),
          before.get(fn),
          fn,
        )
      assert.equal((await store.downsample(r, 100, 'UTC')).get('x'), chart)
      // a chart of few points where raw values are gone: from rollups too
      const few = (await store.downsample(r, 6, 'UTC')).get('x')! // 2-day buckets
      assert.is(few.resolution, '1d')
      assert.ok(few.time.length > 0 && few.time.length <= 6)
      // rollups before center + 24 h: blocks wholly older than the limit go (the day before `center` with its
      // hours and minutes); a block reaching past the limit stays whole for now
      await store.deleteBefore([], undefined, center + 24 * HOUR)
      const left = (await store.aggregate(r, 'sum', { every: '1h', tz: 'UTC' })).get('x')!
      assert.ok(
        left.time.length >= 24 && left.time[0] === center,
        JSON.stringify(left.time.slice(0, 3)),
      )
      assert.equal(
        left,
        (await store.aggregate({ ...r, start: center }, 'sum', { every: '1h', tz: 'UTC' })).get(
          'x',
        ),
      )
    })
  },
)

t('a change of TIMEZONE :: hour and day rollups are rebuilt in the new zone at open', async () => {
  const center = at('2026-06-10T00:00:00Z')
  const url = newUrl()
  let store = await LibsqlTelemetryStore.open({ url, flushIntervalMs: 0, timezone: 'UTC' })
  await load(store, center)
  await settle(store)
  await store.close()
  store = await LibsqlTelemetryStore.open({ url, flushIntervalMs: 0, timezone: 'Asia/Kolkata' })
  try {
    const r = {
      tenantID: 't1',
      deviceID: 'd1',
      dataPointIDs: ['x', 'mixed'],
      start: center - DAY,
      end: center + DAY,
    }
    const seen = await assertExact(store, r, 'Asia/Kolkata', 'rebuilt')
    assert.is(seen.get('1d:x'), '1d')
    assert.is(seen.get('1h:x'), '1h')
  } finally {
    await store.close()
  }
  const c = createClient({ url })
  const zone = await c.execute("SELECT value FROM settings WHERE key = 'rollup_zone'")
  c.close()
  assert.is(zone.rows[0]![0], 'Asia/Kolkata')
})

t('two devices, two tenants :: each answer holds only its own series', async () => {
  const center = at('2026-06-10T00:00:00Z')
  const store = await LibsqlTelemetryStore.open({ url: newUrl(), flushIntervalMs: 0 })
  try {
    await load(store, center, 'a')
    await store.write(
      rows(center).map(([time, v]) => ({
        tenantID: 't2',
        productID: 'p',
        deviceID: 'a',
        dataPointID: 'x',
        time,
        value: v + 5000,
      })),
    )
    await settle(store)
    const of = async (tenantID: string) =>
      (
        await store.aggregate(
          { tenantID, deviceID: 'a', dataPointIDs: ['x'], start: center - DAY, end: center + DAY },
          'min',
          { every: '1d', tz: 'UTC' },
        )
      ).get('x')!
    const [one, two] = [await of('t1'), await of('t2')]
    assert.is(one.resolution, '1d')
    assert.ok(one.value.every((v) => (v as number) < 4000))
    assert.ok(two.value.every((v) => (v as number) >= 4000))
  } finally {
    await store.close()
  }
})

t('through the worker thread :: rollups serve and say so', async () => {
  const center = at('2026-06-10T00:00:00Z')
  const store = await WorkerTelemetryStore.open({
    url: newUrl(),
    flushIntervalMs: 0,
    timezone: 'Europe/Berlin',
  })
  try {
    await load(store, center)
    await store.flush()
    await store.compact(true)
    const r = {
      tenantID: 't1',
      deviceID: 'd1',
      dataPointIDs: ['x'],
      start: center - DAY,
      end: center + DAY,
    }
    const seen = await assertExact(store, r, 'Europe/Berlin', 'worker')
    assert.is(seen.get('1d:x'), '1d')
  } finally {
    await store.close()
  }
})

t.run()
