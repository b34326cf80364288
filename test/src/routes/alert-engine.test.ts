import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestService, type TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { AlertRule, AlertRuleTestResult } from '../../../src/schemas/alert-rules.ts'
import type { CurrentAlert, HistoryAlert } from '../../../src/schemas/alerts.ts'
import { formatTime } from '../../../src/kernel/time.ts'
import { connectDevice, end, fullTopic } from '../../ingest/_mqtt.ts'
import { mkPoint, mkProduct, mkStream } from './_product-model.ts'
import { mqttBody, newDevice } from './devices-helpers.ts'
import {
  alertWorld,
  clock,
  recordEvents,
  ruleBody,
  uplink,
  type AlertWorld,
  type Devices,
} from './_alerts.ts'

const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/

let t: TestService
let w: AlertWorld<Devices<8>>
let seen: ReturnType<typeof recordEvents>

const newRule = async (extra: object) => {
  const r = await t.admin.post<Wire<typeof AlertRule>>('/api/v1/alert_rules', ruleBody(w, extra))
  assert.is(r.status, 201, r.text)
  return r.body
}
const currentOf = async (q: string) =>
  (await t.admin.get<Page<Wire<typeof CurrentAlert>>>(`/api/v1/current_alerts${q}`)).body
const historyOf = async (q: string) =>
  (await t.admin.get<Page<Wire<typeof HistoryAlert>>>(`/api/v1/history_alerts${q}`)).body
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const engine = serviceSuite(
  'alert engine: rules over committed uplinks',
  async (svc) => {
    t = svc
    w = await alertWorld(t.admin, 8)
    seen = recordEvents(t)
  },
  { INGEST_LINGER_MS: '2' },
  { now: clock.now },
)

engine(
  'raise, repeat, clear by condition :: alertTimes 1 then 2 (raised once), history with endTime',
  async () => {
    const d = w.devices[0]
    const rule = await newRule({
      ruleName: 'Hot',
      deviceIntIDs: [d.id],
      alertContent: '{deviceName} at {value:temp}',
    })
    await uplink(t, d, { temp: 90, hum: 10 })
    let cur = await currentOf(`?ruleID=${rule.id}`)
    assert.is(cur.meta.count, 1)
    const a = cur.items[0]!
    assert.equal(
      [a.alertName, a.alertSeverity, a.alertTimes, a.alertDetail, a.deviceID, a.ruleID],
      ['Hot', 1, 1, { temp: 90 }, d.deviceID, rule.id],
    )
    assert.is(a.alertContent, `${d.deviceName} at 90`)
    assert.match(a.startTime!, TIME)
    await uplink(t, d, { temp: 95 })
    cur = await currentOf(`?ruleID=${rule.id}`)
    assert.equal(
      [cur.meta.count, cur.items[0]!.alertTimes, cur.items[0]!.alertDetail],
      [1, 2, { temp: 95 }],
    )
    await uplink(t, d, { hum: 50 })
    assert.is((await currentOf(`?ruleID=${rule.id}`)).items[0]!.alertTimes, 2, 'no temp, no change')
    await uplink(t, d, { temp: 50 })
    assert.is((await currentOf(`?ruleID=${rule.id}`)).meta.count, 0)
    const h = await historyOf(`?ruleID=${rule.id}`)
    assert.equal([h.meta.count, h.items[0]!.id, h.items[0]!.alertTimes], [1, a.id, 2])
    assert.match(h.items[0]!.endTime!, TIME)
    const mine = seen.filter((s) => s.e.ruleID === rule.id)
    assert.equal(
      mine.map((s) => [s.name, s.e.alertTimes, s.e.reason ?? null]),
      [
        ['alert.raised', 1, null],
        ['alert.cleared', 2, 'condition'],
      ],
    )
  },
)

engine('two data points and a clear condition :: uses the latest value of each', async () => {
  const d = w.devices[1]
  const rule = await newRule({
    condition: 'temp > 80 and hum < 20',
    clearCondition: 'temp < 60',
    deviceIntIDs: [d.id],
  })
  await uplink(t, d, { hum: 10 })
  await uplink(t, d, { temp: 85 })
  assert.equal((await currentOf(`?ruleID=${rule.id}`)).items[0]!.alertDetail, { temp: 85, hum: 10 })
  await uplink(t, d, { temp: 70 })
  assert.is((await currentOf(`?ruleID=${rule.id}`)).meta.count, 1, '70 is not below 60')
  await uplink(t, d, { temp: 59 })
  assert.is((await currentOf(`?ruleID=${rule.id}`)).meta.count, 0)
})

engine(
  'ack, then handle by hand :: ackAt/ackUser kept open; DELETE moves it (reason handled)',
  async () => {
    const d = w.devices[2]
    const rule = await newRule({ deviceIntIDs: [d.id] })
    await uplink(t, d, { temp: 99 })
    const a = (await currentOf(`?ruleID=${rule.id}`)).items[0]!
    const ack = await t.admin.post<Wire<typeof CurrentAlert>>(`/api/v1/current_alerts/${a.id}/ack`)
    assert.is(ack.status, 200, ack.text)
    assert.equal([ack.body.id, ack.body.ackUser], [a.id, 'admin'])
    assert.match(ack.body.ackAt!, TIME)
    assert.is((await currentOf(`?ruleID=${rule.id}`)).items[0]!.ackUser, 'admin')
    const viewer = await t.userWithRole('viewer')
    assert.is((await viewer.post(`/api/v1/current_alerts/${a.id}/ack`)).status, 403)
    assert.is((await t.admin.post('/api/v1/current_alerts/999999/ack')).status, 404)
    const other = await t.newTenant()
    assert.is((await other.post(`/api/v1/current_alerts/${a.id}/ack`)).status, 404)
    assert.is((await t.admin.del(`/api/v1/current_alerts?ids=${a.id}`)).status, 204)
    const h = (await historyOf(`?ruleID=${rule.id}`)).items[0]!
    assert.equal([h.id, h.ackUser], [a.id, 'admin'])
    const events = seen.filter((s) => s.e.alertID === a.id).map((s) => [s.name, s.e.reason ?? null])
    assert.equal(events, [
      ['alert.raised', null],
      ['alert.acked', null],
      ['alert.cleared', 'handled'],
    ])
    assert.is(seen.find((s) => s.name === 'alert.acked')!.e.ackUser, 'admin')
  },
)

engine('rule disabled, rule deleted :: open alerts move to history (reason rule)', async () => {
  const d = w.devices[3]
  const r1 = await newRule({ deviceIntIDs: [d.id] })
  const r2 = await newRule({ condition: 'hum > 5', deviceIntIDs: [d.id] })
  await uplink(t, d, { temp: 90, hum: 10 })
  assert.is((await currentOf(`?deviceID=${d.deviceID}`)).meta.count, 2)
  assert.is((await t.admin.put(`/api/v1/alert_rules/${r1.id}`, { enable: 0 })).status, 200)
  assert.is((await t.admin.del(`/api/v1/alert_rules?ids=${r2.id}`)).status, 204)
  assert.is((await currentOf(`?deviceID=${d.deviceID}`)).meta.count, 0)
  assert.is((await historyOf(`?deviceID=${d.deviceID}`)).meta.count, 2)
  const reasons = seen.filter((s) => s.name === 'alert.cleared' && s.e.deviceID === d.deviceID)
  assert.equal(
    reasons.map((s) => s.e.reason),
    ['rule', 'rule'],
  )
  await uplink(t, d, { temp: 91 })
  assert.is((await currentOf(`?deviceID=${d.deviceID}`)).meta.count, 0, 'disabled: no new alert')
})

engine(
  'forSeconds and clearForSeconds :: raised after the wait, cleared after the other',
  async () => {
    const d = w.devices[4]
    const rule = await newRule({ deviceIntIDs: [d.id], forSeconds: 60, clearForSeconds: 30 })
    await uplink(t, d, { temp: 90 })
    await t.svc.deps.services.alertEngine.tick()
    assert.is((await currentOf(`?ruleID=${rule.id}`)).meta.count, 0, 'pending')
    clock.offset += 30_000
    await uplink(t, d, { temp: 91 })
    assert.is((await currentOf(`?ruleID=${rule.id}`)).meta.count, 0, 'still pending')
    clock.offset += 31_000
    await uplink(t, d, { temp: 92 })
    let cur = await currentOf(`?ruleID=${rule.id}`)
    assert.equal([cur.meta.count, cur.items[0]!.alertTimes], [1, 1])
    await uplink(t, d, { temp: 10 })
    assert.is((await currentOf(`?ruleID=${rule.id}`)).meta.count, 1, 'clear pending')
    await uplink(t, d, { temp: 95 })
    await uplink(t, d, { temp: 10 })
    clock.offset += 20_000
    await t.svc.deps.services.alertEngine.tick()
    assert.is((await currentOf(`?ruleID=${rule.id}`)).meta.count, 1, 'the wait restarted at 95')
    clock.offset += 11_000
    await t.svc.deps.services.alertEngine.tick()
    assert.is((await currentOf(`?ruleID=${rule.id}`)).meta.count, 0, 'cleared by the timer')
    cur = await historyOf(`?ruleID=${rule.id}`)
    assert.equal([cur.meta.count, cur.items[0]!.alertTimes], [1, 2])
  },
)

engine(
  'no data :: raised once after noDataSeconds (content with its deviceName), cleared by the next uplink',
  async () => {
    const d = w.devices[5]
    const rule = await newRule({
      condition: null,
      noDataSeconds: 10,
      deviceIntIDs: [d.id],
      alertContent: '{deviceName} is silent',
    })
    const svc = t.svc.deps.services.alertEngine
    await svc.tick()
    assert.is((await currentOf(`?ruleID=${rule.id}`)).meta.count, 0)
    clock.offset += 11_000
    await Promise.all([svc.tick(), svc.tick(), svc.tick()])
    const cur = await currentOf(`?ruleID=${rule.id}`)
    assert.equal(
      [cur.meta.count, cur.items[0]!.alertTimes, cur.items[0]!.deviceID],
      [1, 1, d.deviceID],
    )
    assert.is(cur.items[0]!.alertContent, `${d.deviceName} is silent`)
    const raised = seen.filter((s) => s.name === 'alert.raised' && s.e.ruleID === rule.id)
    assert.equal(
      raised.map((s) => [s.e.alertContent, s.e.deviceName, s.e.ruleName]),
      [[`${d.deviceName} is silent`, d.deviceName, rule.ruleName]],
      'three ticks at once: one event',
    )
    await uplink(t, d, { hum: 1 })
    assert.is((await currentOf(`?ruleID=${rule.id}`)).meta.count, 0)
    await svc.tick()
    assert.is((await currentOf(`?ruleID=${rule.id}`)).meta.count, 0, 'it sent something just now')
  },
)

engine(
  'built-in limits and faults :: severity 2, named after the point; back in range clears',
  async () => {
    const d = w.devices[6]
    await uplink(t, d, { temp: 150 })
    let cur = await currentOf(`?deviceID=${d.deviceID}`)
    assert.equal(
      cur.items.map((a) => [a.alertName, a.alertSeverity, a.ruleID, a.alertDetail]),
      [[w.temp.dataPointName, 2, null, { temp: 150 }]],
    )
    await uplink(t, d, { temp: -5 })
    cur = await currentOf(`?deviceID=${d.deviceID}`)
    assert.equal([cur.meta.count, cur.items[0]!.alertTimes], [1, 2])
    await uplink(t, d, { temp: 50, err: 'E1' })
    cur = await currentOf(`?deviceID=${d.deviceID}`)
    assert.equal(
      cur.items.map((a) => [a.alertName, a.alertSeverity, a.alertDetail]),
      [[w.err.dataPointName, 2, { err: 'E1' }]],
    )
    await uplink(t, d, { err: 'OK' })
    assert.is((await currentOf(`?deviceID=${d.deviceID}`)).meta.count, 0)
    assert.is((await historyOf(`?deviceID=${d.deviceID}`)).meta.count, 2)
  },
)

engine('50 concurrent uplinks :: one current alert counted 50 times', async () => {
  const d = w.devices[7]
  const rule = await newRule({ deviceIntIDs: [d.id] })
  await Promise.all(Array.from({ length: 50 }, (_, i) => uplink(t, d, { temp: 81 + (i % 10) })))
  await t.svc.deps.services.alertEngine.idle()
  const cur = await currentOf(`?ruleID=${rule.id}`)
  assert.equal([cur.meta.count, cur.items[0]!.alertTimes], [1, 50])
})

engine(
  'a product without rules :: its uplinks skip evaluation; a rule added later sees the values sent meanwhile',
  async () => {
    // no limits, no fault values: nothing to evaluate until a rule comes
    const product = await mkProduct(t.admin)
    const temp = await mkPoint(t.admin, product.id, 'temp')
    const hum = await mkPoint(t.admin, product.id, 'hum')
    await mkStream(t.admin, product.productID, [temp.id, hum.id], { topic: 'telemetry' })
    const d = await newDevice(t.admin, mqttBody(product.productID))
    const quiet = { product }
    const rule = await t.admin.post<Wire<typeof AlertRule>>(
      '/api/v1/alert_rules',
      ruleBody(quiet, { condition: 'temp > 80 and hum < 20', deviceIntIDs: [d.id] }),
    )
    assert.is(rule.status, 201, rule.text)
    await uplink(t, d, { hum: 10, temp: 50 }) // the engine now holds hum 10 as the device's latest
    assert.is((await t.admin.del(`/api/v1/alert_rules?ids=${rule.body.id}`)).status, 204)
    // without rules: hum changes while nothing is evaluated (many uplinks, none waits in the queue)
    for (let i = 0; i < 20; i++) await uplink(t, d, { hum: 30 + i })
    assert.equal(t.svc.deps.services.alertEngine.backlog(), { queued: 0, dropped: 0 })
    // a rule again: hum is 49 now, not the 10 the engine saw before the rules went away
    const again = await t.admin.post<Wire<typeof AlertRule>>(
      '/api/v1/alert_rules',
      ruleBody(quiet, { condition: 'temp > 80 and hum < 20', deviceIntIDs: [d.id] }),
    )
    assert.is(again.status, 201, again.text)
    await uplink(t, d, { temp: 90 })
    assert.is((await currentOf(`?ruleID=${again.body.id}`)).meta.count, 0, 'hum 49 is not below 20')
    await uplink(t, d, { hum: 5 })
    assert.equal((await currentOf(`?ruleID=${again.body.id}`)).items[0]?.alertDetail, {
      temp: 90,
      hum: 5,
    })
  },
)

engine('uplink over MQTT :: the broker path raises the same alert', async () => {
  const d = w.devices[1]
  const rule = await newRule({ condition: 'hum > 70', deviceIntIDs: [d.id] })
  const c = await connectDevice(t, d)
  await c.publishAsync(await fullTopic(t, d, 'telemetry'), JSON.stringify({ hum: 75 }), { qos: 1 })
  await t.svc.deps.services.alertEngine.idle()
  const cur = await currentOf(`?ruleID=${rule.id}`)
  assert.equal([cur.meta.count, cur.items[0]!.alertDetail], [1, { hum: 75 }])
  end(c)
})

engine('list filters :: ruleID, alertSeverity, deviceID, deviceName_like', async () => {
  const d = w.devices[7]
  assert.is((await currentOf(`?deviceName_like=${d.deviceName.slice(2)}`)).meta.count, 1)
  assert.is((await currentOf(`?alertSeverity=1&deviceID=${d.deviceID}`)).meta.count, 1)
  assert.is((await currentOf(`?alertSeverity=2&deviceID=${d.deviceID}`)).meta.count, 0)
  const bad = await t.admin.get('/api/v1/current_alerts?ruleID=x')
  assert.equal([bad.status, Object.keys(bad.body.errors)], [400, ['ruleID']])
})

engine('dry run :: alerts of stored values in a range; writes nothing', async () => {
  const d = w.devices[0]
  const start = new Date(Date.now() - 3_600_000)
  for (const temp of [90, 95, 50, 85]) {
    await uplink(t, d, { temp })
    await sleep(5)
  }
  const fmt = (ms: number) => formatTime(ms, t.svc.deps.config.TIMEZONE)!
  const before = (await t.admin.get('/api/v1/alert_rules')).body.meta.count
  const alertsBefore = (await currentOf('')).meta.count
  const r = await t.admin.post<Wire<typeof AlertRuleTestResult>>('/api/v1/alert_rules/test', {
    ...ruleBody(w, { condition: 'temp > 80' }),
    deviceID: d.deviceID,
    startTime: fmt(start.getTime()),
    endTime: fmt(Date.now() + 60_000),
  })
  assert.is(r.status, 200, r.text)
  // the first suite test left 90, 95, 50 (then hum only); then 90, 95, 50, 85 here
  const tail = r.body.slice(-2)
  assert.equal(
    tail.map((a) => [a.alertTimes, a.endTime === null]),
    [
      [2, false],
      [1, true],
    ],
  )
  assert.match(tail[0]!.startTime!, TIME)
  assert.is((await t.admin.get('/api/v1/alert_rules')).body.meta.count, before)
  assert.is((await currentOf('')).meta.count, alertsBefore)
  const hostile = await t.admin.post('/api/v1/alert_rules/test', {
    ...ruleBody(w, { condition: 'import("fs")' }),
    deviceID: d.deviceID,
    startTime: fmt(start.getTime()),
    endTime: 'yesterday',
  })
  assert.equal(
    [hostile.status, Object.keys(hostile.body.errors).sort()],
    [422, ['condition', 'endTime']],
  )
})

engine.run()

const restart = suite('alert engine: a restart in the pending state')
restart('forSeconds wait survives stop and start on the same DATA_DIR', async () => {
  const first = await startTestService({ INGEST_LINGER_MS: '2' }, { now: clock.now })
  const world = await alertWorld(first.admin, 1)
  const d = world.devices[0]
  const rule = (await first.admin.post('/api/v1/alert_rules', ruleBody(world, { forSeconds: 60 })))
    .body
  await uplink(first, d, { temp: 90 })
  await first.svc.close()
  void first.db.close()
  clock.offset += 61_000
  const second = await startTestService(
    { INGEST_LINGER_MS: '2', DATA_DIR: first.dir },
    { now: clock.now },
  )
  try {
    await second.svc.deps.services.alertEngine.tick()
    const cur = (await second.admin.get(`/api/v1/current_alerts?ruleID=${rule.id}`)).body
    assert.equal([cur.meta.count, cur.items[0]?.alertTimes], [1, 1])
  } finally {
    await second.close()
  }
})
restart.run()
