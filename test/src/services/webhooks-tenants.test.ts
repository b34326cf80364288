/**
 * Each event reaches each subscribed webhook of its own tenant, exactly that event: two tenants, tenant B with two
 * and then eight webhooks, events from both tenants stored in the same outbox batches. Before the fix, B's second
 * webhook received A's events, and eight webhooks made the outbox write fail (the events were lost).
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Client, startTestService, type TestService } from '../../_support/service.ts'
import { until } from '../../ingest/_mqtt.ts'
import { tenantOf } from '../../_support/fixtures.ts'
import { mqttBody, newDevice, newProduct, type NewDevice } from '../routes/devices-helpers.ts'
import type { PublishAnswer } from '../../../src/schemas/commands.ts'
import type { Webhook, WebhookDelivery } from '../../../src/schemas/webhooks.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import { startReceiver, type Receiver } from './_receiver.ts'
import type { OutboxData } from './_stream.ts'

const test = suite('webhooks of two tenants')
let t: TestService
let rx: Receiver
let a: Client
let tenantA: string
let b: Client & { tenantID: string }
let deviceA: NewDevice
let deviceB: NewDevice

test.before(async () => {
  t = await startTestService()
  rx = await startReceiver()
  a = t.admin
  tenantA = await tenantOf(t)
  b = await t.newTenant()
  assert.is.not(tenantA, b.tenantID)
  deviceA = await newDevice(a, mqttBody((await newProduct(a)).productID))
  deviceB = await newDevice(b, mqttBody((await newProduct(b)).productID))
})
test.after(async () => {
  await t.close()
  await rx.close()
})

type Answer = Wire<typeof PublishAnswer>

/** Queues one command for each device at once (one `command.status` event each, stored in the same batch). */
async function commandsOfBoth(): Promise<{ taskA: string; taskB: string }> {
  const [ra, rb] = await Promise.all([
    a.post<Answer>('/api/v1/device_publish', {
      deviceID: deviceA.deviceID,
      payload: 'a',
      ttl: 600,
    }),
    b.post<Answer>('/api/v1/device_publish', {
      deviceID: deviceB.deviceID,
      payload: 'b',
      ttl: 600,
    }),
  ])
  assert.is(ra.status, 201, ra.text)
  assert.is(rb.status, 201, rb.text)
  return { taskA: ra.body.taskID, taskB: rb.body.taskID }
}

const hooks = async (c: Client, prefix: string, n: number) => {
  const ids: number[] = []
  for (let i = 0; i < n; i++) {
    const r = await c.post<Wire<typeof Webhook>>('/api/v1/webhooks', {
      url: `${rx.url}/${prefix}${i}`,
      events: ['command.status'],
    })
    assert.is(r.status, 201, r.text)
    ids.push(r.body.id)
  }
  return ids
}

/**
 * Checks every receiver path got exactly the events of its own tenant's tasks, once each, and that its delivery
 * log lists exactly those events.
 */
async function expectOwn(
  c: Client,
  prefix: string,
  ids: number[],
  tenantID: string,
  tasks: string[],
) {
  for (let i = 0; i < ids.length; i++) {
    const path = `/${prefix}${i}`
    const got = await until(
      async () => rx.got.filter((g) => g.path === path),
      (g) => g.length >= tasks.length,
    )
    const bodies = got.map((g) => JSON.parse(g.body) as OutboxData)
    assert.equal(
      bodies.map((x) => [x.tenantID, x.data.taskID]).sort(),
      tasks.map((task) => [tenantID, task]).sort(),
      `${path}: its own tenant's events, once each`,
    )
    const log = (
      await c.get<Page<Wire<typeof WebhookDelivery>>>(`/api/v1/webhooks/${ids[i]}/deliveries`)
    ).body
    assert.equal(
      log.items.map((d) => d.eventID).sort(),
      bodies.map((x) => x.id).sort(),
      `${path}: the delivery log lists the events sent`,
    )
  }
}

/** Three rounds of one command in each tenant: the delivery ids run ahead of the event ids after the first. */
async function rounds() {
  const tasksA: string[] = []
  const tasksB: string[] = []
  for (let i = 0; i < 3; i++) {
    const { taskA, taskB } = await commandsOfBoth()
    tasksA.push(taskA)
    tasksB.push(taskB)
  }
  return { tasksA, tasksB }
}

test('two webhooks in tenant B, one in A :: each gets only its own tenant event', async () => {
  const hooksA = await hooks(a, 'a2-', 1)
  const hooksB = await hooks(b, 'b2-', 2)
  const { tasksA, tasksB } = await rounds()
  await expectOwn(b, 'b2-', hooksB, b.tenantID, tasksB)
  await expectOwn(a, 'a2-', hooksA, tenantA, tasksA)
  await a.del(`/api/v1/webhooks?ids=${hooksA.join(',')}`)
  await b.del(`/api/v1/webhooks?ids=${hooksB.join(',')}`)
})

test('eight webhooks in tenant B :: the event is stored and each of the eight gets it once', async () => {
  const hooksB = await hooks(b, 'b8-', 8)
  const hooksA = await hooks(a, 'a8-', 2)
  const { tasksA, tasksB } = await rounds()
  await expectOwn(b, 'b8-', hooksB, b.tenantID, tasksB)
  await expectOwn(a, 'a8-', hooksA, tenantA, tasksA)
  // a re-send sends the webhook's own event again, not another tenant's
  const last = hooksB[7]!
  const d = (await b.get<Page<Wire<typeof WebhookDelivery>>>(`/api/v1/webhooks/${last}/deliveries`))
    .body.items[0]!
  assert.is((await b.post(`/api/v1/webhooks/${last}/deliveries/${d.id}/retry`, {})).status, 200)
  const again = await until(
    async () => rx.got.filter((g) => g.path === '/b8-7'),
    (g) => g.length >= 4,
  )
  assert.is(again.length, 4)
  assert.is(JSON.parse(again[3]!.body).tenantID, b.tenantID)
  assert.ok(tasksB.includes(JSON.parse(again[3]!.body).data.taskID))
  // the delivery's detail holds the very body sent; another tenant, or another webhook's path, gets 404
  const detail = await b.get(`/api/v1/webhooks/${last}/deliveries/${d.id}`)
  assert.is(detail.status, 200, detail.text)
  assert.is(detail.body.body, again[3]!.body)
  assert.is(detail.body.id, d.id)
  assert.is((await a.get(`/api/v1/webhooks/${last}/deliveries/${d.id}`)).status, 404)
  assert.is((await b.get(`/api/v1/webhooks/${hooksB[0]}/deliveries/${d.id}`)).status, 404)
  assert.is((await b.get(`/api/v1/webhooks/${last}/deliveries/x1`)).status, 404)
})

test.run()
