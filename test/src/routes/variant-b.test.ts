/**
 * What only Variant B has (API_VARIANT=B): generated 36-character credentials, required descriptions, broker
 * addresses in detail, its list filters, gateways as deviceType 1, and the documents describing it.
 */
import * as assert from 'uvu/assert'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import { loadConfig } from '../../../src/kernel/config.ts'
import type { DeviceListItem } from '../../../src/variant-b/schemas/devices.ts'
import type { Product } from '../../../src/variant-b/schemas/products.ts'
import { created, kits, uniq, type DeviceB } from './_variant.ts'

const k = kits.B
let t: TestService
type Devices = Page<Wire<typeof DeviceListItem>>
const c = () => t.admin
const product = () => created<Wire<typeof Product>>(c(), '/api/v1/products', k.productBody())

const devices = serviceSuite('devices (Variant B only)', (svc) => (t = svc), { API_VARIANT: 'B' })

devices('setting :: API_VARIANT defaults to A, takes B, refuses anything else', () => {
  assert.is(loadConfig({}).API_VARIANT, 'A')
  assert.is(loadConfig({ API_VARIANT: 'B' }).API_VARIANT, 'B')
  assert.throws(() => loadConfig({ API_VARIANT: 'C' }), /API_VARIANT/)
})

devices('create without deviceID and deviceUsername :: both generated, 36 characters', async () => {
  const p = await product()
  const d = await created(c(), '/api/v1/devices', k.deviceBody(p.productID))
  assert.is(d.deviceID.length, 36)
  assert.is(d.deviceUsername.length, 36)
  assert.is.not(d.deviceID, d.deviceUsername)
  const given = await created(
    c(),
    '/api/v1/devices',
    k.deviceBody(p.productID, { deviceID: 'my-device-1', deviceUsername: 'my-user-1' }),
  )
  assert.equal([given.deviceID, given.deviceUsername], ['my-device-1', 'my-user-1'])
})

devices(
  'detail :: Variant B fields, broker addresses host:port, none for absent listeners',
  async () => {
    const p = await product()
    const d = await created(
      c(),
      '/api/v1/devices',
      k.deviceBody(p.productID, { location: 'Hall 3' }),
    )
    const r = await c().english().get(`/api/v1/devices/${d.id}`)
    assert.is(r.status, 200)
    const port = t.svc.deps.broker.port
    assert.equal(
      {
        mqtt: r.body.mqttBroker,
        mqtts: r.body.mqttsBroker,
        mqttss: r.body.mqttssBroker,
        coap: r.body.coapBroker,
        coaps: r.body.coapsBroker,
        coapss: r.body.coapssBroker,
      },
      {
        mqtt: `127.0.0.1:${port}`,
        mqtts: null,
        mqttss: null,
        coap: null,
        coaps: null,
        coapss: null,
      },
    )
    assert.equal(
      [r.body.deviceType, r.body.deviceTypeLabel, r.body.status, r.body.statusLabel],
      [0, 'Terminal', 0, 'Offline'],
    )
    assert.is(r.body.location, 'Hall 3')
    for (const gone of ['deviceStatus', 'cloudProtocol', 'upLinkSystem', 'lora', 'productIntID'])
      assert.not.ok(gone in r.body, gone)
    const list = await c().get(`/api/v1/devices?productID=${p.productID}`)
    const item = list.body.items[0]
    assert.is(item.productName, p.productName)
    for (const detailOnly of ['mqttBroker', 'createUser', 'clientIP', 'connectedAt', 'keepAlive'])
      assert.not.ok(detailOnly in item, detailOnly)
  },
)

devices(
  'deviceType outside 0..2, Variant A fields :: 422 errors.deviceType; A fields ignored',
  async () => {
    const p = await product()
    const bad = await c().post('/api/v1/devices', k.deviceBody(p.productID, { deviceType: 3 }))
    assert.is(bad.status, 422)
    assert.equal(Object.keys(bad.body.errors), ['deviceType'])
    const d = await created<DeviceB>(
      c(),
      '/api/v1/devices',
      k.deviceBody(p.productID, { deviceType: 2, upLinkSystem: 3, cloudProtocol: 4 }),
    )
    assert.equal([d.deviceType, d.deviceTypeLabel], [2, '智能手机'])
  },
)

devices(
  'gateway (deviceType 1) :: a gateway record too; never becomes a device; deleted with its child',
  async () => {
    const p = await product()
    const gw = await k.newGateway(c(), p.productID)
    assert.equal([gw.deviceType, gw.deviceTypeLabel, gw.gateway], [1, '网关', null])
    const asGateway = await c().get(`/api/v1/gateways/${gw.id}`)
    assert.is(asGateway.status, 200)
    assert.is(asGateway.body.gatewayName, gw.deviceName)
    const child = await created(c(), '/api/v1/devices', k.childBody(p.productID, gw.id))
    const turn = await c().put(`/api/v1/devices/${gw.id}`, { ...gw, deviceType: 0 })
    assert.is(turn.status, 422)
    assert.ok(turn.body.errors.deviceType)
    const renamed = await c().put(`/api/v1/devices/${gw.id}`, { ...gw, deviceName: 'gw-renamed' })
    assert.is(renamed.status, 200, renamed.text)
    assert.equal([renamed.body.deviceName, renamed.body.deviceType], ['gw-renamed', 1])
    const alone = await c().del(`/api/v1/devices?ids=${gw.id}`)
    assert.is(alone.status, 400)
    assert.is(alone.body.errorCode, 'REFERENCED_ERROR')
    assert.is((await c().del(`/api/v1/devices?ids=${gw.id},${child.id}`)).status, 204)
    assert.is((await c().get(`/api/v1/devices/${gw.id}`)).status, 404)
  },
)

devices(
  'edit :: only the Variant B edit fields change; credentials and product stay; gateway set and cleared',
  async () => {
    const p = await product()
    const other = await product()
    const d = await created(c(), '/api/v1/devices', k.deviceBody(p.productID))
    const r = await c().put(`/api/v1/devices/${d.id}`, {
      ...d,
      deviceID: 'changed-id',
      productID: other.productID,
      deviceType: 2,
      softVersion: '2.0',
    })
    assert.is(r.status, 200, r.text)
    assert.equal(
      [r.body.deviceID, r.body.productID, r.body.deviceType, r.body.softVersion],
      [d.deviceID, p.productID, 2, '2.0'],
    )
    const gw = await k.newGateway(c(), p.productID)
    const under = await c().put(`/api/v1/devices/${d.id}`, { deviceType: 0, gateway: gw.id })
    assert.is(under.status, 200, under.text)
    assert.equal([under.body.deviceType, under.body.gateway], [0, gw.id])
    const kept = await c().put(`/api/v1/devices/${d.id}`, { ...under.body, description: 'x' })
    assert.equal([kept.body.gateway, kept.body.description], [gw.id, 'x'])
    const back = await c().put(`/api/v1/devices/${d.id}`, { gateway: null })
    assert.equal([back.body.deviceType, back.body.gateway], [0, null])
    const phoneUnder = await c().put(`/api/v1/devices/${d.id}`, { deviceType: 2, gateway: gw.id })
    assert.is(phoneUnder.status, 422)
  },
)

devices(
  'filters :: deviceName_like, deviceID_like, deviceType_like, groupID, productID',
  async () => {
    const p = await product()
    const tag = uniq('flt')
    const a = await created(
      c(),
      '/api/v1/devices',
      k.deviceBody(p.productID, { deviceName: `${tag}-a`, deviceID: `${tag}-ida` }),
    )
    const phone = await created(
      c(),
      '/api/v1/devices',
      k.deviceBody(p.productID, { deviceName: `${tag}-b`, deviceType: 2 }),
    )
    const gw = await k.newGateway(c(), p.productID)
    const g = await created(c(), '/api/v1/groups', k.groupBody(p.productID))
    await c().post(`/api/v1/groups/${g.id}/devices`, { ids: [phone.id] })
    const ids = async (q: string) => {
      const r = await c().get<Devices>(`/api/v1/devices?${q}`)
      assert.is(r.status, 200, r.text)
      return r.body.items.map((x) => x.id).sort((x, y) => x - y)
    }
    assert.equal(await ids(`deviceName_like=${tag}`), [a.id, phone.id])
    assert.equal(await ids(`deviceID_like=${tag}-id`), [a.id])
    assert.equal(await ids(`productID=${p.productID}&deviceType_like=0`), [a.id])
    assert.equal(await ids(`productID=${p.productID}&deviceType_like=1`), [gw.id])
    assert.equal(await ids(`productID=${p.productID}&deviceType_like=2`), [phone.id])
    assert.equal(await ids(`productID=${p.productID}`), [a.id, phone.id, gw.id])
    assert.equal(await ids(`groupID=${g.groupID}`), [phone.id])
    const child = await created(c(), '/api/v1/devices', k.childBody(p.productID, gw.id))
    assert.equal(await ids(`gateway=${gw.id}`), [child.id])
    const bad = await c().get('/api/v1/devices?deviceType_like=x')
    assert.is(bad.status, 200)
    assert.is(bad.body.meta.count, 0)
  },
)

devices(
  'viewers and onboarding :: token null for viewers; a deviceType 1 device has its connection details',
  async () => {
    const p = await product()
    const d = await created(c(), '/api/v1/devices', k.deviceBody(p.productID))
    const gw = await k.newGateway(c(), p.productID)
    const viewer = await t.userWithRole('viewer')
    assert.is((await c().get(`/api/v1/devices/${d.id}`)).body.token, d.token)
    assert.is((await viewer.get(`/api/v1/devices/${d.id}`)).body.token, null)
    const list = await viewer.get<Devices>(`/api/v1/devices?productID=${p.productID}`)
    assert.ok(list.body.items.length >= 2)
    assert.ok(list.body.items.every((x) => !('token' in x) || x.token === null))
    const conn = await c().get(`/api/v1/devices/${gw.id}/connection`)
    assert.is(conn.status, 200, conn.text)
    assert.equal([conn.body.clientID, conn.body.password], [gw.deviceID, gw.token])
    const seen = await viewer.get(`/api/v1/devices/${gw.id}/connection`)
    assert.is(seen.body.password, null)
  },
)

devices.run()

const others = serviceSuite('products, groups, documents (Variant B only)', (svc) => (t = svc), {
  API_VARIANT: 'B',
  PUBLIC_MQTT_URL: 'mqtt://iot.example.com',
})

others('product and group without description :: 422 errors.description', async () => {
  const p = await c().post('/api/v1/products', { productName: uniq('p') })
  assert.is(p.status, 422)
  assert.equal(Object.keys(p.body.errors), ['description'])
  const blank = await c().post('/api/v1/products', { productName: uniq('p'), description: ' ' })
  assert.equal(Object.keys(blank.body.errors), ['description'])
  const prod = await product()
  assert.not.ok('cloudProtocol' in prod)
  assert.equal(prod.devices, [])
  const g = await c().post('/api/v1/groups', { productID: prod.productID, groupName: uniq('g') })
  assert.is(g.status, 422)
  assert.equal(Object.keys(g.body.errors), ['description'])
})

others('broker address from PUBLIC_MQTT_URL :: host and default port', async () => {
  const p = await product()
  const d = await created(c(), '/api/v1/devices', k.deviceBody(p.productID))
  assert.is((await c().get(`/api/v1/devices/${d.id}`)).body.mqttBroker, 'iot.example.com:1883')
})

others('openapi.json and /docs :: describe Variant B (status, not deviceStatus)', async () => {
  const r = await t.anon.get('/api/v1/openapi.json')
  assert.is(r.status, 200)
  assert.is(r.body.info['x-api-variant'], 'B')
  const schema = (path: string, method: string) => {
    const op = r.body.paths[path][method]
    return op.requestBody?.content['application/json'].schema ?? op
  }
  const device =
    r.body.paths['/api/v1/devices/{id}'].get.responses['200'].content['application/json'].schema
  assert.ok('status' in device.properties)
  assert.ok('mqttBroker' in device.properties)
  assert.not.ok('deviceStatus' in device.properties)
  assert.equal(schema('/api/v1/devices', 'post').required.sort(), [
    'authType',
    'deviceName',
    'deviceType',
    'productID',
  ])
  assert.equal(schema('/api/v1/products', 'post').required.sort(), ['description', 'productName'])
  const docs = await t.anon.get('/docs')
  assert.is(docs.status, 200)
  assert.match(docs.text, 'Variant B')
  assert.match(docs.text, 'mqttBroker')
})

others.run()
