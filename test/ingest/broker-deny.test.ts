import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { MqttClient } from 'mqtt'
import type { Event } from '../../src/schemas/logs.ts'
import type { TestService } from '../_support/service.ts'
import type { Page, Wire } from '../_support/wire.ts'
import { mqttBody, newDevice, uniq } from '../src/routes/devices-helpers.ts'
import {
  closedWithin,
  connectDevice,
  end,
  fullTopic,
  sleep,
  streamDevice,
  subscribe,
  until,
} from './_mqtt.ts'
import { withService } from './_service.ts'

const NOT_AUTHORIZED_V5 = 0x87

/** A device whose product has a numeric `temp` on a stream, with publishing to that stream denied by a policy. */
async function setup(t: TestService) {
  const { product, stream, device } = await streamDevice(t)
  const other = await newDevice(t.admin, mqttBody(product.productID))
  const p = await t.admin.post('/api/v1/policies', {
    name: uniq('pol'),
    topic: stream.topic,
    access: 0,
    allow: 0,
  })
  assert.is(p.status, 201, p.text)
  const b = await t.admin.post(`/api/v1/policies/${p.body.id}/devices`, {
    devicesIntID: [device.id],
  })
  assert.is(b.status, 201, b.text)
  const tenantID = String(
    (await t.db.one('SELECT tenant_id FROM devices WHERE id = ?', [device.id]))?.tenant_id,
  )
  return { stream, device, other, tenantID }
}

/** The device's events as [topic, payload, status, reason], oldest first. */
const eventsOf = async (t: TestService, d: { deviceID: string }) =>
  (
    await t.admin.get<Page<Wire<typeof Event>>>(
      `/api/v1/device_events?deviceID=${d.deviceID}&_sort=id&_order=asc`,
    )
  ).body.items.map((e) => [e.topic, e.payload, e.status, e.reason])

const stored = async (t: TestService, tenantID: string, deviceID: string) =>
  (
    await t.svc.deps.telemetry.readRaw({
      tenantID,
      deviceID,
      dataPointIDs: ['temp'],
      start: 0,
      end: Date.now() + 60_000,
    })
  ).get('temp')?.value ?? []

/** The error of a publish (undefined when it was acknowledged as usual). */
const publishError = (c: MqttClient, topic: string, payload: string, qos: 0 | 1 | 2 = 1) =>
  c.publishAsync(topic, payload, { qos }).then(
    () => undefined,
    (e: Error & { code?: number }) => e,
  )

let t: TestService
const ignore = suite('broker: refused publishes and subscribes (ACL_DENY_ACTION=ignore)')
withService(ignore, (s) => (t = s))

ignore(
  "MQTT 3.1.1 QoS 1 to another device's topic and to a denied topic :: PUBACK, connected, rejected events, nothing stored",
  async () => {
    const s = await setup(t)
    const c = await connectDevice(t, s.device)
    const foreign = await fullTopic(t, s.other, s.stream.topic)
    assert.is(await publishError(c, foreign, '{"temp":1}'), undefined)
    assert.is(await publishError(c, s.stream.topic, '{"temp":2}'), undefined)
    assert.is(
      await publishError(c, await fullTopic(t, s.device, s.stream.topic), '{"temp":3}'),
      undefined,
    )
    assert.ok(c.connected, 'still connected')
    assert.equal(await eventsOf(t, s.device), [
      [foreign, '{"temp":1}', 0, 'not authorized'],
      [s.stream.topic, '{"temp":2}', 0, 'not authorized'],
      [s.stream.topic, '{"temp":3}', 0, 'not authorized'],
    ])
    assert.equal(await stored(t, s.tenantID, s.device.deviceID), [])
    assert.equal(await stored(t, s.tenantID, s.other.deviceID), [])
    // the connection still works: an allowed uplink goes through
    assert.is(await publishError(c, 'other/topic', '{}'), undefined)
    assert.is((await eventsOf(t, s.device)).length, 4)
    end(c)
  },
)

ignore('MQTT 3.1.1 QoS 0 and QoS 2 refused :: recorded, connected', async () => {
  const s = await setup(t)
  const c = await connectDevice(t, s.device)
  c.publish(s.stream.topic, '{"temp":0}', { qos: 0 })
  assert.is(await publishError(c, s.stream.topic, '{"temp":2}', 2), undefined)
  const events = await until(
    () => eventsOf(t, s.device),
    (e) => e.length >= 2,
  )
  assert.equal(events.map((e) => e[3]).sort(), ['not authorized', 'not authorized'])
  assert.ok(c.connected)
  end(c)
})

ignore('a refused publish :: reaches no subscriber, not even the device itself', async () => {
  const s = await setup(t)
  const c = await connectDevice(t, s.device)
  const got: string[] = []
  c.on('message', (topic) => got.push(topic))
  assert.equal(await subscribe(c, ['#']), [1])
  await publishError(c, s.stream.topic, '{"temp":1}')
  await publishError(c, 'allowed', '{}')
  await until(
    async () => got.length,
    (n) => n >= 1,
  )
  await sleep(100)
  assert.equal(got, ['allowed'])
  end(c)
})

ignore('MQTT 5 QoS 1 refused :: PUBACK reason code 0x87, connected, recorded', async () => {
  const s = await setup(t)
  const c = await connectDevice(t, s.device, { protocolVersion: 5 })
  const err = await publishError(c, s.stream.topic, '{"temp":5}')
  assert.is(err?.code, NOT_AUTHORIZED_V5)
  const foreign = await publishError(c, await fullTopic(t, s.other, 'x'), '{}')
  assert.is(foreign?.code, NOT_AUTHORIZED_V5)
  assert.ok(c.connected, 'still connected')
  assert.is(await publishError(c, 'allowed', '{}'), undefined)
  assert.equal(
    (await eventsOf(t, s.device)).map((e) => e[3]),
    ['not authorized', 'not authorized', 'no data stream for topic allowed'],
  )
  assert.equal(await stored(t, s.tenantID, s.device.deviceID), [])
  end(c)
})

ignore('refused SUBSCRIBE :: SUBACK 0x80 (3.1.1) and 0x87 (5), connection kept', async () => {
  const s = await setup(t)
  const v4 = await connectDevice(t, s.device)
  assert.equal(await subscribe(v4, ['/mqtt/#', 'ok/+']), [128, 1])
  assert.ok(v4.connected)
  end(v4)
  const v5 = await connectDevice(t, s.other, { protocolVersion: 5 })
  assert.equal(await subscribe(v5, [await fullTopic(t, s.device, '#'), 'ok/+']), [
    NOT_AUTHORIZED_V5,
    1,
  ])
  assert.ok(v5.connected)
  end(v5)
})

const disconnect = suite('broker: refused publishes with ACL_DENY_ACTION=disconnect')
let td: TestService
withService(disconnect, (s) => (td = s), { ACL_DENY_ACTION: 'disconnect' })

disconnect('MQTT 3.1.1 refused publish :: connection closed, event recorded', async () => {
  const s = await setup(td)
  const c = await connectDevice(td, s.device)
  const closed = closedWithin(c, 2000)
  c.publish(s.stream.topic, '{"temp":1}', { qos: 1 })
  assert.ok(await closed, 'closed')
  const events = await until(
    () => eventsOf(td, s.device),
    (e) => e.length >= 1,
  )
  assert.equal(events, [[s.stream.topic, '{"temp":1}', 0, 'not authorized']])
  end(c)
})

disconnect('MQTT 5 refused publish :: DISCONNECT 0x87, connection closed', async () => {
  const s = await setup(td)
  const c = await connectDevice(td, s.device, { protocolVersion: 5 })
  const reason = new Promise<number | undefined>((resolve) =>
    c.once('disconnect', (p) => resolve(p.reasonCode)),
  )
  const closed = closedWithin(c, 2000)
  c.publish(s.stream.topic, '{"temp":1}', { qos: 1 })
  assert.ok(await closed, 'closed')
  assert.is(await reason, NOT_AUTHORIZED_V5)
  end(c)
})

disconnect('allowed publish and refused subscribe :: connection kept', async () => {
  const s = await setup(td)
  const c = await connectDevice(td, s.device)
  assert.is(await publishError(c, 'fine', '{}'), undefined)
  assert.equal(await subscribe(c, ['$SYS/#']), [128])
  assert.ok(c.connected)
  end(c)
})

ignore.run()
disconnect.run()
