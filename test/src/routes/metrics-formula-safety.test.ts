/**
 * Formulas that pass a syntax check but fail at evaluation: refused when a metric or an alert rule is written,
 * and, when one is stored anyway, answered empty with its error in metrics_data instead of failing the whole answer.
 */
import * as assert from 'uvu/assert'
import { Client, type TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import type { Wire } from '../../_support/wire.ts'
import type { DataPoint } from '../../../src/schemas/data-points.ts'
import type { MetricsData } from '../../../src/schemas/telemetry.ts'
import { assertError, mkPoint, mkProduct, mkStream } from './_product-model.ts'
import { mqttBody, newDevice, type NewDevice } from './devices-helpers.ts'
import { basic } from './_ingest.ts'
import { ruleBody, type AlertWorld } from './_alerts.ts'

/** 2026-11-02 00:00 UTC. */
const T0 = Date.parse('2026-11-02T00:00:00Z')
const MIN = 60_000
const day = { startTime: '2026-11-02 00:00:00', endTime: '2026-11-02 23:59:59' }

let t: TestService
let product: { id: number; productID: string; productName: string }
let temp: Wire<typeof DataPoint>
let dev: NewDevice

const safety = serviceSuite('formula safety: metrics and alert rules', async (svc) => {
  t = svc
  product = await mkProduct(t.admin)
  temp = await mkPoint(t.admin, product.id, 'temp')
  const hum = await mkPoint(t.admin, product.id, 'hum')
  await mkStream(t.admin, product.productID, [temp.id, hum.id], { topic: 'telemetry' })
  dev = await newDevice(t.admin, mqttBody(product.productID))
  const auth = new Client(t.url, basic(dev))
  const messages = [10, 20].map((value, i) => ({
    topic: 'telemetry',
    payload: { data_type: 'event', data: { temp: { time: T0 + i * MIN, value } } },
  }))
  const r = await auth.post('/api/v1/ingest', { messages })
  assert.is(r.status, 202, r.text)
  assert.equal(r.body.rejected, [], r.text)
})

const metric = (expressions: string) =>
  t.admin.post('/api/v1/metrics', {
    metricName: `m-${Math.random().toString(36).slice(2, 10)}`,
    dataPointIntID: temp.id,
    expressions,
  })

/** Formulas that parse and name only known data points but call a function wrongly. */
const WRONG_CALLS = [
  'pow(temp)',
  'atan2(temp)',
  'sqrt(temp, 1)',
  'round(temp, -1)',
  'round(temp, 1e9)',
  'round(temp, 1.5)',
  'round(temp, temp)',
  'floor(temp, 16)',
  'abs()',
  'mod(temp)',
  'log(temp, 2, 3)',
  'min()',
  'cbrt(temp, true)',
]

safety(
  'metric create with a wrong function call :: 422 FORM_INVALID errors.expressions',
  async () => {
    for (const expressions of WRONG_CALLS) {
      const r = await metric(expressions)
      assertError(r, 422, 'FORM_INVALID', ['expressions'])
      assert.type(r.body.errors.expressions, 'string', expressions)
    }
  },
)

safety('metric edit to a wrong function call :: 422 FORM_INVALID errors.expressions', async () => {
  const c = await metric('round(temp, 2)')
  assert.is(c.status, 201, c.text)
  const r = await t.admin.put(`/api/v1/metrics/${c.body.id}`, { expressions: 'pow(temp)' })
  assertError(r, 422, 'FORM_INVALID', ['expressions'])
})

safety('metric create with right calls :: 201', async () => {
  for (const expressions of [
    'pow(temp, 2)',
    'atan2(temp, 1)',
    'round(temp)',
    'round(temp, 15)',
    'log(temp, 2)',
    'min(temp, 1, 2)',
    'hypot(temp)',
  ]) {
    const r = await metric(expressions)
    assert.is(r.status, 201, `${expressions}: ${r.text}`)
  }
})

safety('alert rule with a wrong function call :: 422 FORM_INVALID errors.condition', async () => {
  const w = { product } as unknown as AlertWorld
  for (const condition of ['pow(temp) > 1', 'round(temp, -1) > 1', 'sqrt(temp, 1) > 1']) {
    const r = await t.admin.post('/api/v1/alert_rules', ruleBody(w, { condition }))
    assertError(r, 422, 'FORM_INVALID', ['condition'])
  }
})

safety('data point ids of object machinery :: 422 FORM_INVALID errors.dataPointID', async () => {
  for (const dataPointID of ['__proto__', 'constructor', 'prototype']) {
    const r = await t.admin.post('/api/v1/data_points', {
      dataPointName: dataPointID,
      dataPointID,
      productIntID: product.id,
      pointDataType: 1,
      dataTransType: 1,
    })
    assertError(r, 422, 'FORM_INVALID', ['dataPointID'])
  }
})

safety(
  'a stored formula that fails :: metrics_data 200, that metric empty with metricData.error, the others served',
  async () => {
    const good = await metric('temp * 2')
    assert.is(good.status, 201, good.text)
    const bad = await metric('temp + 1')
    assert.is(bad.status, 201, bad.text)
    const sql = t.db
    await sql.run('UPDATE metrics SET expressions = ? WHERE id = ?', ['pow(temp)', bad.body.id])
    const query = new URLSearchParams({ deviceID: dev.deviceID, ...day, metricType: '1' })
    const r = await t.admin.get<Wire<typeof MetricsData>>(
      `/api/v1/metrics_data?${query.toString()}`,
    )
    assert.is(r.status, 200, r.text)
    const by = new Map<number, Wire<typeof MetricsData>[number]>(r.body.map((m) => [m.id, m]))
    assert.equal(by.get(good.body.id)?.metricData, {
      time: ['2026-11-02 00:00:00', '2026-11-02 00:01:00'],
      value: [20, 40],
      resolution: 'raw',
    })
    const failed = by.get(bad.body.id)?.metricData
    assert.equal({ time: failed?.time, value: failed?.value }, { time: [], value: [] })
    assert.type(failed?.error, 'string')
    assert.match(failed!.error!, /pow/)
    assert.is(by.get(good.body.id)?.metricData.error, undefined)
  },
)

safety.run()
