import * as assert from 'uvu/assert'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import { DEVICE_DETAIL_KEYS, type Page, type Wire } from '../../_support/wire.ts'
import type { DeviceListItem } from '../../../src/schemas/devices.ts'
import type { Product } from '../../../src/schemas/products.ts'
import { mqttBody, newDevice, newGateway, newProduct, TIME, uniq } from './devices-helpers.ts'
import { assertRefusal, assertTaken, postNotJson } from '../../_support/asserts.ts'

let t: TestService
let mqtt: Wire<typeof Product>

/** Keys of the write form (the create answer: the stored record without labels, productIntID, productName). */
const WRITE_KEYS = [
  'id',
  'deviceID',
  'deviceName',
  'deviceUsername',
  'token',
  'authType',
  'blocked',
  'deviceStatus',
  'deviceType',
  'upLinkSystem',
  'gateway',
  'parentDevice',
  'parentDeviceName',
  'productID',
  'cloudProtocol',
  ...DEVICE_DETAIL_KEYS,
  'tenantID',
  'userIntID',
  'createAt',
  'updateAt',
]

const create = serviceSuite('devices create', async (svc) => {
  t = svc
  mqtt = await newProduct(t.admin, 1)
})

create('MQTT terminal on the cloud :: 201 write form, no labels, updateAt null', async () => {
  const body = mqttBody(mqtt.productID, {
    manufacturer: 'ACME',
    carrier: 2,
    physicalNetwork: 4,
    latitude: 31.2,
    longitude: 121.5,
  })
  const r = await t.admin.post('/api/v1/devices', body)
  assert.is(r.status, 201)
  assert.equal(Object.keys(r.body), WRITE_KEYS)
  assert.match(r.body.createAt, TIME)
  assert.is(r.body.updateAt, null)
  assert.is(r.body.deviceName, body.deviceName)
  assert.is(r.body.productID, mqtt.productID)
  assert.is(r.body.cloudProtocol, 1)
  assert.is(r.body.blocked, 0)
  assert.is(r.body.deviceStatus, 0)
  assert.is(r.body.manufacturer, 'ACME')
  assert.is(r.body.carrier, 2)
  assert.is(r.body.latitude, 31.2)
  assert.is(r.body.parentDeviceName, null)
  assert.type(r.body.tenantID, 'string')
  assert.type(r.body.userIntID, 'number')
})

create('credentials omitted :: three generated 36-character values, all different', async () => {
  const a = await newDevice(t.admin, mqttBody(mqtt.productID))
  const b = await newDevice(t.admin, mqttBody(mqtt.productID))
  const values = [a.deviceID, a.deviceUsername, a.token, b.deviceID, b.deviceUsername, b.token]
  for (const v of values) assert.match(v, /^[A-Za-z0-9]{36}$/)
  assert.is(new Set(values).size, 6)
})

create('credentials given :: stored as chosen', async () => {
  const deviceID = uniq('my.dev:01_a')
  const d = await newDevice(
    t.admin,
    mqttBody(mqtt.productID, { deviceID, deviceUsername: 'user-1', token: 'secret-1' }),
  )
  assert.equal([d.deviceID, d.deviceUsername, d.token], [deviceID, 'user-1', 'secret-1'])
})

create('detail :: every device field, zh labels, detail-only fields', async () => {
  const c = await newDevice(t.admin, mqttBody(mqtt.productID, { carrier: 1, physicalNetwork: 1 }))
  const r = await t.admin.get(`/api/v1/devices/${c.id}`)
  assert.is(r.status, 200)
  for (const k of ['gatewayName', 'parentDeviceName', 'clientIP', 'connectedAt', 'keepAlive'])
    assert.is(r.body[k], null, k)
  assert.is(r.body.createUser, 'admin')
  assert.is(r.body.productIntID, mqtt.id)
  assert.is(r.body.productName, mqtt.productName)
  assert.is(r.body.tenantID, c.tenantID)
  assert.equal(
    [
      r.body.authTypeLabel,
      r.body.deviceStatusLabel,
      r.body.deviceTypeLabel,
      r.body.cloudProtocolLabel,
      r.body.upLinkSystemLabel,
    ],
    ['Token', '离线', '终端', 'MQTT', '云'],
  )
  assert.is(r.body.carrierLabel, '中国电信')
})

create('detail in English :: labels from Accept-Language', async () => {
  const c = await newDevice(t.admin, mqttBody(mqtt.productID, { authType: 2, physicalNetwork: 5 }))
  const r = await t.admin.english().get(`/api/v1/devices/${c.id}`)
  assert.equal(
    [
      r.body.authTypeLabel,
      r.body.deviceStatusLabel,
      r.body.deviceTypeLabel,
      r.body.upLinkSystemLabel,
      r.body.physicalNetworkLabel,
    ],
    ['Certificate', 'Offline', 'Terminal', 'Cloud', 'NB-IOT'],
  )
})

create(
  'JSON fields :: location object or string, lora, metaData, scopes returned parsed',
  async () => {
    const json = {
      location: { city: 'Hangzhou', floor: 3 },
      metaData: { a: [1, 2] },
      scopes: [{ lat: 1, lng: 2 }],
      lora: { x: 1 },
    }
    const d = await newDevice(t.admin, mqttBody(mqtt.productID, json))
    assert.equal(
      [d.location, d.metaData, d.scopes, d.lora],
      [json.location, json.metaData, json.scopes, json.lora],
    )
    const s = await newDevice(t.admin, mqttBody(mqtt.productID, { location: 'Room 101' }))
    assert.is((await t.admin.get(`/api/v1/devices/${s.id}`)).body.location, 'Room 101')
    const bad = await t.admin.post(
      '/api/v1/devices',
      mqttBody(mqtt.productID, { location: 5, metaData: [1], scopes: {} }),
    )
    assertRefusal(bad, 422, ['location', 'metaData', 'scopes'])
  },
)

create('numbers as strings :: latitude and longitude stored as numbers', async () => {
  const d = await newDevice(
    t.admin,
    mqttBody(mqtt.productID, { latitude: '30.5', longitude: '-120' }),
  )
  assert.equal([d.latitude, d.longitude], [30.5, -120])
})

create(
  'coordinates of 17 significant digits :: every digit comes back, in the detail and the list, read after read',
  async () => {
    const [lat, lon] = [12.345678901234567, -0.30000000000000004]
    const d = await newDevice(t.admin, mqttBody(mqtt.productID, { latitude: lat, longitude: lon }))
    // the first read of a query answers the driver's rows, later ones one JSON object per row: each must
    for (let k = 0; k < 3; k++) {
      const got = await t.admin.get(`/api/v1/devices/${d.id}`)
      assert.equal([got.body.latitude, got.body.longitude], [lat, lon])
      const list = await t.admin.get<Page<Wire<typeof DeviceListItem>>>(
        `/api/v1/devices?deviceName=${encodeURIComponent(d.deviceName)}`,
      )
      assert.equal(
        list.body.items.map((x) => [x.latitude, x.longitude]),
        [[lat, lon]],
      )
    }
  },
)

create('missing fields :: 422 FORM_INVALID naming each', async () => {
  const r = await t.admin.post('/api/v1/devices', {})
  assertRefusal(r, 422, ['cloudProtocol', 'deviceName', 'deviceType', 'productID'], 'FORM_INVALID')
})

create('out of range and wrong types :: 422 naming every field', async () => {
  const r = await t.admin.post(
    '/api/v1/devices',
    mqttBody(mqtt.productID, {
      deviceType: 2,
      upLinkSystem: 4,
      authType: 3,
      blocked: 2,
      carrier: 5,
      physicalNetwork: 7,
      autoSub: 2,
      latitude: 91,
      longitude: -181,
      deviceConsolePort: 70000,
      modBusIndex: 256,
      deviceName: 'x'.repeat(51),
      gateway: 'a',
      parentDevice: -1,
      description: 5,
      token: '',
    }),
  )
  assertRefusal(r, 422, [
    'authType',
    'autoSub',
    'blocked',
    'carrier',
    'description',
    'deviceConsolePort',
    'deviceName',
    'deviceType',
    'gateway',
    'latitude',
    'longitude',
    'modBusIndex',
    'parentDevice',
    'physicalNetwork',
    'token',
    'upLinkSystem',
  ])
  assert.match(r.body.errors.carrier, /one of 1, 2, 3, 4/)
  assert.match(r.body.errors.latitude, /-90 to 90/)
})

create('deviceID with topic characters or too long :: 422 errors.deviceID', async () => {
  for (const deviceID of ['a/b', 'a+b', 'a#', 'has space', 'x'.repeat(65), '']) {
    const r = await t.admin.post('/api/v1/devices', mqttBody(mqtt.productID, { deviceID }))
    assert.is(r.status, 422, deviceID)
    assert.equal(Object.keys(r.body.errors), ['deviceID'], deviceID)
  }
})

create('unknown or foreign productID :: 404 DATA_NOT_FOUND errors.productID', async () => {
  const r = await t.admin.post('/api/v1/devices', mqttBody('nope00'))
  assert.is(r.status, 404)
  assert.is(r.body.errorCode, 'DATA_NOT_FOUND')
  assert.ok(r.body.errors.productID)
  const other = await t.newTenant()
  const foreign = await newProduct(other, 1)
  const f = await t.admin.post('/api/v1/devices', mqttBody(foreign.productID))
  assert.is(f.status, 404)
  assert.ok(f.body.errors.productID)
})

create(
  'duplicate deviceName :: 400 DATA_EXISTED errors.deviceName; free in another tenant',
  async () => {
    const d = await newDevice(t.admin, mqttBody(mqtt.productID))
    const r = await t.admin.post(
      '/api/v1/devices',
      mqttBody(mqtt.productID, { deviceName: d.deviceName }),
    )
    assertTaken(r, 'deviceName')
    const other = await t.newTenant()
    const p = await newProduct(other, 1)
    assert.is(
      (await other.post('/api/v1/devices', mqttBody(p.productID, { deviceName: d.deviceName })))
        .status,
      201,
    )
  },
)

create(
  'deviceID taken, even in another tenant or by a gateway :: 400 DATA_EXISTED errors.deviceID',
  async () => {
    const deviceID = uniq('shared')
    await newDevice(t.admin, mqttBody(mqtt.productID, { deviceID }))
    const other = await t.newTenant()
    const p = await newProduct(other, 1)
    const r = await other.post('/api/v1/devices', mqttBody(p.productID, { deviceID }))
    assert.is(r.status, 400)
    assert.equal(r.body.errors, { deviceID: 'already exists' })
    const gw = await newGateway(t.admin, mqtt.productID)
    const g = await t.admin.post(
      '/api/v1/devices',
      mqttBody(mqtt.productID, { deviceID: gw.deviceID }),
    )
    assert.is(g.status, 400)
    assert.equal(g.body.errors, { deviceID: 'already exists' })
  },
)

create('non-JSON or non-object body :: 400 BAD_REQUEST', async () => {
  await postNotJson(t.admin, '/api/v1/devices', '{nope')
  assert.is((await t.admin.post('/api/v1/devices', [1])).status, 400)
})

create('SQL-looking strings :: stored verbatim', async () => {
  const deviceName = `x'); DROP TABLE devices; -- ${uniq('s')}`
  const d = await newDevice(
    t.admin,
    mqttBody(mqtt.productID, { deviceName, description: "' OR 1=1 --" }),
  )
  const back = await t.admin.get(
    `/api/v1/devices?deviceName_like=${encodeURIComponent('DROP TABLE')}`,
  )
  assert.is(back.body.meta.count, 1)
  assert.is(back.body.items[0].deviceName, deviceName)
  assert.is(d.description, "' OR 1=1 --")
})

create('viewer :: 403 PERMISSION_DENIED on create', async () => {
  const viewer = await t.userWithRole('viewer')
  const r = await viewer.post('/api/v1/devices', mqttBody(mqtt.productID))
  assert.is(r.status, 403)
  assert.is(r.body.errorCode, 'PERMISSION_DENIED')
})

create('a user (not admin) :: may create, createUser is that user', async () => {
  const user = await t.userWithRole('user')
  const d = await newDevice(user, mqttBody(mqtt.productID))
  const r = await t.admin.get(`/api/v1/devices/${d.id}`)
  assert.match(r.body.createUser, /^user\d+$/)
  assert.is.not(r.body.userIntID, 1)
})

create.run()

const edit = serviceSuite('devices edit', async (svc) => {
  t = svc
  mqtt = await newProduct(t.admin, 1)
})

edit('whole record as read sent back :: 200 write form, updateAt set', async () => {
  const c = await newDevice(t.admin, mqttBody(mqtt.productID))
  const read = (await t.admin.get(`/api/v1/devices/${c.id}`)).body
  const r = await t.admin.put(`/api/v1/devices/${c.id}`, {
    ...read,
    deviceName: `${c.deviceName}-2`,
    softVersion: '2.0',
  })
  assert.is(r.status, 200)
  assert.equal(Object.keys(r.body), WRITE_KEYS)
  assert.is(r.body.deviceName, `${c.deviceName}-2`)
  assert.is(r.body.softVersion, '2.0')
  assert.match(r.body.updateAt, TIME)
  assert.is(r.body.createAt, c.createAt)
  assert.equal(
    [r.body.deviceID, r.body.deviceUsername, r.body.token],
    [c.deviceID, c.deviceUsername, c.token],
  )
})

edit('blocked :: settable on edit', async () => {
  const c = await newDevice(t.admin, mqttBody(mqtt.productID))
  const r = await t.admin.put(`/api/v1/devices/${c.id}`, { blocked: 1 })
  assert.is(r.status, 200)
  assert.is(r.body.blocked, 1)
  assert.is(
    (await t.admin.get(`/api/v1/devices?blocked=1&productID=${mqtt.productID}`)).body.meta.count,
    1,
  )
  assert.is((await t.admin.put(`/api/v1/devices/${c.id}`, { blocked: 3 })).status, 422)
})

edit('absent fields keep, null clears :: 200', async () => {
  const c = await newDevice(
    t.admin,
    mqttBody(mqtt.productID, { description: 'd', manufacturer: 'm', location: { a: 1 } }),
  )
  const r = await t.admin.put(`/api/v1/devices/${c.id}`, { description: null })
  assert.is(r.status, 200)
  assert.equal([r.body.description, r.body.manufacturer, r.body.location], [null, 'm', { a: 1 }])
})

edit(
  'changed credential :: 422 errors.<field> cannot be changed; same value accepted',
  async () => {
    const c = await newDevice(t.admin, mqttBody(mqtt.productID))
    const r = await t.admin.put(`/api/v1/devices/${c.id}`, {
      deviceID: 'other',
      deviceUsername: 'other',
      token: 'other',
    })
    assert.is(r.status, 422)
    assert.equal(r.body.errors, {
      deviceID: 'cannot be changed',
      deviceUsername: 'cannot be changed',
      token: 'cannot be changed',
    })
    const same = await t.admin.put(`/api/v1/devices/${c.id}`, {
      deviceID: c.deviceID,
      deviceUsername: c.deviceUsername,
      token: c.token,
    })
    assert.is(same.status, 200)
  },
)

edit('rename onto a taken name :: 400 DATA_EXISTED errors.deviceName', async () => {
  const a = await newDevice(t.admin, mqttBody(mqtt.productID))
  const b = await newDevice(t.admin, mqttBody(mqtt.productID))
  const r = await t.admin.put(`/api/v1/devices/${b.id}`, { deviceName: a.deviceName })
  assert.is(r.status, 400)
  assert.equal(r.body.errors, { deviceName: 'already exists' })
})

edit('rules hold on edit :: upLinkSystem 2 without gateway is 422 errors.gateway', async () => {
  const c = await newDevice(t.admin, mqttBody(mqtt.productID))
  const r = await t.admin.put(`/api/v1/devices/${c.id}`, { upLinkSystem: 2 })
  assert.is(r.status, 422)
  assert.equal(Object.keys(r.body.errors), ['gateway'])
  const noAuth = await t.admin.put(`/api/v1/devices/${c.id}`, { authType: null })
  assert.is(noAuth.status, 422)
  assert.ok(noAuth.body.errors.authType)
})

edit('moving to another product :: cloudProtocol must follow the product', async () => {
  const c = await newDevice(t.admin, mqttBody(mqtt.productID))
  const http = await newProduct(t.admin, 5)
  const stale = await t.admin.put(`/api/v1/devices/${c.id}`, {
    productID: http.productID,
    cloudProtocol: 1,
  })
  assert.is(stale.status, 422)
  assert.ok(stale.body.errors.cloudProtocol)
  const r = await t.admin.put(`/api/v1/devices/${c.id}`, {
    productID: http.productID,
    cloudProtocol: 5,
  })
  assert.is(r.status, 200)
  assert.equal([r.body.productID, r.body.cloudProtocol], [http.productID, 5])
})

edit('unknown, foreign or non-integer id :: 404 DATA_NOT_FOUND', async () => {
  assert.is((await t.admin.put('/api/v1/devices/999999', { deviceName: 'x' })).status, 404)
  assert.is((await t.admin.get('/api/v1/devices/abc')).status, 404)
  const c = await newDevice(t.admin, mqttBody(mqtt.productID))
  const other = await t.newTenant()
  const r = await other.put(`/api/v1/devices/${c.id}`, { deviceName: 'mine now' })
  assert.is(r.status, 404)
  assert.is(r.body.errorCode, 'DATA_NOT_FOUND')
  assert.is((await other.get(`/api/v1/devices/${c.id}`)).status, 404)
})

edit('viewer :: 403 on edit, detail readable', async () => {
  const c = await newDevice(t.admin, mqttBody(mqtt.productID))
  const viewer = await t.userWithRole('viewer')
  assert.is((await viewer.put(`/api/v1/devices/${c.id}`, { blocked: 1 })).status, 403)
  assert.is((await viewer.get(`/api/v1/devices/${c.id}`)).status, 200)
})

edit.run()
