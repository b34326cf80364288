import * as assert from 'uvu/assert'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { GatewayListItem } from '../../../src/schemas/gateways.ts'
import type { Product } from '../../../src/schemas/products.ts'
import { mqttBody, newDevice, newGateway, newProduct, TIME, uniq } from './devices-helpers.ts'
import { assertRefusal, postNotJson } from '../../_support/asserts.ts'

let t: TestService
let prod: Wire<typeof Product>

const DETAIL_KEYS = [
  'id',
  'gatewayName',
  'deviceID',
  'deviceUsername',
  'token',
  'authType',
  'authTypeLabel',
  'blocked',
  'deviceStatus',
  'deviceStatusLabel',
  'lastSeenAt',
  'gatewayProtocol',
  'gatewayProtocolLabel',
  'upLinkNetwork',
  'upLinkNetworkLabel',
  'upLinkProtocol',
  'upLinkProtocolLabel',
  'mac',
  'productID',
  'productName',
  'manufacturer',
  'serialNumber',
  'softVersion',
  'hardwareVersion',
  'description',
  'location',
  'deviceConsoleIP',
  'deviceConsolePort',
  'deviceConsoleUsername',
  'createUser',
  'userIntID',
  'createAt',
  'updateAt',
]

const gwBody = (extra: Record<string, unknown> = {}) => ({
  gatewayName: uniq('gw'),
  productID: prod.productID,
  gatewayProtocol: 7,
  upLinkNetwork: 3,
  upLinkProtocol: 1,
  authType: 1,
  mac: '00:1A:2B:3C:4D:5E',
  location: { site: 'plant 1' },
  ...extra,
})

const crud = serviceSuite('gateways', async (svc) => {
  t = svc
  prod = await newProduct(t.admin, 1)
})

crud('create :: 201 detail with zh labels, generated credentials, updateAt null', async () => {
  const body = gwBody({ manufacturer: 'ACME', deviceConsolePort: 22 })
  const r = await t.admin.post('/api/v1/gateways', body)
  assert.is(r.status, 201)
  assert.equal(Object.keys(r.body), DETAIL_KEYS)
  assert.equal(
    [
      r.body.gatewayProtocolLabel,
      r.body.upLinkNetworkLabel,
      r.body.upLinkProtocolLabel,
      r.body.authTypeLabel,
      r.body.deviceStatusLabel,
    ],
    ['Modbus', '4G', 'MQTT', 'Token', '离线'],
  )
  const creds = [r.body.deviceID, r.body.deviceUsername, r.body.token]
  for (const v of creds) assert.match(v, /^[A-Za-z0-9]{36}$/)
  assert.is(new Set(creds).size, 3)
  assert.equal(
    [r.body.gatewayName, r.body.mac, r.body.location, r.body.createUser],
    [body.gatewayName, body.mac, body.location, 'admin'],
  )
  assert.equal(
    [r.body.productID, r.body.productName, r.body.blocked, r.body.deviceConsolePort],
    [prod.productID, prod.productName, 0, 22],
  )
  assert.match(r.body.createAt, TIME)
  assert.is(r.body.updateAt, null)
})

crud('detail in English :: labels from Accept-Language', async () => {
  const g = await newGateway(t.admin, prod.productID, { upLinkNetwork: 4, authType: 2 })
  const r = await t.admin.english().get(`/api/v1/gateways/${g.id}`)
  assert.is(r.status, 200)
  assert.equal(
    [r.body.upLinkNetworkLabel, r.body.authTypeLabel, r.body.deviceStatusLabel],
    ['Wi-Fi', 'Certificate', 'Offline'],
  )
  assert.not.ok('deviceCount' in r.body)
})

crud('missing fields :: 422 naming each', async () => {
  const r = await t.admin.post('/api/v1/gateways', {})
  assertRefusal(r, 422, ['authType', 'gatewayName', 'gatewayProtocol', 'productID'])
})

crud('bad enumerations, MAC, port, location :: 422 naming each', async () => {
  const r = await t.admin.post(
    '/api/v1/gateways',
    gwBody({
      gatewayProtocol: 8,
      upLinkNetwork: 6,
      upLinkProtocol: 0,
      authType: 3,
      blocked: 2,
      mac: '00:1A:2B:3C:4D',
      deviceConsolePort: 0,
      location: 3,
      deviceID: 'a/b',
    }),
  )
  assertRefusal(r, 422, [
    'authType',
    'blocked',
    'deviceConsolePort',
    'deviceID',
    'gatewayProtocol',
    'location',
    'mac',
    'upLinkNetwork',
    'upLinkProtocol',
  ])
  for (const mac of ['001A2B3C4D5E', '00:1A-2B:3C:4D:5E', 'GG:1A:2B:3C:4D:5E']) {
    const m = await t.admin.post('/api/v1/gateways', gwBody({ mac }))
    assert.equal(Object.keys(m.body.errors ?? {}), ['mac'], mac)
  }
  assert.is(
    (await t.admin.post('/api/v1/gateways', gwBody({ mac: 'aa-bb-cc-dd-ee-ff' }))).status,
    201,
  )
})

crud('unknown or foreign productID :: 404 errors.productID', async () => {
  const r = await t.admin.post('/api/v1/gateways', gwBody({ productID: 'nope00' }))
  assert.is(r.status, 404)
  assert.equal(Object.keys(r.body.errors), ['productID'])
  const other = await t.newTenant()
  const mine = await other.post('/api/v1/gateways', gwBody())
  assert.is(mine.status, 404)
})

crud('duplicate gatewayName or deviceID :: 400 DATA_EXISTED naming the field', async () => {
  const g = await newGateway(t.admin, prod.productID)
  const n = await t.admin.post('/api/v1/gateways', gwBody({ gatewayName: g.gatewayName }))
  assert.is(n.status, 400)
  assert.equal(n.body.errors, { gatewayName: 'already exists' })
  const d = await newDevice(t.admin, mqttBody(prod.productID))
  const i = await t.admin.post('/api/v1/gateways', gwBody({ deviceID: d.deviceID }))
  assert.is(i.status, 400)
  assert.equal(i.body.errors, { deviceID: 'already exists' })
})

crud('chosen credentials :: stored', async () => {
  const deviceID = uniq('gw.id')
  const g = await newGateway(t.admin, prod.productID, {
    deviceID,
    deviceUsername: 'gw-user',
    token: 'gw-token',
  })
  assert.equal([g.deviceID, g.deviceUsername, g.token], [deviceID, 'gw-user', 'gw-token'])
})

crud('list :: deviceCount of devices under each gateway, list form, filters', async () => {
  const p = await newProduct(t.admin, 1)
  const g = await newGateway(t.admin, p.productID, { gatewayProtocol: 4 })
  const empty = await newGateway(t.admin, p.productID, { gatewayProtocol: 7 })
  for (let i = 0; i < 2; i++)
    await newDevice(t.admin, mqttBody(p.productID, { upLinkSystem: 2, gateway: g.id }))
  const r = await t.admin.get<Page<Wire<typeof GatewayListItem>>>(
    `/api/v1/gateways?productID=${p.productID}`,
  )
  assert.is(r.status, 200)
  assert.equal(r.body.meta, { count: 2, limit: 10, page: 1, next: null })
  assert.equal(
    r.body.items.map((x) => [x.id, x.deviceCount]),
    [
      [empty.id, 0],
      [g.id, 2],
    ],
  )
  assert.not.ok('createUser' in r.body.items[0]!)
  const ids = async (q: string) =>
    (
      await t.admin.get<Page<Wire<typeof GatewayListItem>>>(
        `/api/v1/gateways?productID=${p.productID}&${q}`,
      )
    ).body.items.map((x) => x.id)
  assert.equal(await ids('gatewayProtocol=4'), [g.id])
  assert.ok(
    (await ids(`gatewayName_like=${g.gatewayName.slice(0, 8).toUpperCase()}`)).includes(g.id),
  )
  assert.equal(await ids(`deviceID=${empty.deviceID}`), [empty.id])
  assert.equal(await ids('_limit=1&_page=2'), [g.id])
  const en = await t.admin
    .english()
    .get(`/api/v1/gateways?productID=${p.productID}&gatewayProtocol=4`)
  assert.is(en.body.items[0].gatewayProtocolLabel, 'LoRa')
})

crud('devices are not gateways :: never listed, /gateways/:id 404', async () => {
  const d = await newDevice(t.admin, mqttBody(prod.productID))
  assert.is((await t.admin.get(`/api/v1/gateways/${d.id}`)).status, 404)
  assert.is((await t.admin.get(`/api/v1/gateways?deviceID=${d.deviceID}`)).body.meta.count, 0)
  assert.is((await t.admin.put(`/api/v1/gateways/${d.id}`, { blocked: 1 })).status, 404)
})

crud('edit whole record as read :: 200, updateAt set, blocked settable', async () => {
  const g = await newGateway(t.admin, prod.productID)
  const read = (await t.admin.get(`/api/v1/gateways/${g.id}`)).body
  const r = await t.admin.put(`/api/v1/gateways/${g.id}`, {
    ...read,
    gatewayName: `${g.gatewayName}-2`,
    blocked: 1,
    location: 'roof',
  })
  assert.is(r.status, 200)
  assert.equal(
    [r.body.gatewayName, r.body.blocked, r.body.location],
    [`${g.gatewayName}-2`, 1, 'roof'],
  )
  assert.match(r.body.updateAt, TIME)
  assert.equal([r.body.deviceID, r.body.token], [g.deviceID, g.token])
  const cleared = await t.admin.put(`/api/v1/gateways/${g.id}`, { mac: null })
  assert.is(cleared.body.mac, null)
  assert.is(cleared.body.gatewayName, `${g.gatewayName}-2`)
})

crud('edit a credential :: 422 cannot be changed', async () => {
  const g = await newGateway(t.admin, prod.productID)
  const r = await t.admin.put(`/api/v1/gateways/${g.id}`, {
    deviceID: 'new-id',
    token: 'new-token',
  })
  assert.is(r.status, 422)
  assert.equal(r.body.errors, { deviceID: 'cannot be changed', token: 'cannot be changed' })
})

crud('delete with devices under it :: 400 REFERENCED_ERROR; once they leave :: 204', async () => {
  const g = await newGateway(t.admin, prod.productID)
  const d = await newDevice(t.admin, mqttBody(prod.productID, { upLinkSystem: 2, gateway: g.id }))
  const r = await t.admin.del(`/api/v1/gateways?ids=${g.id}`)
  assert.is(r.status, 400)
  assert.is(r.body.errorCode, 'REFERENCED_ERROR')
  assert.match(r.body.errors.ids, /still has 1 devices/)
  assert.is((await t.admin.put(`/api/v1/devices/${d.id}`, { upLinkSystem: 1 })).status, 200)
  const ok = await t.admin.del(`/api/v1/gateways?ids=${g.id}`)
  assert.is(ok.status, 204)
  assert.is(ok.text, '')
  assert.is((await t.admin.get(`/api/v1/gateways/${g.id}`)).status, 404)
})

crud('delete unknown or bad ids :: 404 / 400', async () => {
  assert.is((await t.admin.del('/api/v1/gateways?ids=987654')).status, 404)
  assert.is((await t.admin.del('/api/v1/gateways?ids=1,x')).status, 400)
})

crud('tenant isolation :: foreign gateways never listed, ids 404', async () => {
  const g = await newGateway(t.admin, prod.productID)
  const other = await t.newTenant()
  assert.is((await other.get('/api/v1/gateways')).body.meta.count, 0)
  assert.is((await other.get(`/api/v1/gateways/${g.id}`)).status, 404)
  assert.is((await other.put(`/api/v1/gateways/${g.id}`, { blocked: 1 })).status, 404)
  assert.is((await other.del(`/api/v1/gateways?ids=${g.id}`)).status, 404)
})

crud('viewer :: reads, writes 403', async () => {
  const g = await newGateway(t.admin, prod.productID)
  const viewer = await t.userWithRole('viewer')
  assert.is((await viewer.get(`/api/v1/gateways/${g.id}`)).status, 200)
  assert.is((await viewer.post('/api/v1/gateways', gwBody())).status, 403)
  assert.is((await viewer.put(`/api/v1/gateways/${g.id}`, { blocked: 1 })).status, 403)
  const r = await viewer.del(`/api/v1/gateways?ids=${g.id}`)
  assert.is(r.status, 403)
  assert.is(r.body.errorCode, 'PERMISSION_DENIED')
})

crud('non-JSON body :: 400 BAD_REQUEST', async () => {
  await postNotJson(t.admin, '/api/v1/gateways', 'nope')
})

crud.run()
