import * as assert from 'uvu/assert'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { DeviceListItem } from '../../../src/schemas/devices.ts'
import type { Product } from '../../../src/schemas/products.ts'
import { mqttBody, newDevice, newGateway, newProduct } from './devices-helpers.ts'
import { assertRefusal } from '../../_support/asserts.ts'

type Devices = Page<Wire<typeof DeviceListItem>>

let t: TestService
let mqtt: Wire<typeof Product>

const uplink = serviceSuite(
  'devices uplink rules (deviceType, upLinkSystem, gateway, parentDevice)',
  async (svc) => {
    t = svc
    mqtt = await newProduct(t.admin, 1)
  },
)

uplink('rule 2: terminal without upLinkSystem :: 422 errors.upLinkSystem', async () => {
  const r = await t.admin.post(
    '/api/v1/devices',
    mqttBody(mqtt.productID, { upLinkSystem: undefined }),
  )
  assert.is(r.status, 422)
  assert.equal(r.body.errors, { upLinkSystem: 'required when deviceType is 1' })
})

uplink(
  'rule 2: smartphone with upLinkSystem :: 422 errors.upLinkSystem; without :: 201',
  async () => {
    const r = await t.admin.post('/api/v1/devices', mqttBody(mqtt.productID, { deviceType: 3 }))
    assert.is(r.status, 422)
    assert.equal(r.body.errors, { upLinkSystem: 'must be empty unless deviceType is 1' })
    const ok = await t.admin.post(
      '/api/v1/devices',
      mqttBody(mqtt.productID, { deviceType: 3, upLinkSystem: null }),
    )
    assert.is(ok.status, 201)
    assert.is(ok.body.upLinkSystem, null)
  },
)

uplink('rule 3: upLinkSystem 2 without gateway :: 422 errors.gateway', async () => {
  const r = await t.admin.post('/api/v1/devices', mqttBody(mqtt.productID, { upLinkSystem: 2 }))
  assert.is(r.status, 422)
  assert.equal(r.body.errors, { gateway: 'required when upLinkSystem is 2' })
})

uplink(
  'rule 3: unknown gateway, a plain device, or a foreign gateway :: 404 errors.gateway',
  async () => {
    const plain = await newDevice(t.admin, mqttBody(mqtt.productID))
    const other = await t.newTenant()
    const foreign = await newGateway(other, (await newProduct(other, 1)).productID)
    for (const gateway of [999999, plain.id, foreign.id]) {
      const r = await t.admin.post(
        '/api/v1/devices',
        mqttBody(mqtt.productID, { upLinkSystem: 2, gateway }),
      )
      assert.is(r.status, 404, String(gateway))
      assert.is(r.body.errorCode, 'DATA_NOT_FOUND')
      assert.equal(Object.keys(r.body.errors), ['gateway'])
    }
  },
)

uplink(
  'rule 3: valid gateway :: 201; detail names it; ?gateway= lists the devices under it',
  async () => {
    const gw = await newGateway(t.admin, mqtt.productID)
    const d = await newDevice(
      t.admin,
      mqttBody(mqtt.productID, { upLinkSystem: 2, gateway: gw.id }),
    )
    assert.is(d.gateway, gw.id)
    assert.not.ok('gatewayName' in d)
    const detail = await t.admin.get(`/api/v1/devices/${d.id}`)
    assert.is(detail.body.gatewayName, gw.gatewayName)
    const list = await t.admin.get<Devices>(`/api/v1/devices?gateway=${gw.id}`)
    assert.equal(
      list.body.items.map((x) => x.id),
      [d.id],
    )
    assert.not.ok('gatewayName' in list.body.items[0]!)
  },
)

uplink('rules 4-5: upLinkSystem 3 without parentDevice :: 422 errors.parentDevice', async () => {
  const r = await t.admin.post('/api/v1/devices', mqttBody(mqtt.productID, { upLinkSystem: 3 }))
  assert.is(r.status, 422)
  assert.equal(r.body.errors, { parentDevice: 'required when upLinkSystem is 3' })
})

uplink(
  'rules 4-5: unknown parent, a gateway, or a foreign device :: 404 errors.parentDevice',
  async () => {
    const gw = await newGateway(t.admin, mqtt.productID)
    const other = await t.newTenant()
    const foreign = await newDevice(other, mqttBody((await newProduct(other, 1)).productID))
    for (const parentDevice of [999999, gw.id, foreign.id]) {
      const r = await t.admin.post(
        '/api/v1/devices',
        mqttBody(mqtt.productID, { upLinkSystem: 3, parentDevice }),
      )
      assert.is(r.status, 404, String(parentDevice))
      assert.equal(Object.keys(r.body.errors), ['parentDevice'])
    }
  },
)

uplink('child device :: 201 with parentDeviceName; ?parentDevice= lists children', async () => {
  const parent = await newDevice(t.admin, mqttBody(mqtt.productID))
  const child = await newDevice(
    t.admin,
    mqttBody(mqtt.productID, { upLinkSystem: 3, parentDevice: parent.id }),
  )
  assert.equal([child.parentDevice, child.parentDeviceName], [parent.id, parent.deviceName])
  const grandchild = await newDevice(
    t.admin,
    mqttBody(mqtt.productID, { upLinkSystem: 3, parentDevice: child.id }),
  )
  const r = await t.admin.get<Devices>(`/api/v1/devices?parentDevice=${parent.id}`)
  assert.equal(
    r.body.items.map((x) => x.id),
    [child.id],
  )
  assert.is(r.body.items[0]!.parentDevice, parent.id)
  assert.not.ok('parentDeviceName' in r.body.items[0]!)
  assert.is(
    (await t.admin.get(`/api/v1/devices/${grandchild.id}`)).body.parentDeviceName,
    child.deviceName,
  )
})

uplink('parent cycle on edit :: 422 errors.parentDevice (itself, or its descendant)', async () => {
  const a = await newDevice(t.admin, mqttBody(mqtt.productID))
  const b = await newDevice(
    t.admin,
    mqttBody(mqtt.productID, { upLinkSystem: 3, parentDevice: a.id }),
  )
  const c = await newDevice(
    t.admin,
    mqttBody(mqtt.productID, { upLinkSystem: 3, parentDevice: b.id }),
  )
  const self = await t.admin.put(`/api/v1/devices/${a.id}`, { upLinkSystem: 3, parentDevice: a.id })
  assert.is(self.status, 422)
  assert.equal(self.body.errors, { parentDevice: 'a device cannot be its own parent' })
  const cycle = await t.admin.put(`/api/v1/devices/${a.id}`, {
    upLinkSystem: 3,
    parentDevice: c.id,
  })
  assert.is(cycle.status, 422)
  assert.match(cycle.body.errors.parentDevice, /cycle/)
  const fine = await t.admin.put(`/api/v1/devices/${c.id}`, { parentDevice: a.id })
  assert.is(fine.status, 200)
  assert.is(fine.body.parentDeviceName, a.deviceName)
})

uplink('back to the cloud with the stale link sent back :: 200, link dropped', async () => {
  const parent = await newDevice(t.admin, mqttBody(mqtt.productID))
  const child = await newDevice(
    t.admin,
    mqttBody(mqtt.productID, { upLinkSystem: 3, parentDevice: parent.id }),
  )
  const r = await t.admin.put(`/api/v1/devices/${child.id}`, { ...child, upLinkSystem: 1 })
  assert.is(r.status, 200)
  assert.equal([r.body.upLinkSystem, r.body.parentDevice, r.body.parentDeviceName], [1, null, null])
})

uplink('cloudProtocol differs from the product :: 422 errors.cloudProtocol', async () => {
  const r = await t.admin.post('/api/v1/devices', mqttBody(mqtt.productID, { cloudProtocol: 2 }))
  assert.is(r.status, 422)
  assert.equal(r.body.errors, { cloudProtocol: 'must be 1, the cloud protocol of the product' })
})

uplink('several rules broken :: 422 names every field', async () => {
  const r = await t.admin.post(
    '/api/v1/devices',
    mqttBody(mqtt.productID, { upLinkSystem: null, authType: null, cloudProtocol: 3 }),
  )
  assertRefusal(r, 422, ['authType', 'cloudProtocol', 'upLinkSystem'])
})

uplink.run()

const auth = serviceSuite('devices authType rule', (svc) => (t = svc))

auth(
  'MQTT, CoAP, HTTP, WebSocket without authType :: 422 errors.authType; with :: 201',
  async () => {
    for (const protocol of [1, 2, 5, 6]) {
      const p = await newProduct(t.admin, protocol)
      const r = await t.admin.post(
        '/api/v1/devices',
        mqttBody(p.productID, { cloudProtocol: protocol, authType: undefined }),
      )
      assert.is(r.status, 422, `protocol ${protocol}`)
      assert.equal(r.body.errors, { authType: 'required for this cloud protocol' })
      const ok = await t.admin.post(
        '/api/v1/devices',
        mqttBody(p.productID, { cloudProtocol: protocol, authType: 2 }),
      )
      assert.is(ok.status, 201, `protocol ${protocol}`)
    }
  },
)

auth.run()
