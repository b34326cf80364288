/**
 * original_data and metrics_data over the real service, one suite run on each telemetry store:
 * known values are written through HTTP ingest (payload form 2, with times), then read back through the API
 * in TIMEZONE Europe/Berlin (so the DST days are 23 and 25 hours long). Every expected number is computed by hand.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Client, startTestService, type TestService } from '../_support/service.ts'
import type { ErrorBody, Wire } from '../_support/wire.ts'
import { mkPoint, mkProduct, mkStream } from '../src/routes/_product-model.ts'
import { mqttBody, newDevice, type NewDevice } from '../src/routes/devices-helpers.ts'
import { basic, type Credentials } from '../src/routes/_ingest.ts'
import type { DataPoint } from '../../src/schemas/data-points.ts'
import type { IngestReply } from '../../src/schemas/ingest.ts'
import type { MetricRecord } from '../../src/schemas/metrics.ts'
import type { MetricsData, OriginalData } from '../../src/schemas/telemetry.ts'

const MIN = 60_000
const HOUR = 60 * MIN
/** 2026-11-02 00:00 in Berlin (CET, +01:00). */
const T0 = Date.parse('2026-11-01T23:00:00Z')
/** The 1 Hz day of the downsampling cases: 2026-11-05 00:00 Berlin. */
const D0 = Date.parse('2026-11-04T23:00:00Z')
const SPIKES = new Map([
  [5_000, 1000],
  [40_000, -1000],
  [80_000, 999],
])

type Row = [time: number, values: Record<string, unknown>]
type Original = Wire<typeof OriginalData>
type Metrics = Wire<typeof MetricsData>
type Refusal = ErrorBody & { errors: Record<string, string> }
/** The data points of the product of these cases. */
type PointID = 'temp' | 'hum' | 'flow-rate' | 'name' | 'on'

/**
 * An aggregate's time and value, after checking that it names what served it: raw values or a rollup tier (which
 * one depends on how far the store has rolled up by then; the rollup suites pin it).
 */
function seen<V>(data: { time: string[]; value: V[]; resolution?: string }) {
  assert.ok(
    ['raw', '1m', '1h', '1d'].includes(data.resolution ?? ''),
    `resolution ${data.resolution}`,
  )
  return { time: data.time, value: data.value }
}

export function queryCases(
  name: string,
  env: () => Promise<Record<string, string> | undefined>,
  cleanup: () => Promise<void> = async () => {},
) {
  const test = suite(`telemetry queries: ${name}`)
  let t: TestService
  let c: Client
  let product: Awaited<ReturnType<typeof mkProduct>>
  // filled by before(), each point under its dataPointID
  const points = {} as Record<PointID, Wire<typeof DataPoint>>
  let dev: NewDevice
  let dst: NewDevice
  let big: NewDevice
  let foreign: Client

  /** Sends rows as form-2 events of `device`, 10,000 messages per request. */
  async function ingest(device: Credentials, rows: Row[]) {
    const auth = new Client(t.url, basic(device))
    for (let i = 0; i < rows.length; i += 10_000) {
      const messages = rows.slice(i, i + 10_000).map(([time, values]) => ({
        topic: 'telemetry',
        payload: {
          data_type: 'event',
          data: Object.fromEntries(
            Object.entries(values).map(([k, value]) => [k, { time, value }]),
          ),
        },
      }))
      const r = await auth.post<Wire<typeof IngestReply>>('/api/v1/ingest', { messages })
      assert.is(r.status, 202, r.text)
      assert.equal(r.body.rejected, [], r.text)
    }
  }

  /** GET of `path` with `params`; `T`: the body expected. */
  const q = <T>(path: string, params: Record<string, string | number>) =>
    c.get<T>(
      `/api/v1/${path}?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString()}`,
    )

  async function metric(body: Record<string, unknown>) {
    const r = await c.post<Wire<typeof MetricRecord>>('/api/v1/metrics', {
      metricName: `m-${Math.random().toString(36).slice(2, 10)}`,
      ...body,
    })
    assert.is(r.status, 201, r.text)
    return r.body
  }

  test.before(async () => {
    const storeEnv = await env()
    t = await startTestService({ TIMEZONE: 'Europe/Berlin', ...storeEnv })
    c = t.admin
    foreign = await t.newTenant()
    product = await mkProduct(c)
    for (const [id, extra] of [
      ['temp', {}],
      ['hum', {}],
      ['flow-rate', {}],
      ['name', { pointDataType: 3 }],
      ['on', { pointDataType: 5 }],
    ] as const)
      points[id] = await mkPoint(c, product.id, id, extra)
    await mkStream(
      c,
      product.productID,
      Object.values(points).map((p) => p.id),
      { topic: 'telemetry' },
    )
    dev = await newDevice(c, mqttBody(product.productID))
    dst = await newDevice(c, mqttBody(product.productID))
    big = await newDevice(c, mqttBody(product.productID))

    // hand data, 2026-11-02 from 00:00 Berlin
    await ingest(dev, [
      [T0, { temp: 10, hum: 2, 'flow-rate': 1, name: 'a' }],
      [T0 + 30 * MIN, { temp: 20, hum: 4, on: true }],
      [T0 + 60 * MIN, { temp: 30, name: 'b' }],
      [T0 + 90 * MIN, { hum: 8 }],
      [T0 + 150 * MIN, { temp: -5, hum: 1, 'flow-rate': 3 }],
    ])
    // a value of 1 every 30 minutes around both DST changes of 2026
    const dstRows: Row[] = []
    for (const [from, to] of [
      ['2026-03-28T20:00:00Z', '2026-03-30T02:00:00Z'],
      ['2026-10-24T19:00:00Z', '2026-10-26T03:00:00Z'],
    ] as const)
      for (let time = Date.parse(from); time < Date.parse(to); time += 30 * MIN)
        dstRows.push([time, { temp: 1 }])
    await ingest(dst, dstRows)
    // a day at 1 Hz with three spikes
    const rows: Row[] = []
    for (let i = 0; i < 86_400; i++) rows.push([D0 + i * 1000, { temp: SPIKES.get(i) ?? i % 100 }])
    await ingest(big, rows)
  })

  test.after(async () => {
    await t?.close()
    await cleanup()
  })

  const day = { startTime: '2026-11-02 00:00:00', endTime: '2026-11-02 02:59:59' }
  /** The device's temp values over `day`, at local times: raw, and as 30-minute windows too. */
  const temps = {
    time: [
      '2026-11-02 00:00:00',
      '2026-11-02 00:30:00',
      '2026-11-02 01:00:00',
      '2026-11-02 02:30:00',
    ],
    value: [10, 20, 30, -5],
  }

  test('original_data :: every data point of the product, local times ascending, time and value of equal length', async () => {
    const r = await q<Original>('original_data', { deviceID: dev.deviceID, ...day })
    assert.is(r.status, 200, r.text)
    const by = Object.fromEntries(r.body.map((e) => [e.dataPointID, e]))
    assert.equal(Object.keys(by).sort(), ['flow-rate', 'hum', 'name', 'on', 'temp'])
    assert.equal(by.temp!.originalData, { ...temps, resolution: 'raw' })
    assert.equal(by.name!.originalData, {
      time: ['2026-11-02 00:00:00', '2026-11-02 01:00:00'],
      value: ['a', 'b'],
      resolution: 'raw',
    })
    assert.equal(by.on!.originalData, {
      time: ['2026-11-02 00:30:00'],
      value: [true],
      resolution: 'raw',
    })
    assert.is(by.temp!.dataPointIntID, points.temp.id)
    assert.is(by.temp!.dataPointName, points.temp.dataPointName)
  })

  test('original_data :: dataPointID narrows; endTime is inclusive; metricType is ignored; epoch times work', async () => {
    const r = await q<Original>('original_data', {
      deviceID: dev.deviceID,
      dataPointID: 'hum,flow-rate',
      startTime: String(T0 / 1000),
      endTime: '2026-11-02 01:30:00',
      metricType: 2,
    })
    assert.is(r.status, 200, r.text)
    assert.equal(
      r.body.map((e) => [e.dataPointID, e.originalData.value]),
      [
        ['hum', [2, 4, 8]],
        ['flow-rate', [1]],
      ],
    )
  })

  test('original_data :: an empty range gives empty arrays, not an error', async () => {
    const r = await q<Original>('original_data', {
      deviceID: dev.deviceID,
      startTime: '2020-01-01 00:00:00',
      endTime: '2020-01-02 00:00:00',
    })
    assert.is(r.status, 200, r.text)
    assert.is(r.body.length, 5)
    for (const e of r.body) assert.equal(e.originalData, { time: [], value: [], resolution: 'raw' })
    const m = await q<Metrics>('metrics_data', {
      deviceID: dev.deviceID,
      startTime: '2020-01-01 00:00:00',
      endTime: '2020-01-02 00:00:00',
    })
    assert.is(m.status, 200, m.text)
    for (const e of m.body) assert.equal(seen(e.metricData), { time: [], value: [] })
  })

  test('original_data :: a day at 1 Hz whole (86,400 values); maxPoints=1000 keeps every spike', async () => {
    const whole = await q<Original>('original_data', {
      deviceID: big.deviceID,
      dataPointID: 'temp',
      startTime: '2026-11-05 00:00:00',
      endTime: '2026-11-05 23:59:59',
    })
    assert.is(whole.status, 200, whole.text.slice(0, 300))
    assert.is(whole.body[0]!.originalData.value.length, 86_400)
    assert.is(whole.body[0]!.originalData.time.length, 86_400)
    const r = await q<Original>('original_data', {
      deviceID: big.deviceID,
      dataPointID: 'temp',
      startTime: '2026-11-05 00:00:00',
      endTime: '2026-11-05 23:59:59',
      maxPoints: 1000,
    })
    assert.is(r.status, 200, r.text.slice(0, 300))
    const { time, value } = r.body[0]!.originalData
    assert.ok(value.length <= 1000 && value.length >= 900, `${value.length} values`)
    assert.is(time.length, value.length)
    for (const spike of [1000, -1000, 999]) assert.ok(value.includes(spike), `spike ${spike} kept`)
    assert.ok(value.includes(0) && value.includes(99), 'the ordinary extremes too')
    assert.equal([...time].sort(), time, 'ascending')
    assert.is(time[value.indexOf(1000)], '2026-11-05 01:23:20', 'the spike keeps its time')
    const few = await q<Original>('original_data', {
      deviceID: dev.deviceID,
      dataPointID: 'temp',
      ...day,
      maxPoints: 1000,
    })
    assert.equal(
      few.body[0]!.originalData.value,
      [10, 20, 30, -5],
      'fewer values than maxPoints come back whole',
    )
  })

  test('original_data :: CSV and NDJSON stream every row, beyond the JSON limit', async () => {
    const config = t.svc.deps.config
    const before = config.QUERY_MAX_POINTS
    config.QUERY_MAX_POINTS = 50_000
    try {
      const params = {
        deviceID: big.deviceID,
        startTime: '2026-11-05 00:00:00',
        endTime: '2026-11-05 23:59:59',
      }
      const refused = await q<Refusal>('original_data', params)
      assert.is(refused.status, 400, refused.text.slice(0, 300))
      assert.is(refused.body.errorCode, 'PARAMETER_INVALID')
      assert.match(refused.body.errors.startTime!, /86400 values.*maxPoints.*format=csv/)
      const csv = await q('original_data', { ...params, format: 'csv' })
      assert.is(csv.status, 200)
      assert.match(csv.headers.get('content-type')!, /^text\/csv/)
      assert.is(
        csv.headers.get('content-disposition'),
        `attachment; filename="${big.deviceID}-original-data.csv"`,
      )
      const lines = csv.text.trimEnd().split('\r\n')
      assert.is(lines.length, 86_401)
      assert.is(lines[0], 'dataPointIntID,dataPointID,time,timestamp,value')
      assert.is(lines[1], `${points.temp.id},temp,2026-11-05 00:00:00,${D0},0`)
      assert.is(lines[5001], `${points.temp.id},temp,2026-11-05 01:23:20,${D0 + 5_000_000},1000`)
      const nd = await q('original_data', { ...params, format: 'ndjson' })
      assert.is(nd.status, 200)
      const rows = nd.text.trimEnd().split('\n')
      assert.is(rows.length, 86_400)
      assert.equal(JSON.parse(rows[86_399]!), {
        dataPointIntID: points.temp.id,
        dataPointID: 'temp',
        time: '2026-11-05 23:59:59',
        timestamp: D0 + 86_399_000,
        value: 99,
      })
      const decades = await q('original_data', {
        deviceID: dev.deviceID,
        dataPointID: 'temp',
        startTime: '1970-01-02 00:00:00',
        endTime: '2099-12-31 23:59:59',
        format: 'csv',
      })
      assert.is(
        decades.text.trimEnd().split('\r\n').length,
        5,
        'a 130-year export reads only where the values are',
      )
      const mixed = await q('original_data', { deviceID: dev.deviceID, ...day, format: 'csv' })
      assert.ok(
        mixed.text.includes(`${points.name.id},name,2026-11-02 01:00:00,${T0 + HOUR},b\r\n`),
        mixed.text,
      )
      assert.ok(
        mixed.text.includes(`${points.on.id},on,2026-11-02 00:30:00,${T0 + 30 * MIN},true\r\n`),
        mixed.text,
      )
    } finally {
      config.QUERY_MAX_POINTS = before
    }
  })

  test('metrics_data :: formula metrics at aligned times, dp("...") for ids with a dash, value = own point', async () => {
    const product2 = product
    const m1 = await metric({ dataPointIntID: points.temp.id, expressions: 'temp * hum' })
    const m2 = await metric({
      dataPointIntID: points.temp.id,
      expressions: 'dp("flow-rate") + value',
    })
    assert.is(m1.metricType, 1, 'metricType 1 when expressions is given')
    const r = await q<Metrics>('metrics_data', { deviceID: dev.deviceID, ...day, metricType: 1 })
    assert.is(r.status, 200, r.text)
    const by = new Map(r.body.map((m) => [m.id, m]))
    assert.equal(by.get(m1.id)!.metricData, {
      time: ['2026-11-02 00:00:00', '2026-11-02 00:30:00', '2026-11-02 02:30:00'],
      value: [20, 80, -5],
      resolution: 'raw',
    })
    assert.equal(by.get(m2.id)!.metricData, {
      time: ['2026-11-02 00:00:00', '2026-11-02 02:30:00'],
      value: [11, -2],
      resolution: 'raw',
    })
    assert.ok(r.body.every((m) => m.metricType === 1))
    assert.is(by.get(m1.id)!.metricName, m1.metricName, 'the metric record fields')
    assert.is(by.get(m1.id)!.productID, product2.productID)
  })

  test('metrics_data :: aggregates per hourly window labelled by start, empty windows omitted, aggregateData 1 and 2', async () => {
    const fns = { 1: [20, 30, -5], 2: [10, 30, -5], 3: [15, 30, -5], 4: [30, 30, -5] } as Record<
      number,
      number[]
    >
    const ids: Record<number, number> = {}
    for (const type of [1, 2, 3, 4])
      ids[type] = (
        await metric({ dataPointIntID: points.temp.id, metricType: 2, aggregateType: type })
      ).id
    const onFormula = await metric({
      dataPointIntID: points.temp.id,
      metricType: 2,
      aggregateType: 4,
      aggregateData: 1,
      expressions: 'temp * hum',
    })
    const hum = await metric({ dataPointIntID: points.hum.id, metricType: 2, aggregateType: 1 })
    const r = await q<Metrics>('metrics_data', { deviceID: dev.deviceID, ...day, metricType: 2 })
    assert.is(r.status, 200, r.text)
    const by = new Map(r.body.map((m) => [m.id, m]))
    const hours = ['2026-11-02 00:00:00', '2026-11-02 01:00:00', '2026-11-02 02:00:00']
    for (const type of [1, 2, 3, 4])
      assert.equal(
        seen(by.get(ids[type]!)!.metricData),
        { time: hours, value: fns[type] },
        `aggregateType ${type}`,
      )
    assert.equal(
      by.get(onFormula.id)!.metricData,
      { time: [hours[0], hours[2]], value: [100, -5], resolution: 'raw', interval: '1h' },
      'sum of formula values',
    )
    assert.equal(seen(by.get(hum.id)!.metricData), { time: hours, value: [4, 8, 1] })
    assert.ok(r.body.every((m) => m.metricType === 2))
    const both = await q<Metrics>('metrics_data', { deviceID: dev.deviceID, ...day })
    assert.ok(
      both.body.some((m) => m.metricType === 1) && both.body.some((m) => m.metricType === 2),
      'both types when metricType is absent',
    )
    const half = await q<Metrics>('metrics_data', {
      deviceID: dev.deviceID,
      ...day,
      metricType: 2,
      interval: '30m',
    })
    assert.equal(seen(half.body.find((m) => m.id === ids[4])!.metricData), temps)
  })

  test("metrics_data :: a metric's own window (aggregateInterval) unless interval is asked; it never fails the others", async () => {
    const own = await metric({
      dataPointIntID: points.temp.id,
      metricType: 2,
      aggregateType: 4,
      aggregateInterval: '30m',
    })
    const ownFormula = await metric({
      dataPointIntID: points.temp.id,
      metricType: 2,
      aggregateType: 4,
      aggregateData: 1,
      expressions: 'temp * 2',
      aggregateInterval: '2h',
    })
    const plain = await metric({ dataPointIntID: points.temp.id, metricType: 2, aggregateType: 4 })
    assert.is(own.aggregateInterval, '30m')
    const r = await q<Metrics>('metrics_data', { deviceID: dev.deviceID, ...day, metricType: 2 })
    assert.is(r.status, 200, r.text)
    const by = new Map(r.body.map((m) => [m.id, m]))
    assert.equal(seen(by.get(own.id)!.metricData), temps, 'its 30-minute windows')
    assert.is(by.get(own.id)!.metricData.interval, '30m')
    assert.is(by.get(own.id)!.aggregateInterval, '30m')
    assert.equal(by.get(ownFormula.id)!.metricData, {
      time: ['2026-11-02 00:00:00', '2026-11-02 02:00:00'],
      value: [120, -10],
      resolution: 'raw',
      interval: '2h',
    })
    assert.equal(seen(by.get(plain.id)!.metricData).value, [30, 30, -5], 'the range default, 1h')
    assert.is(by.get(plain.id)!.metricData.interval, '1h')

    // interval asked: every aggregate in it
    const asked = await q<Metrics>('metrics_data', {
      deviceID: dev.deviceID,
      ...day,
      metricType: 2,
      interval: '1h',
    })
    const byAsked = new Map(asked.body.map((m) => [m.id, m]))
    assert.equal(seen(byAsked.get(own.id)!.metricData).value, [30, 30, -5])
    assert.is(byAsked.get(ownFormula.id)!.metricData.interval, '1h')

    // an own window too fine for the range fails that metric alone, saying why; the others are served
    const fine = await metric({
      dataPointIntID: points.hum.id,
      metricType: 2,
      aggregateType: 1,
      aggregateInterval: '1m',
    })
    const long = await q<Metrics>('metrics_data', {
      deviceID: dev.deviceID,
      startTime: '2026-01-01 00:00:00',
      endTime: '2026-11-02 23:59:59',
      metricType: 2,
    })
    assert.is(long.status, 200, long.text)
    const failed = long.body.find((m) => m.id === fine.id)!.metricData
    assert.equal([failed.time, failed.value], [[], []])
    assert.match(failed.error ?? '', /more than .* windows of 1m .*the metric's window/)
    assert.ok(long.body.find((m) => m.id === plain.id)!.metricData.value.length > 0)
    // a request's interval that fine is the request's error (400), also on a product with only raw aggregates (the
    // store computes those, on its own thread in the embedded store: its error crosses back as the same 400)
    const rawOnly = await mkProduct(c)
    const rawPoint = await mkPoint(c, rawOnly.id, 'level')
    await mkStream(c, rawOnly.productID, [rawPoint.id], { topic: 'telemetry' })
    const rawDevice = await newDevice(c, mqttBody(rawOnly.productID))
    await ingest(rawDevice, [[T0, { level: 1 }]])
    await metric({ dataPointIntID: rawPoint.id, metricType: 2, aggregateType: 1 })
    for (const deviceID of [dev.deviceID, rawDevice.deviceID]) {
      const tooFine = await q<ErrorBody>('metrics_data', {
        deviceID,
        startTime: '2026-01-01 00:00:00',
        endTime: '2026-11-02 23:59:59',
        metricType: 2,
        interval: '1m',
      })
      assert.is(tooFine.status, 400, tooFine.text)
      assert.equal(Object.keys(tooFine.body.errors as object), ['interval'])
    }
    // ... and asking with a wider interval serves it
    const wide = await q<Metrics>('metrics_data', {
      deviceID: dev.deviceID,
      startTime: '2026-01-01 00:00:00',
      endTime: '2026-11-02 23:59:59',
      metricType: 2,
      interval: '1d',
    })
    assert.is(wide.body.find((m) => m.id === fine.id)!.metricData.error, undefined)
    for (const id of [own.id, ownFormula.id, plain.id, fine.id])
      assert.is((await c.del(`/api/v1/metrics?ids=${id}`)).status, 204)
  })

  test('metrics_data :: day windows across DST in Europe/Berlin: 23 and 25 hour days, hourly windows of those days', async () => {
    const sum = await metric({ dataPointIntID: points.temp.id, metricType: 2, aggregateType: 4 })
    const get = async (params: Record<string, string>) => {
      const r = await q<Metrics>('metrics_data', {
        deviceID: dst.deviceID,
        metricType: 2,
        ...params,
      })
      assert.is(r.status, 200, r.text)
      return seen(r.body.find((m) => m.id === sum.id)!.metricData)
    }
    for (const [date, hours] of [
      ['2026-03-29', 23],
      ['2026-10-25', 25],
    ] as const) {
      assert.equal(
        await get({ startTime: `${date} 00:00:00`, endTime: `${date} 23:59:59`, interval: '1d' }),
        { time: [`${date} 00:00:00`], value: [hours * 2] },
      )
      const hourly = await get({
        startTime: `${date} 00:00:00`,
        endTime: `${date} 23:59:59`,
        interval: '1h',
      })
      assert.is(
        hourly.time.length,
        hours === 23 ? 23 : 24,
        'local hours (the repeated 02:00 is one window)',
      )
      assert.is(
        hourly.value.reduce((a: number, b: number) => a + b, 0),
        hours * 2,
      )
      if (hours === 25) assert.is(hourly.value[hourly.time.indexOf(`${date} 02:00:00`)], 4)
      else assert.not.ok(hourly.time.includes(`${date} 02:00:00`), 'the skipped hour has no window')
    }
    const days = await get({ startTime: '2026-03-28 21:00:00', endTime: '2026-03-30 02:59:59' })
    assert.equal(
      days,
      {
        time: [
          '2026-03-28 18:00:00',
          '2026-03-29 00:00:00',
          '2026-03-29 06:00:00',
          '2026-03-29 12:00:00',
          '2026-03-29 18:00:00',
          '2026-03-30 00:00:00',
        ],
        value: [6, 10, 12, 12, 12, 6],
      },
      'a span over a day defaults to 6 h windows, labelled by their local start',
    )
  })

  test('metrics_data :: default windows per time_unit (1m for an hour, 1h for a day)', async () => {
    const now = Date.now()
    const fresh = await newDevice(c, mqttBody(product.productID))
    await ingest(fresh, [
      [now - 150_000, { temp: 1 }],
      [now - 90_000, { temp: 2 }],
      [now - 80_000, { temp: 3 }],
    ])
    const sum = await metric({ dataPointIntID: points.temp.id, metricType: 2, aggregateType: 4 })
    const r = await q<Metrics>('metrics_data', {
      deviceID: fresh.deviceID,
      metricType: 2,
      time_unit: 'hour',
    })
    assert.is(r.status, 200, r.text)
    const data = r.body.find((m) => m.id === sum.id)!.metricData
    assert.is(
      data.value.reduce((a: number, b: number) => a + b, 0),
      6,
    )
    assert.ok(
      data.time.every((s: string) => s.endsWith(':00')),
      'minute windows',
    )
    assert.ok(data.value.length >= 2 && data.value.length <= 3)
    const d = await q<Metrics>('metrics_data', {
      deviceID: fresh.deviceID,
      metricType: 2,
      time_unit: 'day',
    })
    const dayData = d.body.find((m) => m.id === sum.id)!.metricData
    assert.ok(
      dayData.time.every((s: string) => s.endsWith(':00:00')),
      'hour windows',
    )
    const o = await q<Original>('original_data', {
      deviceID: fresh.deviceID,
      dataPointID: 'temp',
      time_unit: 'week',
    })
    assert.equal(o.body[0]!.originalData.value, [1, 2, 3])
  })

  test('bad ranges and parameters :: 400 PARAMETER_INVALID naming the parameter', async () => {
    const cases: Array<[string, Record<string, string | number>, string]> = [
      ['original_data', { deviceID: dev.deviceID, time_unit: 'year' }, 'time_unit'],
      [
        'original_data',
        {
          deviceID: dev.deviceID,
          startTime: '2026-11-03 00:00:00',
          endTime: '2026-11-02 00:00:00',
        },
        'startTime',
      ],
      ['original_data', { deviceID: dev.deviceID, startTime: 'yesterday' }, 'startTime'],
      ['original_data', { deviceID: dev.deviceID, endTime: '2026-13-01 00:00:00' }, 'endTime'],
      ['original_data', { deviceID: 'no-such-device' }, 'deviceID'],
      ['original_data', {}, 'deviceID'],
      ['original_data', { deviceID: dev.deviceID, dataPointID: 'temp,nope' }, 'dataPointID'],
      ['original_data', { deviceID: dev.deviceID, maxPoints: 1 }, 'maxPoints'],
      ['original_data', { deviceID: dev.deviceID, maxPoints: 'many' }, 'maxPoints'],
      ['original_data', { deviceID: dev.deviceID, format: 'xml' }, 'format'],
      ['metrics_data', { deviceID: dev.deviceID, interval: '5x' }, 'interval'],
      [
        'metrics_data',
        {
          deviceID: dev.deviceID,
          interval: '1s',
          startTime: '2026-01-01 00:00:00',
          endTime: '2026-11-01 00:00:00',
          metricType: 2,
        },
        'interval',
      ],
      ['metrics_data', { deviceID: dev.deviceID, metricType: 3 }, 'metricType'],
      ['metrics_data', { deviceID: dev.deviceID, time_unit: 'fortnight' }, 'time_unit'],
    ]
    for (const [path, params, field] of cases) {
      const r = await q<Refusal>(path, params)
      assert.is(r.status, 400, `${path} ${JSON.stringify(params)}: ${r.text}`)
      assert.is(r.body.errorCode, 'PARAMETER_INVALID')
      assert.ok(r.body.errors[field], `${JSON.stringify(params)} names ${field}: ${r.text}`)
    }
  })

  test('hostile deviceID and dataPointID values :: a clear 400, nothing else happens', async () => {
    for (const hostile of ['x") |> drop() //', "x' OR '1'='1", 'x\nfrom(bucket:"a")', '%00', '*']) {
      const r = await q<Refusal>('original_data', { deviceID: hostile })
      assert.is(r.status, 400, r.text)
      assert.ok(r.body.errors.deviceID)
      const p = await q<Refusal>('original_data', { deviceID: dev.deviceID, dataPointID: hostile })
      assert.is(p.status, 400, p.text)
      assert.ok(p.body.errors.dataPointID)
    }
    const still = await q<Original>('original_data', {
      deviceID: dev.deviceID,
      dataPointID: 'temp',
      ...day,
    })
    assert.equal(still.body[0]!.originalData.value, [10, 20, 30, -5])
  })

  test('tenant isolation :: another tenant cannot read the device (400 deviceID, as an unknown one)', async () => {
    for (const path of ['original_data', 'metrics_data']) {
      const r = await foreign.get<Refusal>(
        `/api/v1/${path}?deviceID=${encodeURIComponent(dev.deviceID)}&startTime=2026-11-02%2000:00:00`,
      )
      assert.is(r.status, 400, r.text)
      assert.is(r.body.errors.deviceID, 'no such device')
    }
  })

  test('query timeout :: a query slower than QUERY_TIMEOUT_MS answers 503, the service stays up', async () => {
    const config = t.svc.deps.config
    const before = config.QUERY_TIMEOUT_MS
    const formula = await metric({
      dataPointIntID: points.temp.id,
      expressions: 'temp * 2 + sqrt(abs(temp))',
    })
    config.QUERY_TIMEOUT_MS = 1
    try {
      // 90 day-slices of reads and 86,400 formula evaluations: far more than 1 ms
      const params = {
        deviceID: big.deviceID,
        metricType: 1,
        startTime: '2026-08-10 00:00:00',
        endTime: '2026-11-06 00:00:00',
        maxPoints: 100,
      }
      const r = await q<Refusal>('metrics_data', params)
      assert.is(r.status, 503, r.text.slice(0, 300))
      assert.is(r.body.errorCode, 'SERVICE_UNAVAILABLE')
      assert.match(r.body.message!, /QUERY_TIMEOUT_MS/)
      assert.is(r.headers.get('retry-after'), '5')
      config.QUERY_TIMEOUT_MS = before
      const ok = await q<Metrics>('metrics_data', params)
      assert.is(ok.status, 200, ok.text.slice(0, 300))
      const data = ok.body.find((m) => m.id === formula.id)!.metricData
      assert.ok(data.value.length > 0 && data.value.length <= 100)
      assert.ok(
        data.value.includes(2000 + Math.sqrt(1000)),
        'the spike survives downsampling of formula values',
      )
    } finally {
      config.QUERY_TIMEOUT_MS = before
    }
  })

  test.run()
}
