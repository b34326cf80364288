/**
 * `firmware.rollout` and `firmware.device` events of two tenants rolling out at the same time: each tenant's two
 * webhooks (signed, to a real HTTP receiver) and two stream clients get exactly their own tenant's events; a webhook
 * of other types gets none. Under API_VARIANT=B a rollout runs the same and the device list filters on softVersion.
 */
import { createHmac, randomBytes } from 'node:crypto'
import * as assert from 'uvu/assert'
import { suite } from 'uvu'
import type { Client, TestService } from '../../_support/service.ts'
import { startTestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import { until } from '../../ingest/_mqtt.ts'
import { uploadFirmware } from '../../ingest/_ota.ts'
import { mqttBody, newDevice, newProduct } from '../routes/devices-helpers.ts'
import { startReceiver, type Receiver } from './_receiver.ts'
import { events, openStream, type OutboxData } from './_stream.ts'

let rx: Receiver
let t: TestService
let a: Client
let b: Client & { tenantID: string }

const test = serviceSuite('firmware events of two tenants', async (ts) => {
  t = ts
  rx = await startReceiver()
  a = ts.admin
  b = await ts.newTenant()
})
test.after(async () => rx.close())

async function hook(c: Client, path: string, types: string[]) {
  const r = await c.post('/api/v1/webhooks', { url: `${rx.url}${path}`, events: types })
  assert.is(r.status, 201, r.text)
  return r.body.secret as string
}

/** A product of `c` with two offline devices and a package: a rollout to them, paced fast. */
async function rolloutOf(c: Client) {
  const p = await newProduct(c)
  for (let i = 0; i < 2; i++) await newDevice(c, mqttBody(p.productID))
  const fw = await uploadFirmware(t, c.authorization!, p.productID, '9.9', randomBytes(1000))
  const r = await c.post('/api/v1/firmware_rollouts', {
    firmwareID: fw.firmwareID,
    productWide: true,
    ratePerMinute: 600,
  })
  assert.is(r.status, 201, r.text)
  return r.body as { id: number; rolloutID: string }
}

test('two webhooks and two streams a tenant :: exactly their own tenant’s firmware events, signed', async () => {
  const secrets = {
    '/a1': await hook(a, '/a1', ['firmware.rollout', 'firmware.device']),
    '/a2': await hook(a, '/a2', ['firmware.device']),
    '/b1': await hook(b, '/b1', ['firmware.rollout', 'firmware.device']),
    '/b2': await hook(b, '/b2', ['firmware.rollout']),
    '/a-other': await hook(a, '/a-other', ['command.status']),
  }
  const streams = [
    await openStream<OutboxData>(a, '?types=firmware.rollout,firmware.device'),
    await openStream<OutboxData>(a, '?types=firmware.device'),
    await openStream<OutboxData>(b, '?types=firmware.rollout,firmware.device'),
    await openStream<OutboxData>(b, ''),
  ]
  await new Promise((r) => setTimeout(r, 300))
  const [ra, rb] = await Promise.all([rolloutOf(a), rolloutOf(b)])
  // the devices are offline: both slots are taken (notified), then the rollouts are canceled
  for (const [c, r] of [
    [a, ra],
    [b, rb],
  ] as const) {
    await until(
      async () => (await c.get(`/api/v1/firmware_rollouts/${r.id}`)).body.counts.notified,
      (n) => n === 2,
      4000,
    )
    assert.is((await c.post(`/api/v1/firmware_rollouts/${r.id}/cancel`)).status, 200)
  }
  // rollout events: made (running) and canceled, at least; device events: 2 notified, 2 canceled
  const want = { '/a1': 6, '/a2': 4, '/b1': 6, '/b2': 2 } as const
  for (const [path, n] of Object.entries(want)) {
    const got = await until(
      async () => rx.got.filter((g) => g.path === path),
      (g) => g.length >= n,
    )
    assert.ok(got.length >= n, `${path}: ${got.length}`)
    const mine = path.startsWith('/a') ? ra.rolloutID : rb.rolloutID
    for (const g of got) {
      const body = JSON.parse(g.body) as OutboxData
      assert.ok(body.type.startsWith('firmware.'), path)
      assert.is(body.data.rolloutID, mine, path)
      const sig = createHmac('sha256', secrets[path as keyof typeof secrets])
        .update(`${String(g.headers['x-devicecloud-timestamp'])}.${g.body}`)
        .digest('hex')
      assert.is(g.headers['x-devicecloud-signature'], `sha256=${sig}`, `${path}: signed`)
    }
    const statuses = got.map((g) => (JSON.parse(g.body) as OutboxData).data.status as string)
    if (path !== '/b2') {
      assert.is(statuses.filter((s) => s === 'notified').length, 2, `${path}: ${statuses.join()}`)
      assert.is(statuses.filter((s) => s === 'canceled').length >= 2, true, path)
    }
  }
  const b2 = rx.got.filter((g) => g.path === '/b2').map((g) => JSON.parse(g.body) as OutboxData)
  assert.equal(b2[0]!.data.status, 'running')
  assert.equal(b2.at(-1)!.data.status, 'canceled')
  assert.equal((b2.at(-1)!.data.counts as Record<string, number>).canceled, 2)
  await new Promise((r) => setTimeout(r, 500))
  assert.is(rx.got.filter((g) => g.path === '/a-other').length, 0, 'a webhook of other types')
  for (const s of streams) s.close()
  const seen = streams.map((s) => new Set(events(s).map((e) => e.data.data.rolloutID)))
  assert.equal(
    seen.map((x) => [...x]),
    [[ra.rolloutID], [ra.rolloutID], [rb.rolloutID], [rb.rolloutID]],
  )
  assert.ok(events(streams[1]!).every((e) => e.data.type === 'firmware.device'))
})

test.run()

const variantB = suite('firmware rollouts under API_VARIANT=B')
let tb: TestService

variantB.before(async () => {
  tb = await startTestService({ API_VARIANT: 'B' })
})
variantB.after(async () => tb.close())

variantB(
  'a rollout to offline devices :: notified slots; the device list filters on softVersion',
  async () => {
    const p = await tb.admin.post('/api/v1/products', {
      productName: `b-${Date.now()}`,
      description: 'b',
    })
    assert.is(p.status, 201, p.text)
    const mk = async (deviceName: string, softVersion: string) =>
      (
        await tb.admin.post('/api/v1/devices', {
          productID: p.body.productID,
          deviceName,
          deviceType: 0,
          authType: 1,
          softVersion,
        })
      ).body
    const [x, y] = [await mk('x', '1.0'), await mk('y', '0.9')]
    assert.ok(x.id && y.id, JSON.stringify(x))
    const fw = await uploadFirmware(
      tb,
      tb.admin.authorization!,
      p.body.productID,
      '2.0',
      randomBytes(100),
    )
    const r = await tb.admin.post('/api/v1/firmware_rollouts', {
      firmwareID: fw.firmwareID,
      productWide: true,
      fromVersions: ['1.0'],
      ratePerMinute: 600,
    })
    assert.is(r.status, 201, r.text)
    assert.is(r.body.total, 1, 'only the device at 1.0')
    const list = await tb.admin.get('/api/v1/devices?softVersion=0.9')
    assert.equal(
      list.body.items.map((d: { deviceID: string }) => d.deviceID),
      [y.deviceID],
    )
    await tb.admin.post(`/api/v1/firmware_rollouts/${r.body.id}/cancel`)
  },
)

variantB.run()
