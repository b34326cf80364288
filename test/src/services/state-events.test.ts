/**
 * `device.state` events of two tenants, patched at the same time: each tenant's two webhooks (signed deliveries
 * to a real HTTP receiver) and two stream clients get exactly their own tenant's state events, once each; a
 * webhook that takes other types gets none. Under API_VARIANT=B the device list and detail carry stateDelta and
 * filter on it.
 */
import { createHmac } from 'node:crypto'
import * as assert from 'uvu/assert'
import { suite } from 'uvu'
import type { Client, TestService } from '../../_support/service.ts'
import { startTestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import { until } from '../../ingest/_mqtt.ts'
import { mqttBody, newDevice, newProduct, type NewDevice } from '../routes/devices-helpers.ts'
import { startReceiver, type Receiver } from './_receiver.ts'
import { events, openStream, type OutboxData } from './_stream.ts'

let rx: Receiver
let a: Client
let b: Client & { tenantID: string }
let da: NewDevice
let db: NewDevice

const test = serviceSuite('device.state events of two tenants', async (ts) => {
  rx = await startReceiver()
  a = ts.admin
  b = await ts.newTenant()
  da = await newDevice(a, mqttBody((await newProduct(a)).productID))
  db = await newDevice(b, mqttBody((await newProduct(b)).productID))
})
test.after(async () => rx.close())

/** A webhook of `c` to `path` taking `types`; its secret. */
async function hook(c: Client, path: string, types: string[]) {
  const r = await c.post('/api/v1/webhooks', { url: `${rx.url}${path}`, events: types })
  assert.is(r.status, 201, r.text)
  return r.body.secret as string
}

test('two webhooks and two streams a tenant :: exactly their own tenant’s state events, signed, once each', async () => {
  const secrets = {
    '/a1': await hook(a, '/a1', ['device.state']),
    '/a2': await hook(a, '/a2', ['device.state', 'command.status']),
    '/b1': await hook(b, '/b1', ['device.state']),
    '/b2': await hook(b, '/b2', ['device.state']),
    '/a-other': await hook(a, '/a-other', ['command.status']),
  }
  const streams = [
    await openStream<OutboxData>(a, '?types=device.state'),
    await openStream<OutboxData>(a, `?types=device.state&deviceID=${da.deviceID}`),
    await openStream<OutboxData>(b, '?types=device.state'),
    await openStream<OutboxData>(b, ''),
  ]
  await new Promise((r) => setTimeout(r, 300))
  await Promise.all([
    a.patch(`/api/v1/devices/${da.id}/state`, { desired: { a: 1 } }),
    b.patch(`/api/v1/devices/${db.id}/state`, { desired: { b: 1 } }),
    a.patch(`/api/v1/devices/${da.id}/state`, { desired: { a: 2 } }),
  ])
  const want = { '/a1': 2, '/a2': 2, '/b1': 1, '/b2': 1 } as const
  for (const [path, n] of Object.entries(want)) {
    const got = await until(
      async () => rx.got.filter((g) => g.path === path),
      (g) => g.length >= n,
    )
    assert.is(got.length, n, path)
    for (const g of got) {
      const body = JSON.parse(g.body) as OutboxData
      assert.is(body.type, 'device.state')
      assert.is(body.data.deviceID, path.startsWith('/a') ? da.deviceID : db.deviceID, path)
      const sig = createHmac('sha256', secrets[path as keyof typeof secrets])
        .update(`${String(g.headers['x-devicecloud-timestamp'])}.${g.body}`)
        .digest('hex')
      assert.is(g.headers['x-devicecloud-signature'], `sha256=${sig}`, `${path}: signed`)
    }
  }
  const a2 = rx.got.filter((g) => g.path === '/a2').map((g) => JSON.parse(g.body) as OutboxData)
  assert.equal(a2.map((x) => [x.data.side, x.data.desiredVersion]).sort(), [
    ['desired', 1],
    ['desired', 2],
  ])
  await new Promise((r) => setTimeout(r, 800))
  assert.is(rx.got.filter((g) => g.path === '/a-other').length, 0, 'a webhook of other types')
  for (const s of streams) s.close()
  const seen = streams.map((s) => events(s).map((e) => e.data.data.deviceID))
  assert.equal(seen, [
    [da.deviceID, da.deviceID],
    [da.deviceID, da.deviceID],
    [db.deviceID],
    [db.deviceID],
  ])
})

test.run()

const variantB = suite('device state under API_VARIANT=B')
let tb: TestService

variantB.before(async () => {
  tb = await startTestService({ API_VARIANT: 'B' })
})
variantB.after(async () => tb.close())

variantB('stateDelta :: on the list and the detail, and the stateDelta filter', async () => {
  const p = await tb.admin.post('/api/v1/products', {
    productName: `b-${Date.now()}`,
    description: 'b',
  })
  assert.is(p.status, 201, p.text)
  const mk = async (deviceName: string) =>
    (
      await tb.admin.post('/api/v1/devices', {
        productID: p.body.productID,
        deviceName,
        deviceType: 0,
        authType: 1,
      })
    ).body
  const [x, y] = [await mk('x'), await mk('y')]
  assert.ok(x.id && y.id, JSON.stringify(x))
  const r = await tb.admin.patch(`/api/v1/devices/${x.id}/state`, { desired: { on: true } })
  assert.is(r.status, 200, r.text)
  assert.is((await tb.admin.get(`/api/v1/devices/${x.id}`)).body.stateDelta, 1)
  assert.is((await tb.admin.get(`/api/v1/devices/${y.id}`)).body.stateDelta, 0)
  const pending = await tb.admin.get('/api/v1/devices?stateDelta=1')
  assert.equal(
    pending.body.items.map((d: { deviceID: string; stateDelta: number }) => [
      d.deviceID,
      d.stateDelta,
    ]),
    [[x.deviceID, 1]],
  )
})

variantB.run()
