/**
 * Group topics over the real embedded broker: a `needAck` 0 group command is one QoS 0 publish to
 * `/{protocol}/{tenantID}/{productID}/group/{groupID}`, which the broker subscribed every connected member to
 * (delivered as `group/{groupID}`); members added or removed while connected follow at once; a device reaches
 * no group topic by itself.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { MqttClient } from 'mqtt'
import type { AedesPublishPacket, Client } from 'aedes'
import { SubscriptionForms } from '../../ingest/broker/forms.ts'
import { groupRelative, groupTopic } from '../../src/kernel/topics.ts'
import { startTestService, type TestService } from '../_support/service.ts'
import { mqttBody } from '../src/routes/devices-helpers.ts'
import {
  connect,
  connectDevice,
  credentials,
  devices,
  end,
  gotAtLeast,
  mqttUrl,
  sleep,
  subscribe,
  until,
  type DeviceCredentials,
} from './_mqtt.ts'

const test = suite('broker group topics')
let t: TestService
const clients: MqttClient[] = []

test.before(async () => {
  t = await startTestService()
})
test.after(async () => {
  for (const m of clients) end(m)
  await t.close()
})

interface Received {
  topic: string
  /** The command as the device reads it. */
  body: { data_type: string; task_id: string; data: unknown }
}

/** Connects a device and records every message it receives. */
async function online(
  d: DeviceCredentials,
  opts: { protocolVersion?: 4 | 5; clean?: boolean } = {},
) {
  const m = await connectDevice(t, d, opts)
  clients.push(m)
  const got: Received[] = []
  m.on('message', (topic, payload) => got.push({ topic, body: JSON.parse(payload.toString()) }))
  return { m, got }
}

/** A group of `members` (record ids) on the product. */
async function newGroup(productID: string, members: number[]) {
  const g = await t.admin.post('/api/v1/groups', {
    productID,
    groupName: `g-${Date.now()}-${Math.random()}`,
  })
  assert.is(g.status, 201, g.text)
  if (members.length) await addMembers(g.body.id, members)
  return g.body as { id: number; groupID: string }
}

async function addMembers(groupIntID: number, ids: number[]) {
  const r = await t.admin.post(`/api/v1/groups/${groupIntID}/devices`, { ids })
  assert.is(r.status, 201, r.text)
}

/** The full topic of a group of the device's product. */
async function groupTopicOf(d: { id: number }, groupID: string) {
  const row = await t.db.one(
    `SELECT d.tenant_id AS tenantID, p.product_id AS productID FROM devices d
     JOIN products p ON p.id = d.product_int_id WHERE d.id = ?`,
    [d.id],
  )
  return `/mqtt/${String(row!.tenantID)}/${String(row!.productID)}/group/${groupID}`
}

async function publish(groupID: string, payload: string) {
  const r = await t.admin.post('/api/v1/group_publish', { groupID, payload, needAck: 0 })
  assert.is(r.status, 201, r.text)
  return r.body as { taskID: string; statusUrl: string }
}

/** Waits out a QoS 0 delivery (there is no receipt to wait for). */
const settle = () => sleep(250)

test('needAck 0 :: each connected member gets one message on group/{groupID}; one group log, no device logs', async () => {
  const { product, devices: ds } = await devices(t, 4)
  const [a, b, c, other] = ds
  const group = await newGroup(product.productID, [a.id, b.id, c.id])
  const otherGroup = await newGroup(product.productID, [other.id])
  const ma = await online(a)
  const mb = await online(b, { protocolVersion: 5 })
  const mo = await online(other)
  await settle()

  const r = await publish(group.groupID, '{"go":1}')
  await until(
    async () => ma.got.length + mb.got.length,
    (n) => n >= 2,
  )
  await settle()
  const expected = [
    {
      topic: `group/${group.groupID}`,
      body: { data_type: 'request', task_id: r.taskID, data: { go: 1 } },
    },
  ]
  assert.equal(ma.got, expected, 'MQTT 3.1.1 member')
  assert.equal(mb.got, expected, 'MQTT 5 member')
  assert.equal(mo.got, [], 'a device of another group of the product')

  const logs = (await t.admin.get(`/api/v1/groups/${group.id}/control_logs`)).body.items
  assert.is(logs.length, 1)
  assert.equal(
    [logs[0].taskID, logs[0].payload, logs[0].publishStatus, logs[0].commandStatus],
    [r.taskID, '{"go":1}', 3, 'sent'],
  )
  for (const d of [a, b, c]) {
    const own = await t.admin.get(`/api/v1/devices/${d.id}/control_logs`)
    assert.is(own.status, 200, own.text)
    assert.equal(own.body.items, [], `no control log of ${d.deviceID}`)
  }
  const task = await t.admin.get(`/api/v1${r.statusUrl}`)
  assert.is(task.body.status, 3, task.text)

  const r2 = await publish(otherGroup.groupID, 'x')
  await gotAtLeast(mo.got, 1)
  assert.equal(mo.got, [
    {
      topic: `group/${otherGroup.groupID}`,
      body: { data_type: 'request', task_id: r2.taskID, data: 'x' },
    },
  ])
  await settle()
  assert.is(ma.got.length, 1, 'the other group’s message did not reach the first group')
})

test('membership while connected :: an added member gets the next message, a removed one no more', async () => {
  const { product, devices: ds } = await devices(t, 2)
  const [a, b] = ds
  const group = await newGroup(product.productID, [a.id])
  const ma = await online(a)
  const mb = await online(b)
  await settle()

  await addMembers(group.id, [b.id])
  await settle()
  const first = await publish(group.groupID, '1')
  await gotAtLeast(mb.got, 1)
  assert.equal(
    mb.got.map((g) => [g.topic, g.body.task_id]),
    [[`group/${group.groupID}`, first.taskID]],
  )

  const del = await t.admin.del(`/api/v1/groups/${group.id}/devices?ids=${a.id}`)
  assert.is(del.status, 204, del.text)
  await settle()
  const second = await publish(group.groupID, '2')
  await gotAtLeast(mb.got, 2)
  await settle()
  assert.equal(
    ma.got.map((g) => g.body.task_id),
    [first.taskID],
    'the removed member got only the first',
  )
  assert.equal(
    mb.got.map((g) => g.body.task_id),
    [first.taskID, second.taskID],
  )
})

test('a resumed session of a member removed while offline :: its group subscription is not restored', async () => {
  const { product, devices: ds } = await devices(t, 1)
  const [a] = ds
  const group = await newGroup(product.productID, [a.id])
  const first = await online(a, { clean: false })
  await settle()
  const before = await publish(group.groupID, 'member')
  await gotAtLeast(first.got, 1)
  assert.equal(
    first.got.map((g) => [g.topic, g.body.task_id]),
    [[`group/${group.groupID}`, before.taskID]],
  )
  first.m.end(true)
  await until(
    async () => first.m.connected,
    (c) => !c,
  )
  const del = await t.admin.del(`/api/v1/groups/${group.id}/devices?ids=${a.id}`)
  assert.is(del.status, 204, del.text)
  const again = await online(a, { clean: false })
  await settle()
  await publish(group.groupID, 'gone')
  await settle()
  assert.equal(again.got, [])
})

test('by itself :: a device cannot subscribe to or publish on a group topic (its own group’s or another’s)', async () => {
  const { product, devices: ds } = await devices(t, 2)
  const [a, b] = ds
  const own = await newGroup(product.productID, [a.id, b.id])
  const other = await newGroup(product.productID, [])
  const otherTopic = await groupTopicOf(a, other.groupID)
  const ownTopic = await groupTopicOf(a, own.groupID)
  const wildcard = ownTopic.replace(/group\/.*$/, 'group/#')
  for (const version of [4, 5] as const) {
    const r = await connect(mqttUrl(t), { ...credentials(a), protocolVersion: version })
    assert.ok(r.connack, r.error?.message)
    clients.push(r.client)
    for (const topic of [otherTopic, ownTopic, wildcard])
      assert.equal(
        await subscribe(r.client, [topic], { qos: 0 }),
        [version === 5 ? 0x87 : 0x80],
        `v${version} SUBSCRIBE ${topic}`,
      )
    r.client.end(true)
  }

  const mb = await online(b)
  const ma = await online(a)
  await settle()
  await new Promise<void>((resolve) =>
    ma.m.publish(ownTopic, '{"forged":1}', { qos: 1 }, () => resolve()),
  )
  await new Promise<void>((resolve) =>
    ma.m.publish(otherTopic, '{"forged":2}', { qos: 1 }, () => resolve()),
  )
  await settle()
  assert.equal(mb.got, [], 'a member got nothing from another member')
  assert.ok(ma.m.connected)
})

test('a device named "group" :: refused at create (its prefix would hold the group topics)', async () => {
  const { product } = await devices(t, 0)
  const r = await t.admin.post('/api/v1/devices', {
    ...mqttBody(product.productID),
    deviceID: 'group',
  })
  assert.is(r.status, 422, r.text)
  assert.ok(r.body.errors.deviceID)
})

test.run()

const units = suite('group topic names')

units('groupTopic :: beside the mountpoints of the product, delivered as group/{groupID}', () => {
  const device = { cloudProtocol: 1, tenantID: 'T', productID: 'P' }
  assert.is(groupTopic(device, 'G1'), '/mqtt/T/P/group/G1')
  assert.is(groupTopic({ ...device, cloudProtocol: 6 }, 'G1'), '/websocket/T/P/group/G1')
  assert.is(groupRelative('G1'), 'group/G1')
})

units(
  'SubscriptionForms aliases :: a topic outside the prefix goes under its alias until dropped',
  () => {
    const f = new SubscriptionForms()
    const c = { id: 'D1', clean: true } as unknown as Client
    f.began(c, true)
    f.connacked(c)
    const prefix = '/mqtt/T/P/D1/'
    const packet = (topic: string) =>
      ({
        cmd: 'publish',
        topic,
        payload: Buffer.from('x'),
        qos: 0,
      }) as unknown as AedesPublishPacket
    f.aliased(c, '/mqtt/T/P/group/G1', 'group/G1')
    assert.equal(f.aliasesOf(c), ['/mqtt/T/P/group/G1'])
    assert.is(f.forward(c, prefix, packet('/mqtt/T/P/group/G1')).topic, 'group/G1')
    assert.is(f.forward(c, prefix, packet('/mqtt/T/P/group/G2')).topic, '/mqtt/T/P/group/G2')
    f.unaliased(c, '/mqtt/T/P/group/G1')
    assert.equal(f.aliasesOf(c), [])
    assert.is(f.forward(c, prefix, packet('/mqtt/T/P/group/G1')).topic, '/mqtt/T/P/group/G1')
  },
)

units.run()
