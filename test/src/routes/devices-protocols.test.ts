import * as assert from 'uvu/assert'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import type { Wire } from '../../_support/wire.ts'
import type { Product } from '../../../src/schemas/products.ts'
import { newDevice, newGateway, newProduct, uniq, type NewGateway } from './devices-helpers.ts'
import { assertRefusal } from '../../_support/asserts.ts'

let t: TestService
let lwm2m: Wire<typeof Product>
let lora: Wire<typeof Product>
let modbus: Wire<typeof Product>
let gw: NewGateway

const base = (product: Wire<typeof Product>, extra: Record<string, unknown> = {}) => ({
  productID: product.productID,
  deviceName: uniq('dev'),
  deviceType: 1,
  upLinkSystem: 1,
  cloudProtocol: product.cloudProtocol,
  ...extra,
})

const hex = (n: number) =>
  Array.from({ length: n }, () => '0123456789ABCDEF'[Math.floor(Math.random() * 16)]).join('')
const otaa = () => ({ type: 'otaa', appEUI: hex(16), appKey: hex(32), fcntCheck: 1, canJoin: true })
const abp = () => ({
  type: 'abp',
  region: 'EU868',
  nwkSKey: hex(32),
  appSKey: hex(32),
  fcntUp: 0,
  fcntDown: 0,
  fcntCheck: 0,
})

const protocols = serviceSuite(
  'devices per-protocol rules (fields each cloud protocol requires)',
  async (svc) => {
    t = svc
    lwm2m = await newProduct(t.admin, 3)
    lora = await newProduct(t.admin, 4)
    modbus = await newProduct(t.admin, 7)
    gw = await newGateway(t.admin, modbus.productID)
  },
)

protocols('LwM2M without IMEI and autoSub :: 422 errors.IMEI, errors.autoSub', async () => {
  const r = await t.admin.post('/api/v1/devices', base(lwm2m))
  assert.is(r.status, 422)
  assert.equal(r.body.errors, {
    IMEI: 'required for LwM2M products',
    autoSub: 'required for LwM2M products',
  })
})

protocols('LwM2M with IMEI and autoSub, no authType :: 201', async () => {
  const d = await newDevice(t.admin, base(lwm2m, { IMEI: '490154203237518', autoSub: 1 }))
  assert.equal([d.IMEI, d.autoSub, d.authType], ['490154203237518', 1, null])
})

protocols('LoRa without lora.type :: 422 errors["lora.type"]', async () => {
  const r = await t.admin.post('/api/v1/devices', base(lora))
  assert.is(r.status, 422)
  assert.equal(r.body.errors, { 'lora.type': 'required for LoRa products: otaa or abp' })
  const bad = await t.admin.post('/api/v1/devices', base(lora, { lora: { type: 'xyz' } }))
  assert.is(bad.status, 422)
  assert.equal(Object.keys(bad.body.errors), ['lora.type'])
})

protocols('LoRa otaa with nothing else :: 422 naming deviceID and every lora member', async () => {
  const r = await t.admin.post('/api/v1/devices', base(lora, { lora: { type: 'otaa' } }))
  assertRefusal(r, 422, [
    'deviceID',
    'lora.appEUI',
    'lora.appKey',
    'lora.canJoin',
    'lora.fcntCheck',
  ])
  assert.match(r.body.errors.deviceID, /DevEUI/)
})

protocols('LoRa otaa with a deviceID that is no DevEUI :: 422 errors.deviceID', async () => {
  const r = await t.admin.post('/api/v1/devices', base(lora, { deviceID: hex(8), lora: otaa() }))
  assert.is(r.status, 422)
  assert.equal(r.body.errors, { deviceID: 'must be the DevEUI: 16 hex characters' })
})

protocols('LoRa keys of the wrong shape :: 422 errors name the nested member', async () => {
  const r = await t.admin.post(
    '/api/v1/devices',
    base(lora, { deviceID: hex(16), lora: { ...otaa(), appKey: 'zz', appEUI: hex(15) } }),
  )
  assert.is(r.status, 422)
  assert.equal(r.body.errors, {
    'lora.appEUI': 'must be 16 hex characters',
    'lora.appKey': 'must be 32 hex characters',
  })
  const abpBad = await t.admin.post(
    '/api/v1/devices',
    base(lora, { lora: { ...abp(), nwkSKey: hex(31), fcntUp: -1 } }),
  )
  assert.equal(Object.keys(abpBad.body.errors).sort(), ['lora.fcntUp', 'lora.nwkSKey'])
})

protocols('LoRa otaa complete :: 201, deviceID carries the DevEUI, lora stored', async () => {
  const devEUI = hex(16)
  const body = otaa()
  const d = await newDevice(t.admin, base(lora, { deviceID: devEUI, lora: body }))
  assert.is(d.deviceID, devEUI)
  assert.equal(d.lora, body)
  assert.is(d.authType, null)
})

protocols(
  'LoRa abp with nothing else :: 422 naming gateway, deviceID and every lora member',
  async () => {
    const r = await t.admin.post('/api/v1/devices', base(lora, { lora: { type: 'abp' } }))
    assertRefusal(r, 422, [
      'deviceID',
      'gateway',
      'lora.appSKey',
      'lora.fcntCheck',
      'lora.fcntDown',
      'lora.fcntUp',
      'lora.nwkSKey',
      'lora.region',
    ])
    assert.match(r.body.errors.deviceID, /DevAddr/)
  },
)

protocols('LoRa abp with an unknown gateway :: 404 errors.gateway', async () => {
  const r = await t.admin.post(
    '/api/v1/devices',
    base(lora, { deviceID: hex(8), gateway: 999999, lora: abp() }),
  )
  assert.is(r.status, 404)
  assert.equal(Object.keys(r.body.errors), ['gateway'])
})

protocols('LoRa abp complete :: 201 with DevAddr deviceID and the gateway', async () => {
  const devAddr = hex(8)
  const d = await newDevice(t.admin, base(lora, { deviceID: devAddr, gateway: gw.id, lora: abp() }))
  assert.equal([d.deviceID, d.gateway, d.lora!.type], [devAddr, gw.id, 'abp'])
  const wrong = await t.admin.post(
    '/api/v1/devices',
    base(lora, { deviceID: hex(16), gateway: gw.id, lora: abp() }),
  )
  assert.equal(wrong.body.errors, { deviceID: 'must be the DevAddr: 8 hex characters' })
})

protocols('Modbus without modBusIndex and authType :: 422 both', async () => {
  const r = await t.admin.post('/api/v1/devices', base(modbus))
  assert.is(r.status, 422)
  assert.equal(r.body.errors, {
    modBusIndex: 'required for Modbus products',
    authType: 'required for Modbus products',
  })
})

protocols(
  'Modbus modBusIndex out of 0-255 or not an integer :: 422 errors.modBusIndex',
  async () => {
    for (const modBusIndex of [-1, 256, 1.5, '3']) {
      const r = await t.admin.post('/api/v1/devices', base(modbus, { authType: 1, modBusIndex }))
      assert.is(r.status, 422, String(modBusIndex))
      assert.equal(Object.keys(r.body.errors), ['modBusIndex'])
    }
    assert.is(
      (await t.admin.post('/api/v1/devices', base(modbus, { authType: 1, modBusIndex: 0 }))).status,
      201,
    )
    assert.is(
      (await t.admin.post('/api/v1/devices', base(modbus, { authType: 1, modBusIndex: 255 })))
        .status,
      201,
    )
  },
)

protocols(
  'Modbus index taken by a sibling under the same gateway :: 400 DATA_EXISTED errors.modBusIndex',
  async () => {
    const g = await newGateway(t.admin, modbus.productID)
    const g2 = await newGateway(t.admin, modbus.productID)
    await newDevice(
      t.admin,
      base(modbus, { authType: 1, modBusIndex: 5, upLinkSystem: 2, gateway: g.id }),
    )
    const r = await t.admin.post(
      '/api/v1/devices',
      base(modbus, { authType: 1, modBusIndex: 5, upLinkSystem: 2, gateway: g.id }),
    )
    assert.is(r.status, 400)
    assert.is(r.body.errorCode, 'DATA_EXISTED')
    assert.equal(Object.keys(r.body.errors), ['modBusIndex'])
    const other = await t.admin.post(
      '/api/v1/devices',
      base(modbus, { authType: 1, modBusIndex: 5, upLinkSystem: 2, gateway: g2.id }),
    )
    assert.is(other.status, 201)
    const moved = await t.admin.put(`/api/v1/devices/${other.body.id}`, { gateway: g.id })
    assert.is(moved.status, 400)
    assert.equal(Object.keys(moved.body.errors), ['modBusIndex'])
  },
)

protocols(
  'Modbus index taken by a sibling under the same parent :: 400; cloud devices have no siblings',
  async () => {
    const parent = await newDevice(t.admin, base(modbus, { authType: 1, modBusIndex: 9 }))
    const child = base(modbus, {
      authType: 1,
      modBusIndex: 1,
      upLinkSystem: 3,
      parentDevice: parent.id,
    })
    await newDevice(t.admin, child)
    const r = await t.admin.post('/api/v1/devices', { ...child, deviceName: uniq('dev') })
    assert.is(r.status, 400)
    assert.equal(Object.keys(r.body.errors), ['modBusIndex'])
    assert.is(
      (await t.admin.post('/api/v1/devices', base(modbus, { authType: 1, modBusIndex: 9 }))).status,
      201,
    )
  },
)

protocols.run()
