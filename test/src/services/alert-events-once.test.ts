/**
 * Alert events once per transition, written with the change: two tenants, two devices and two rules in tenant A,
 * two webhooks in A (one subscribed to alert.raised only, one to every alert type) and one in B. Five matching
 * uplinks open one alert (alertTimes 5) and announce it once; a second ack changes nothing and emits nothing; the
 * payload names the rule and the device and carries the severity label and the rendered content. Before the fix
 * every matching uplink emitted alert.raised and every ack alert.acked.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { AlertRule } from '../../../src/schemas/alert-rules.ts'
import type { CurrentAlert } from '../../../src/schemas/alerts.ts'
import { startTestService, type Client, type TestService } from '../../_support/service.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import { until } from '../../ingest/_mqtt.ts'
import { tenantOf } from '../../_support/fixtures.ts'
import { alertWorld, recordEvents, ruleBody, uplink, type AlertWorld } from '../routes/_alerts.ts'
import { startReceiver, type Receiver } from './_receiver.ts'

const TOKEN = 'alert-metrics-token'
const test = suite('alert events once per transition')
let t: TestService
let rx: Receiver
let b: Client & { tenantID: string }
let tenantA: string
let wa: AlertWorld
let wb: AlertWorld
let seen: ReturnType<typeof recordEvents>
let hot: Wire<typeof AlertRule>
let humid: Wire<typeof AlertRule>

const ALL = ['alert.raised', 'alert.cleared', 'alert.acked']

test.before(async () => {
  t = await startTestService({ METRICS_TOKEN: TOKEN })
  rx = await startReceiver()
  tenantA = await tenantOf(t)
  b = await t.newTenant()
  wa = await alertWorld(t.admin, 2)
  wb = await alertWorld(b, 1)
  const hook = async (c: Client, path: string, events: string[]) => {
    const r = await c.post('/api/v1/webhooks', { url: `${rx.url}/${path}`, events })
    assert.is(r.status, 201, r.text)
  }
  await hook(t.admin, 'a-raised', ['alert.raised'])
  await hook(t.admin, 'a-all', ALL)
  await hook(b, 'b-all', ALL)
  const rule = async (c: Client, w: AlertWorld, extra: object) => {
    const r = await c.post<Wire<typeof AlertRule>>('/api/v1/alert_rules', ruleBody(w, extra))
    assert.is(r.status, 201, r.text)
    return r.body
  }
  hot = await rule(t.admin, wa, {
    ruleName: 'hot',
    condition: 'temp > 80',
    alertSeverity: 1,
    alertContent: '{deviceName} is hot: {value:temp}',
    deviceIntIDs: [wa.devices[0]!.id],
  })
  humid = await rule(t.admin, wa, {
    ruleName: 'humid',
    condition: 'hum > 50',
    alertSeverity: 3,
    deviceIntIDs: [wa.devices[1]!.id],
  })
  await rule(b, wb, { ruleName: 'hot', condition: 'temp > 80', alertSeverity: 1 })
  seen = recordEvents(t)
})
test.after(async () => {
  await t.close()
  await rx.close()
})

/** The bodies received on one path, parsed. */
const bodies = (path: string) =>
  rx.got.filter((r) => r.path === `/${path}`).map((r) => JSON.parse(r.body))

/** Outbox rows of one tenant and type (what webhooks and the live stream carry). */
async function outbox(tenant: string, type: string) {
  const rows = await t.db.all(
    'SELECT data FROM outbox_events WHERE tenant_id = ? AND type = ? ORDER BY id',
    [tenant, type],
  )
  return rows.map((r) => JSON.parse(String(r.data)))
}

const currentOf = async (c: Client, q: string) =>
  (await c.get<Page<Wire<typeof CurrentAlert>>>(`/api/v1/current_alerts${q}`)).body

test('five matching uplinks :: one alert (alertTimes 5), one alert.raised per webhook', async () => {
  const d0 = wa.devices[0]!
  const d1 = wa.devices[1]!
  for (let i = 0; i < 5; i++) await uplink(t, d0, { temp: 90 + i })
  await uplink(t, d1, { hum: 60 })
  await uplink(t, d1, { hum: 70 })
  await uplink(t, wb.devices[0]!, { temp: 99 })
  const a = (await currentOf(t.admin, `?ruleID=${hot.id}`)).items
  assert.equal(
    a.map((x) => [x.deviceID, x.alertTimes, x.alertDetail, x.alertContent]),
    [[d0.deviceID, 5, { temp: 94 }, `${d0.deviceName} is hot: 94`]],
  )
  assert.is((await currentOf(t.admin, `?ruleID=${humid.id}`)).items[0]!.alertTimes, 2)
  const raised = await outbox(tenantA, 'alert.raised')
  assert.equal(
    raised.map((e) => [e.ruleName, e.deviceID, e.alertTimes]),
    [
      ['hot', d0.deviceID, 1],
      ['humid', d1.deviceID, 1],
    ],
  )
  assert.equal(raised[0], {
    alertID: a[0]!.id,
    ruleID: hot.id,
    ruleName: 'hot',
    alertName: 'hot',
    alertSeverity: 1,
    alertSeverityLabel: 'Urgent',
    deviceIntID: d0.id,
    deviceID: d0.deviceID,
    deviceName: d0.deviceName,
    alertContent: `${d0.deviceName} is hot: 90`,
    alertTimes: 1,
    alertDetail: { temp: 90 },
    startTime: raised[0].startTime,
    at: raised[0].at,
  })
  assert.is(raised[1].alertSeverityLabel, 'Minor')
  assert.is(typeof raised[0].at, 'number')
  await until(
    async () => [bodies('a-raised').length, bodies('a-all').length, bodies('b-all').length],
    ([r, all, b]) => r! >= 2 && all! >= 2 && b! >= 1,
    15_000,
  )
  for (const path of ['a-raised', 'a-all']) {
    const got = bodies(path)
    assert.equal(
      got.map((x) => [x.type, x.tenantID, x.data.ruleName, x.data.deviceName]).sort(),
      [
        ['alert.raised', tenantA, 'hot', d0.deviceName],
        ['alert.raised', tenantA, 'humid', d1.deviceName],
      ],
      path,
    )
  }
  const mine = bodies('b-all')
  assert.equal(
    mine.map((x) => [x.type, x.tenantID, x.data.deviceID]),
    [['alert.raised', b.tenantID, wb.devices[0]!.deviceID]],
  )
  assert.is(seen.filter((s) => s.name === 'alert.raised').length, 3, 'bus: one per opening')
  const scrape = await t.anon.get('/metrics', { authorization: `Bearer ${TOKEN}` })
  assert.match(scrape.text, /devicecloud_alert_transitions_total\{transition="raised"\} 3\n/)
})

test('ack twice, then handle :: one alert.acked (the first ack kept), one alert.cleared', async () => {
  const a = (await currentOf(t.admin, `?ruleID=${hot.id}`)).items[0]!
  const other = await t.userWithRole('admin')
  const first = await t.admin.post<Wire<typeof CurrentAlert>>(`/api/v1/current_alerts/${a.id}/ack`)
  assert.is(first.status, 200, first.text)
  const second = await other.post<Wire<typeof CurrentAlert>>(`/api/v1/current_alerts/${a.id}/ack`)
  assert.is(second.status, 200, second.text)
  assert.equal(
    [second.body.ackUser, second.body.ackAt, second.body.updateAt],
    [first.body.ackUser, first.body.ackAt, first.body.updateAt],
  )
  assert.is(first.body.ackUser, 'admin')
  assert.is((await t.admin.del(`/api/v1/current_alerts?ids=${a.id}`)).status, 204)
  const acked = await outbox(tenantA, 'alert.acked')
  assert.equal(
    acked.map((e) => [e.alertID, e.ackUser, e.ruleName, e.deviceName, e.alertTimes]),
    [[a.id, 'admin', 'hot', wa.devices[0]!.deviceName, 5]],
  )
  const cleared = await outbox(tenantA, 'alert.cleared')
  assert.equal(
    cleared.map((e) => [e.alertID, e.reason, e.alertContent]),
    [[a.id, 'handled', `${wa.devices[0]!.deviceName} is hot: 94`]],
  )
  await until(
    async () => bodies('a-all').length,
    (n) => n >= 4,
    15_000,
  )
  assert.equal(
    bodies('a-all').map((x) => x.type),
    ['alert.raised', 'alert.raised', 'alert.acked', 'alert.cleared'],
  )
  assert.equal(
    bodies('a-raised').map((x) => x.type),
    ['alert.raised', 'alert.raised'],
  )
  assert.is(bodies('b-all').length, 1, "B's webhook gets none of A's alerts")
  const names = seen.filter((s) => s.e.alertID === a.id).map((s) => s.name)
  assert.equal(names, ['alert.raised', 'alert.acked', 'alert.cleared'])
})

test('clear condition, rule disabled :: one alert.cleared each (reasons condition, rule)', async () => {
  const d1 = wa.devices[1]!
  const open = (await currentOf(t.admin, `?ruleID=${humid.id}`)).items[0]!
  await uplink(t, d1, { hum: 10 })
  await uplink(t, d1, { hum: 5 })
  assert.is((await currentOf(t.admin, `?ruleID=${humid.id}`)).meta.count, 0)
  await uplink(t, d1, { hum: 80 })
  const again = (await currentOf(t.admin, `?ruleID=${humid.id}`)).items[0]!
  assert.is.not(again.id, open.id)
  const off = await t.admin.put(`/api/v1/alert_rules/${humid.id}`, { enable: 0 })
  assert.is(off.status, 200, off.text)
  const cleared = (await outbox(tenantA, 'alert.cleared')).filter((e) => e.ruleID === humid.id)
  assert.equal(
    cleared.map((e) => [e.alertID, e.reason]),
    [
      [open.id, 'condition'],
      [again.id, 'rule'],
    ],
  )
  const raised = (await outbox(tenantA, 'alert.raised')).filter((e) => e.ruleID === humid.id)
  assert.equal(
    raised.map((e) => e.alertID),
    [open.id, again.id],
  )
})

test.run()
