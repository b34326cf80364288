import * as assert from 'uvu/assert'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { DeviceListItem } from '../../../src/schemas/devices.ts'
import type { Product } from '../../../src/schemas/products.ts'
import type * as ProductsB from '../../../src/variant-b/schemas/products.ts'
import { mqttBody, newDevice, newGateway, newProduct, uniq } from './devices-helpers.ts'
import { created, kits, variants } from './_variant.ts'
import { assertBadIds } from '../../_support/asserts.ts'

type Devices = Page<Wire<typeof DeviceListItem>>
/** A product of either variant (the delete suites run under both). */
type AnyProduct = Wire<typeof Product> | Wire<typeof ProductsB.Product>

let t: TestService
let mqtt: AnyProduct

const LIST_OMITS = [
  'clientIP',
  'connectedAt',
  'createUser',
  'gatewayName',
  'keepAlive',
  'parentDeviceName',
]

const list = serviceSuite('devices list', async (svc) => {
  t = svc
  mqtt = await newProduct(t.admin, 1)
})

list(
  'a _like filter of 256 characters answers; longer ones are 400 PARAMETER_INVALID, never a 500',
  async () => {
    const p = await newProduct(t.admin, 1)
    const d = await newDevice(t.admin, mqttBody(p.productID))
    const at = await t.admin.get(`/api/v1/devices?deviceName_like=${'x'.repeat(256)}`)
    assert.is(at.status, 200, at.text)
    assert.is(at.body.meta.count, 0)
    const found = await t.admin.get(`/api/v1/devices?deviceName_like=${d.deviceName.slice(1)}`)
    assert.is(found.body.meta.count, 1)
    for (const [path, n] of [
      ['/api/v1/devices?deviceName_like=', 257],
      ['/api/v1/devices?deviceName_like=', 60_000],
      ['/api/v1/products?productName_like=', 60_000],
      ['/api/v1/groups?groupName_like=', 60_000],
    ] as const) {
      const r = await t.admin.get(path + 'y'.repeat(n))
      assert.is(r.status, 400, `${path} ${n}: ${r.text.slice(0, 200)}`)
      assert.is(r.body.errorCode, 'PARAMETER_INVALID')
    }
  },
)

list('list :: page envelope, list form with labels, newest first', async () => {
  const p = await newProduct(t.admin, 1)
  const a = await newDevice(t.admin, mqttBody(p.productID))
  const b = await newDevice(t.admin, mqttBody(p.productID))
  const r = await t.admin.get<Devices>(`/api/v1/devices?productID=${p.productID}`)
  assert.is(r.status, 200)
  assert.equal(r.body.meta, { count: 2, limit: 10, page: 1, next: null })
  assert.equal(
    r.body.items.map((d) => d.id),
    [b.id, a.id],
  )
  const item = r.body.items[0]!
  for (const k of LIST_OMITS) assert.not.ok(k in item, k)
  assert.equal(
    [item.productIntID, item.productName, item.cloudProtocolLabel, item.authTypeLabel],
    [p.id, p.productName, 'MQTT', 'Token'],
  )
  assert.equal([item.deviceTypeLabel, item.deviceStatusLabel], ['终端', '离线'])
})

list('English labels :: Accept-Language en', async () => {
  const d = await newDevice(t.admin, mqttBody(mqtt.productID))
  const r = await t.admin.english().get(`/api/v1/devices?deviceID=${d.deviceID}`)
  assert.equal(
    [r.body.items[0].deviceTypeLabel, r.body.items[0].deviceStatusLabel],
    ['Terminal', 'Offline'],
  )
})

list('paging :: _limit and _page, clamp, bad values 400', async () => {
  const p = await newProduct(t.admin, 1)
  for (let i = 0; i < 3; i++) await newDevice(t.admin, mqttBody(p.productID))
  const r = await t.admin.get(`/api/v1/devices?productID=${p.productID}&_limit=2&_page=2`)
  assert.equal(r.body.meta, { count: 3, limit: 2, page: 2, next: null })
  assert.is(r.body.items.length, 1)
  assert.is((await t.admin.get('/api/v1/devices?_limit=5000')).body.meta.limit, 1000)
  const bad = await t.admin.get('/api/v1/devices?_page=0')
  assert.is(bad.status, 400)
  assert.is(bad.body.errorCode, 'PARAMETER_INVALID')
  const badInt = await t.admin.get('/api/v1/devices?parentDevice=x')
  assert.is(badInt.status, 400)
  assert.ok(badInt.body.errors.parentDevice)
})

list(
  'filters :: deviceName, deviceName_like, deviceID, productIntID, manufacturer, serialNumber',
  async () => {
    const p = await newProduct(t.admin, 1)
    const name = uniq('Sensor-Alpha')
    const d = await newDevice(
      t.admin,
      mqttBody(p.productID, { deviceName: name, manufacturer: 'Bosch', serialNumber: 'SN-77' }),
    )
    await newDevice(t.admin, mqttBody(p.productID))
    const ids = async (q: string) =>
      (await t.admin.get<Devices>(`/api/v1/devices?productIntID=${p.id}&${q}`)).body.items.map(
        (x) => x.id,
      )
    assert.equal(await ids(`deviceName=${name}`), [d.id])
    assert.equal(await ids('deviceName_like=sensor-alpha'), [d.id])
    assert.equal(await ids(`deviceID=${d.deviceID}`), [d.id])
    assert.equal(await ids(`deviceID_like=${d.deviceID.slice(3, 12)}`), [d.id])
    assert.equal(await ids('manufacturer=Bosch'), [d.id])
    assert.equal(await ids('serialNumber_like=sn-7'), [d.id])
    assert.is((await ids('')).length, 2)
  },
)

list(
  'filters :: integer codes (deviceType, deviceType_like, authType, blocked, upLinkSystem, cloudProtocol, deviceStatus)',
  async () => {
    const p = await newProduct(t.admin, 5)
    const phone = await newDevice(
      t.admin,
      mqttBody(p.productID, { cloudProtocol: 5, deviceType: 3, upLinkSystem: null, authType: 2 }),
    )
    const term = await newDevice(t.admin, mqttBody(p.productID, { cloudProtocol: 5, blocked: 1 }))
    const ids = async (q: string) =>
      (await t.admin.get<Devices>(`/api/v1/devices?productID=${p.productID}&${q}`)).body.items.map(
        (x) => x.id,
      )
    assert.equal(await ids('deviceType=3'), [phone.id])
    assert.equal(await ids('deviceType_like=3'), [phone.id])
    assert.equal(await ids('deviceType_in=1,3'), [term.id, phone.id])
    assert.equal(await ids('authType=2'), [phone.id])
    assert.equal(await ids('blocked=1'), [term.id])
    assert.equal(await ids('upLinkSystem=1'), [term.id])
    assert.equal(await ids('cloudProtocol=5'), [term.id, phone.id])
    assert.equal(await ids('cloudProtocol=1'), [])
    assert.equal(await ids('deviceStatus=0'), [term.id, phone.id])
  },
)

list('filters :: gateway, parentDevice and groupID', async () => {
  const gw = await newGateway(t.admin, mqtt.productID)
  const parent = await newDevice(t.admin, mqttBody(mqtt.productID))
  const underGw = await newDevice(
    t.admin,
    mqttBody(mqtt.productID, { upLinkSystem: 2, gateway: gw.id }),
  )
  const child = await newDevice(
    t.admin,
    mqttBody(mqtt.productID, { upLinkSystem: 3, parentDevice: parent.id }),
  )
  const ids = async (q: string) =>
    (await t.admin.get<Devices>(`/api/v1/devices?${q}`)).body.items.map((x) => x.id)
  assert.equal(await ids(`gateway=${gw.id}`), [underGw.id])
  assert.equal(await ids(`parentDevice=${parent.id}`), [child.id])
  assert.equal(await ids(`parentDevice=${child.id}`), [])
  const db = t.db
  const groupID = uniq('grp')
  const g = await db.run(
    'INSERT INTO groups (tenant_id, group_id, group_name, product_int_id, create_at) VALUES (?, ?, ?, ?, ?)',
    [parent.tenantID, groupID, groupID, mqtt.id, Date.now()],
  )
  for (const id of [parent.id, child.id])
    await db.run(
      'INSERT INTO group_devices (group_int_id, device_int_id, create_at) VALUES (?, ?, ?)',
      [g.lastId, id, Date.now()],
    )
  assert.equal(await ids(`groupID=${groupID}`), [child.id, parent.id])
  assert.equal(await ids(`groupID=${groupID}&parentDevice=${parent.id}`), [child.id])
  assert.equal(await ids('groupID=no-such-group'), [])
})

list('gateways are not devices :: never listed, /devices/:id 404', async () => {
  const gw = await newGateway(t.admin, mqtt.productID)
  assert.is((await t.admin.get(`/api/v1/devices/${gw.id}`)).status, 404)
  assert.is((await t.admin.get(`/api/v1/devices?deviceID=${gw.deviceID}`)).body.meta.count, 0)
  assert.is((await t.admin.del(`/api/v1/devices?ids=${gw.id}`)).status, 404)
})

list('sorting :: _sort=deviceName&_order=asc; unknown field 400', async () => {
  const p = await newProduct(t.admin, 1)
  for (const n of ['b', 'c', 'a'])
    await newDevice(t.admin, mqttBody(p.productID, { deviceName: `${p.productID}-${n}` }))
  const r = await t.admin.get<Devices>(
    `/api/v1/devices?productID=${p.productID}&_sort=deviceName&_order=asc`,
  )
  assert.equal(
    r.body.items.map((d) => d.deviceName.slice(-1)),
    ['a', 'b', 'c'],
  )
  assert.is((await t.admin.get('/api/v1/devices?_sort=token')).status, 400)
})

list('tenant isolation :: foreign devices never listed, their ids 404', async () => {
  const mine = await newDevice(t.admin, mqttBody(mqtt.productID))
  const other = await t.newTenant()
  const r = await other.get('/api/v1/devices')
  assert.equal(r.body.meta.count, 0)
  assert.is((await other.get(`/api/v1/devices?deviceID=${mine.deviceID}`)).body.meta.count, 0)
  assert.is((await other.get(`/api/v1/devices?productID=${mqtt.productID}`)).body.meta.count, 0)
  assert.is((await other.get(`/api/v1/devices/${mine.id}`)).status, 404)
  assert.is((await other.del(`/api/v1/devices?ids=${mine.id}`)).status, 404)
  assert.is((await t.admin.get(`/api/v1/devices/${mine.id}`)).status, 200)
})

list('viewer :: may list, may not delete', async () => {
  const d = await newDevice(t.admin, mqttBody(mqtt.productID))
  const viewer = await t.userWithRole('viewer')
  assert.is((await viewer.get('/api/v1/devices')).status, 200)
  const r = await viewer.del(`/api/v1/devices?ids=${d.id}`)
  assert.is(r.status, 403)
  assert.is(r.body.errorCode, 'PERMISSION_DENIED')
})

list.run()

for (const v of variants) {
  const k = kits[v]
  const del = serviceSuite(
    `devices delete (Variant ${v})`,
    async (svc) => {
      t = svc
      mqtt = await created(t.admin, '/api/v1/products', k.productBody())
    },
    k.env,
  )

  del('delete :: 204 empty body, then 404', async () => {
    const a = await newDevice(t.admin, k.deviceBody(mqtt.productID))
    const b = await newDevice(t.admin, k.deviceBody(mqtt.productID))
    const r = await t.admin.del(`/api/v1/devices?ids=${a.id},${b.id}`)
    assert.is(r.status, 204)
    assert.is(r.text, '')
    assert.is((await t.admin.get(`/api/v1/devices/${a.id}`)).status, 404)
    assert.is((await t.admin.get(`/api/v1/devices/${b.id}`)).status, 404)
  })

  del('bad, missing or unknown ids :: 400 PARAMETER_INVALID / 404, nothing deleted', async () => {
    const bad = await t.admin.del('/api/v1/devices?ids=abc')
    assertBadIds(bad)
    assert.is((await t.admin.del('/api/v1/devices')).status, 400)
    const d = await newDevice(t.admin, k.deviceBody(mqtt.productID))
    const mixed = await t.admin.del(`/api/v1/devices?ids=${d.id},987654`)
    assert.is(mixed.status, 404)
    assert.is((await t.admin.get(`/api/v1/devices/${d.id}`)).status, 200)
  })

  del(
    'device with child devices (B: a gateway with its devices) :: 400 REFERENCED_ERROR errors.ids; with its children :: 204',
    async () => {
      // Variant B has no parent devices: its devices hang off a gateway (deviceType 1)
      const parent =
        k.v === 'A'
          ? await newDevice(t.admin, k.deviceBody(mqtt.productID))
          : await k.newGateway(t.admin, mqtt.productID)
      const child = await newDevice(
        t.admin,
        k.v === 'A'
          ? mqttBody(mqtt.productID, { upLinkSystem: 3, parentDevice: parent.id })
          : k.childBody(mqtt.productID, parent.id),
      )
      const r = await t.admin.del(`/api/v1/devices?ids=${parent.id}`)
      assert.is(r.status, 400)
      assert.is(r.body.errorCode, 'REFERENCED_ERROR')
      assert.match(r.body.errors.ids, k.v === 'A' ? /child devices/ : /devices/)
      assert.is((await t.admin.get(`/api/v1/devices/${parent.id}`)).status, 200)
      assert.is((await t.admin.del(`/api/v1/devices?ids=${parent.id},${child.id}`)).status, 204)
    },
  )

  del('device in a group, bound to a policy and a cert :: 204, links removed', async () => {
    const d = await newDevice(t.admin, k.deviceBody(mqtt.productID))
    const db = t.db
    const now = Date.now()
    const g = await db.run(
      'INSERT INTO groups (tenant_id, group_id, group_name, product_int_id, create_at) VALUES (?, ?, ?, ?, ?)',
      [d.tenantID, uniq('g'), uniq('g'), mqtt.id, now],
    )
    const p = await db.run(
      'INSERT INTO policies (tenant_id, name, topic, access, allow, create_at) VALUES (?, ?, ?, 0, 1, ?)',
      [d.tenantID, uniq('p'), 'a/b', now],
    )
    const c = await db.run(
      `INSERT INTO certs (tenant_id, name, enable, cn, cert, key, root, create_at) VALUES (?, ?, 1, 'cn', 'c', 'k', 'r', ?)`,
      [d.tenantID, uniq('c'), now],
    )
    await db.run(
      'INSERT INTO group_devices (group_int_id, device_int_id, create_at) VALUES (?, ?, ?)',
      [g.lastId, d.id, now],
    )
    await db.run(
      'INSERT INTO policy_devices (policy_int_id, device_int_id, create_at) VALUES (?, ?, ?)',
      [p.lastId, d.id, now],
    )
    await db.run(
      'INSERT INTO cert_devices (cert_int_id, device_int_id, create_at) VALUES (?, ?, ?)',
      [c.lastId, d.id, now],
    )
    await db.run(
      'INSERT INTO device_subscriptions (tenant_id, device_int_id, topic, create_at) VALUES (?, ?, ?, ?)',
      [d.tenantID, d.id, 't', now],
    )
    assert.is((await t.admin.del(`/api/v1/devices?ids=${d.id}`)).status, 204)
    for (const table of [
      'group_devices',
      'policy_devices',
      'cert_devices',
      'device_subscriptions',
    ]) {
      const row = await db.one(`SELECT count(*) AS n FROM ${table} WHERE device_int_id = ?`, [d.id])
      assert.is(Number(row?.n), 0, table)
    }
    assert.ok(
      await db.one('SELECT 1 FROM groups WHERE id = ?', [g.lastId]),
      'the group itself stays',
    )
  })

  del('a deleted deviceID and name :: free again', async () => {
    const d = await newDevice(t.admin, k.deviceBody(mqtt.productID, { deviceID: uniq('reuse') }))
    await t.admin.del(`/api/v1/devices?ids=${d.id}`)
    const again = await t.admin.post(
      '/api/v1/devices',
      k.deviceBody(mqtt.productID, { deviceID: d.deviceID, deviceName: d.deviceName }),
    )
    assert.is(again.status, 201)
  })

  del.run()
}
