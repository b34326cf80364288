/**
 * Alerts leave the service: a rule raised by a real uplink, acknowledged and handled reaches a webhook receiver as
 * signed alert.raised, alert.acked and alert.cleared deliveries.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHmac } from 'node:crypto'
import type { AlertRule } from '../../../src/schemas/alert-rules.ts'
import type { CurrentAlert } from '../../../src/schemas/alerts.ts'
import type { WebhookCreated } from '../../../src/schemas/webhooks.ts'
import { startTestService, type TestService } from '../../_support/service.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import { until } from '../../ingest/_mqtt.ts'
import { alertWorld, ruleBody, uplink, type AlertWorld } from '../routes/_alerts.ts'
import { startReceiver, type Receiver } from './_receiver.ts'

const test = suite('alerts to webhooks')
let t: TestService
let w: AlertWorld
let rx: Receiver

test.before(async () => {
  t = await startTestService()
  w = await alertWorld(t.admin, 1)
  rx = await startReceiver()
})
test.after(async () => {
  await t.close()
  await rx.close()
})

test('raise, ack, handle :: three signed deliveries in order, with the alert in data', async () => {
  const hook = await t.admin.post<Wire<typeof WebhookCreated>>('/api/v1/webhooks', {
    url: `${rx.url}/alerts`,
    events: ['alert.raised', 'alert.acked', 'alert.cleared'],
  })
  assert.is(hook.status, 201, hook.text)
  const rule = await t.admin.post<Wire<typeof AlertRule>>(
    '/api/v1/alert_rules',
    ruleBody(w, { condition: 'temp > 80' }),
  )
  assert.is(rule.status, 201, rule.text)
  const d = w.devices[0]!
  await uplink(t, d, { temp: 95 })
  const current = (
    await t.admin.get<Page<Wire<typeof CurrentAlert>>>(
      `/api/v1/current_alerts?deviceID=${d.deviceID}`,
    )
  ).body.items
  const alert = current.find((a) => a.ruleID === rule.body.id)
  assert.ok(alert, JSON.stringify(current))
  assert.is((await t.admin.post(`/api/v1/current_alerts/${alert.id}/ack`, {})).status < 300, true)
  assert.is((await t.admin.del(`/api/v1/current_alerts?ids=${alert.id}`)).status, 204)
  const got = await until(
    async () => rx.got.filter((r) => r.path === '/alerts'),
    (list) => list.length >= 3,
    15_000,
  )
  const bodies = got.map((r) => JSON.parse(r.body))
  assert.equal(
    bodies.map((b) => b.type),
    ['alert.raised', 'alert.acked', 'alert.cleared'],
  )
  for (const [i, r] of got.entries()) {
    const ts = String(r.headers['x-devicecloud-timestamp'])
    const mac = createHmac('sha256', hook.body.secret).update(`${ts}.${r.body}`).digest('hex')
    assert.is(r.headers['x-devicecloud-signature'], `sha256=${mac}`)
    assert.is(r.headers['x-devicecloud-event'], bodies[i].type)
    assert.is(bodies[i].data.alertID, alert.id)
    assert.is(bodies[i].data.deviceID, d.deviceID)
  }
  assert.is(bodies[2].data.reason, 'handled')
})

test.run()
