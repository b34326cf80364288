import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Client, startTestService, type TestService } from '../../_support/service.ts'
import { connectDevice, end, fullTopic, until } from '../../ingest/_mqtt.ts'
import { alertWorld, ruleBody, uplink, type AlertWorld, type Devices } from './_alerts.ts'
import { mqttBody, newDevice, newGateway, newProduct } from './devices-helpers.ts'
import type { MqttClient } from 'mqtt'

const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/

let t: TestService
let other: Client
let a: AlertWorld<Devices<3>>
let b: AlertWorld<Devices<1>>
const clients: MqttClient[] = []

const overviewOf = async (c: Client) => {
  const r = await c.get('/api/v1/overview')
  assert.is(r.status, 200, r.text)
  assert.match(r.body.at, TIME)
  const { at: _, ...rest } = r.body
  return rest
}
const newRule = async (c: Client, w: Pick<AlertWorld, 'product'>, extra: object) => {
  const r = await c.post('/api/v1/alert_rules', ruleBody(w, extra))
  assert.is(r.status, 201, r.text)
}

const overview = suite('GET /api/v1/overview: the tenant fleet at a glance')
overview.before(async () => {
  t = await startTestService({ INGEST_LINGER_MS: '2' })
  other = await t.newTenant()
  a = await alertWorld(t.admin, 3)
  b = await alertWorld(other, 1)
})
overview.after(async () => {
  clients.forEach(end)
  await t.close()
})

overview('a fresh tenant :: zero devices, no alert, no message', async () => {
  const fresh = await t.newTenant()
  assert.equal(await overviewOf(fresh), {
    devices: 0,
    gateways: 0,
    online: 0,
    offline: 0,
    blockedCount: 0,
    openAlerts: { total: 0, bySeverity: { 1: 0, 2: 0, 3: 0, 4: 0 } },
    messagesPerMinute: 0,
  })
})

overview('devices, gateways, blocked :: each tenant counts only its own', async () => {
  await newGateway(other, (await newProduct(other)).productID)
  await newDevice(other, mqttBody(b.product.productID, { blocked: 1 }))
  const [mine, theirs] = [await overviewOf(t.admin), await overviewOf(other)]
  assert.equal(
    [mine.devices, mine.gateways, mine.online, mine.offline, mine.blockedCount],
    [3, 0, 0, 3, 0],
  )
  assert.equal(
    [theirs.devices, theirs.gateways, theirs.online, theirs.offline, theirs.blockedCount],
    [2, 1, 0, 3, 1],
  )
})

overview(
  'a device connects over MQTT :: online in its tenant only, offline again after it left',
  async () => {
    const c = await connectDevice(t, a.devices[0])
    clients.push(c)
    const mine = await until(
      () => overviewOf(t.admin),
      (o) => o.online === 1,
    )
    assert.equal([mine.online, mine.offline], [1, 2])
    assert.equal([(await overviewOf(other)).online, (await overviewOf(other)).offline], [0, 3])
    const second = await connectDevice(t, b.devices[0])
    clients.push(second)
    assert.is(
      (
        await until(
          () => overviewOf(other),
          (o) => o.online === 1,
        )
      ).online,
      1,
    )
    end(second)
    assert.is(
      (
        await until(
          () => overviewOf(other),
          (o) => o.online === 0,
        )
      ).online,
      0,
    )
    assert.is((await overviewOf(t.admin)).online, 1)
  },
)

overview('alerts raised by rules :: open alerts by severity, per tenant', async () => {
  await newRule(t.admin, a, { condition: 'temp > 80', alertSeverity: 1 })
  await newRule(t.admin, a, { condition: 'hum > 50', alertSeverity: 3 })
  await newRule(other, b, { condition: 'temp > 80', alertSeverity: 2 })
  await uplink(t, a.devices[1], { temp: 90 })
  await uplink(t, a.devices[2], { temp: 95, hum: 60 })
  await uplink(t, b.devices[0], { temp: 99 })
  assert.equal((await overviewOf(t.admin)).openAlerts, {
    total: 3,
    bySeverity: { 1: 2, 2: 0, 3: 1, 4: 0 },
  })
  assert.equal((await overviewOf(other)).openAlerts, {
    total: 1,
    bySeverity: { 1: 0, 2: 1, 3: 0, 4: 0 },
  })
})

overview(
  'N messages published over MQTT :: messagesPerMinute counts them, per tenant',
  async () => {
    const before = [
      (await overviewOf(t.admin)).messagesPerMinute,
      (await overviewOf(other)).messagesPerMinute,
    ]
    assert.equal(before, [2, 1], 'the uplinks of the alerts case, over HTTP ingest')
    const d = a.devices[0]
    const topic = await fullTopic(t, d, 'telemetry')
    for (let i = 0; i < 7; i++)
      await clients[0]!.publishAsync(topic, JSON.stringify({ temp: i }), { qos: 1 })
    const mine = await until(
      () => overviewOf(t.admin),
      (o) => o.messagesPerMinute === 9,
    )
    assert.is(mine.messagesPerMinute, 9)
    assert.is((await overviewOf(other)).messagesPerMinute, 1)
  },
)

overview('roles :: a viewer reads its tenant overview; no token is 401', async () => {
  const viewer = await t.userWithRole('viewer')
  assert.equal(await overviewOf(viewer), await overviewOf(t.admin))
  const r = await t.anon.get('/api/v1/overview')
  assert.equal([r.status, r.body.errorCode], [401, 'AUTH_FAILED'])
})

overview.run()
