/**
 * Rollups through the API (docs/retention.md): two tenants' devices send two days of values over HTTP ingest; once
 * the embedded store has rolled them up (it compacts past hours within seconds), `metrics_data` and
 * `original_data` with `maxPoints` say which tier served them and give the answers computed by hand from the
 * values sent, in Asia/Kolkata (hours start at UTC :30). Each tenant sees its own values only.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Client, startTestService, type TestService } from '../_support/service.ts'
import type { ErrorBody, Wire } from '../_support/wire.ts'
import { mkPoint, mkProduct, mkStream } from '../src/routes/_product-model.ts'
import { mqttBody, newDevice, type NewDevice } from '../src/routes/devices-helpers.ts'
import type { MetricRecord } from '../../src/schemas/metrics.ts'
import type { MetricsData, OriginalData } from '../../src/schemas/telemetry.ts'
import { basic } from '../src/routes/_ingest.ts'
import { alignedBuckets } from '../../store/rollups.ts'
import { windowIndex } from '../../store/windows.ts'

const MIN = 60_000
const HOUR = 60 * MIN
const DAY = 24 * HOUR
const OFFSET = 5.5 * HOUR // Asia/Kolkata, no DST
/** Local midnight three days ago, as an instant. */
const D0 = Math.floor((Date.now() + OFFSET) / DAY) * DAY - OFFSET - 3 * DAY
/** Wire time (TIMEZONE Asia/Kolkata). */
const wire = (t: number) => new Date(t + OFFSET).toISOString().slice(0, 19).replace('T', ' ')

const test = suite('rollups through the API')
let t: TestService
type Metric = Wire<typeof MetricRecord>
type Metrics = Wire<typeof MetricsData>
type Original = Wire<typeof OriginalData>
const tenants: Array<{
  c: Client
  device: NewDevice
  rows: Array<[number, number]>
  metrics: { max: Metric; sum: Metric }
}> = []

/** Values every 30 s for two days: a walk different per tenant, whole numbers (exact sums). */
const rowsOf = (seed: number): Array<[number, number]> =>
  Array.from({ length: (2 * DAY) / 30_000 }, (_, i) => [D0 + i * 30_000, ((i * seed) % 997) - 400])

async function setUp(c: Client, seed: number) {
  const product = await mkProduct(c)
  const point = await mkPoint(c, product.id, 'temp')
  await mkStream(c, product.productID, [point.id], { topic: 'telemetry' })
  const device = await newDevice(c, mqttBody(product.productID))
  const metric = async (aggregateType: number) => {
    const r = await c.post<Metric>('/api/v1/metrics', {
      metricName: `agg-${aggregateType}-${seed}`,
      dataPointIntID: point.id,
      metricType: 2,
      aggregateType,
    })
    assert.is(r.status, 201, r.text)
    return r.body
  }
  const metrics = { max: await metric(1), sum: await metric(4) }
  const rows = rowsOf(seed)
  const auth = new Client(t.url, basic(device))
  for (let i = 0; i < rows.length; i += 2_000) {
    const messages = rows.slice(i, i + 2_000).map(([time, value]) => ({
      topic: 'telemetry',
      payload: { data_type: 'event', data: { temp: { time, value } } },
    }))
    const r = await auth.post('/api/v1/ingest', { messages })
    assert.is(r.status, 202, r.text)
  }
  tenants.push({ c, device, rows, metrics })
}

/** GET of `path` with `params`; `T`: the body expected. */
const get = <T>(c: Client, path: string, params: Record<string, string | number>) =>
  c.get<T>(
    `/api/v1/${path}?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString()}`,
  )

const days = { startTime: wire(D0), endTime: wire(D0 + 2 * DAY - 1000) }

test.before(async () => {
  t = await startTestService({ TIMEZONE: 'Asia/Kolkata' })
  await setUp(t.admin, 7919)
  await setUp(await t.newTenant(), 104_729)
})

test.after(async () => {
  await t?.close()
})

test('metrics_data over two settled days :: hour windows from the 1h tier, equal to the values sent', async () => {
  for (const { c, device, rows, metrics } of tenants) {
    const params = { deviceID: device.deviceID, metricType: 2, interval: '1h', ...days }
    let body!: Metrics
    // the store rolls past hours up within seconds of storing them, a few devices' hours at a time (reads answer
    // in between: an hour window is served by the 1h tier once that hour is rolled up, a day window by the 1d tier
    // once every hour of the day is): wait for the last
    for (let i = 0; i < 100; i++) {
      const r = await get<Metrics>(c, 'metrics_data', params)
      assert.is(r.status, 200, r.text)
      body = r.body
      const day = await get<Metrics>(c, 'metrics_data', { ...params, interval: '1d' })
      assert.is(day.status, 200, day.text)
      if (
        body.every((m) => m.metricData.resolution === '1h') &&
        day.body.every((m) => m.metricData.resolution === '1d')
      )
        break
      await new Promise((f) => setTimeout(f, 200))
    }
    const hours = new Map<number, number[]>()
    for (const [time, v] of rows) {
      const h = Math.floor((time + OFFSET) / HOUR) * HOUR - OFFSET
      hours.set(h, [...(hours.get(h) ?? []), v])
    }
    const starts = [...hours.keys()].sort((a, b) => a - b)
    const by = new Map<number, Metrics[number]['metricData']>(body.map((m) => [m.id, m.metricData]))
    assert.equal(by.get(metrics.max.id), {
      time: starts.map(wire),
      value: starts.map((h) => Math.max(...hours.get(h)!)),
      resolution: '1h',
      interval: '1h',
    })
    assert.equal(by.get(metrics.sum.id), {
      time: starts.map(wire),
      value: starts.map((h) => hours.get(h)!.reduce((a, b) => a + b, 0)),
      resolution: '1h',
      interval: '1h',
    })
    // day windows: the 1d tier
    const daily = await get<Metrics>(c, 'metrics_data', { ...params, interval: '1d' })
    const sums = daily.body.find((m) => m.id === metrics.sum.id)!.metricData
    assert.equal(sums, {
      time: [wire(D0), wire(D0 + DAY)],
      value: [0, 1].map((d) =>
        rows
          .filter(([time]) => time >= D0 + d * DAY && time < D0 + (d + 1) * DAY)
          .reduce((a, [, v]) => a + v, 0),
      ),
      resolution: '1d',
      interval: '1d',
    })
  }
})

test('original_data with maxPoints over two days :: whole-minute buckets from the 1m tier, each its true min and max', async () => {
  for (const { c, device, rows } of tenants) {
    const r = await get<Original>(c, 'original_data', {
      deviceID: device.deviceID,
      maxPoints: 200,
      ...days,
    })
    assert.is(r.status, 200, r.text)
    const data = r.body[0]!.originalData
    assert.is(data.resolution, '1m')
    // 2 days / 100 buckets = 28.8 min, rounded up to the fewest whole minutes that fit 100 buckets aligned to the
    // epoch (29 or 30, by where the range falls), two points each
    const { bounds } = alignedBuckets(D0, D0 + 2 * DAY, 200, 'Asia/Kolkata')!
    assert.ok(bounds.length - 1 >= 96 && bounds.length - 1 <= 100, String(bounds.length))
    const buckets = new Map<number, Array<[number, number]>>()
    for (const row of rows) {
      const b = windowIndex(bounds, row[0])
      buckets.set(b, [...(buckets.get(b) ?? []), row])
    }
    const want: Array<[number, number]> = []
    for (const list of buckets.values()) {
      let lo = list[0]!
      let hi = list[0]!
      for (const row of list) {
        if (row[1] < lo[1]) lo = row
        if (row[1] > hi[1]) hi = row
      }
      want.push(...(lo[0] <= hi[0] ? [lo, hi] : [hi, lo]))
    }
    assert.equal(
      { time: data.time, value: data.value },
      { time: want.map(([time]) => wire(time)), value: want.map(([, v]) => v) },
    )
  }
})

test('another tenant :: its device is no such device, its own answers are its own', async () => {
  const [mine, theirs] = tenants
  const r = await get<ErrorBody & { errors: Record<string, string> }>(mine!.c, 'metrics_data', {
    deviceID: theirs!.device.deviceID,
    ...days,
  })
  assert.is(r.status, 400, r.text)
  assert.ok(r.body.errors.deviceID, r.text)
  const a = await get<Original>(mine!.c, 'original_data', {
    deviceID: mine!.device.deviceID,
    maxPoints: 20,
    ...days,
  })
  const b = await get<Original>(theirs!.c, 'original_data', {
    deviceID: theirs!.device.deviceID,
    maxPoints: 20,
    ...days,
  })
  assert.not.equal(a.body[0]!.originalData.value, b.body[0]!.originalData.value)
})

test.run()
