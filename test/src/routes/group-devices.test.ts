import * as assert from 'uvu/assert'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import { insertDevice, tenantOf } from '../../_support/fixtures.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { GroupDevice } from '../../../src/schemas/groups.ts'
import type { GroupDevice as GroupDeviceB } from '../../../src/variant-b/schemas/groups.ts'
import { kitGroup, kitProduct, kits, uniq, variants } from './_variant.ts'

const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/

/** A group's member in either variant's form. */
type Member = Wire<typeof GroupDevice> | Wire<typeof GroupDeviceB>

for (const v of variants) {
  const k = kits[v]
  let t: TestService
  let tenant: string

  const product = (client = t.admin) => kitProduct(k, client)

  const group = (productID: string, client = t.admin) => kitGroup(k, productID, client)

  /** How many devices a group's detail holds: A counts them, B lists them. */
  const countOf = async (id: number) => {
    const g = (await t.admin.get(`/api/v1/groups/${id}`)).body
    return k.v === 'A' ? g.deviceCount : g.devices.length
  }

  /** A product, a group of it and `count` devices of it. */
  async function setup(count = 2) {
    const p = await product()
    const g = await group(p.productID)
    const devices: number[] = []
    for (let i = 0; i < count; i++)
      devices.push(await insertDevice(t, tenant, p.id, { deviceName: uniq('d') }))
    return { p, g, devices }
  }

  const members = serviceSuite(
    `group devices (Variant ${v})`,
    async (svc) => {
      t = svc
      tenant = await tenantOf(t)
    },
    k.env,
  )

  members('add :: 201 {groupIntID, groupID, added, deviceCount}; again is idempotent', async () => {
    const { g, devices } = await setup(2)
    const r = await t.admin.post(`/api/v1/groups/${g.id}/devices`, { ids: devices })
    assert.is(r.status, 201)
    assert.equal(r.body, { groupIntID: g.id, groupID: g.groupID, added: 2, deviceCount: 2 })
    const again = await t.admin.post(`/api/v1/groups/${g.id}/devices`, {
      ids: [devices[0], devices[0]],
    })
    assert.is(again.status, 201)
    assert.equal(again.body, { groupIntID: g.id, groupID: g.groupID, added: 0, deviceCount: 2 })
    assert.is(await countOf(g.id), 2)
  })

  members('add unknown, foreign or gateway id :: 404 errors.ids, nothing added', async () => {
    const { p, g, devices } = await setup(1)
    const other = await t.newTenant()
    const theirProduct = await product(other)
    const foreign = await insertDevice(t, other.tenantID, theirProduct.id)
    const gateway = await insertDevice(t, tenant, p.id, { kind: 'gateway' })
    for (const bad of [987654, foreign, gateway]) {
      const r = await t.admin.post(`/api/v1/groups/${g.id}/devices`, { ids: [devices[0], bad] })
      assert.is(r.status, 404, String(bad))
      assert.is(r.body.errorCode, 'DATA_NOT_FOUND')
      assert.match(r.body.errors.ids, new RegExp(String(bad)))
    }
    assert.is(await countOf(g.id), 0)
  })

  members('add a device of another product :: 422 errors.ids naming the device', async () => {
    const { g } = await setup(0)
    const p2 = await product()
    const stranger = await insertDevice(t, tenant, p2.id, { deviceName: 'wrong-product' })
    const r = await t.admin.post(`/api/v1/groups/${g.id}/devices`, { ids: [stranger] })
    assert.is(r.status, 422)
    assert.is(r.body.errorCode, 'FORM_INVALID')
    assert.match(r.body.errors.ids, new RegExp(`${stranger} \\(wrong-product\\)`))
  })

  members('add with bad body :: 422 errors.ids, 400 non-JSON, 404 unknown group', async () => {
    const { g, devices } = await setup(1)
    for (const body of [{}, { ids: [] }, { ids: 'x' }, { ids: ['1'] }, { ids: [-1] }]) {
      const r = await t.admin.post(`/api/v1/groups/${g.id}/devices`, body)
      assert.is(r.status, 422, JSON.stringify(body))
      assert.ok(
        Object.keys(r.body.errors).some((k) => k.startsWith('ids')),
        JSON.stringify(body),
      )
    }
    const raw = await t.admin.call('POST', `/api/v1/groups/${g.id}/devices`, 'ids=1', {
      'content-type': 'application/json',
    })
    assert.is(raw.status, 400)
    assert.is(raw.body.errorCode, 'BAD_REQUEST')
    assert.is((await t.admin.post('/api/v1/groups/999999/devices', { ids: devices })).status, 404)
  })

  members('list :: page of devices with both status fields, labels, filters', async () => {
    const { p, g, devices } = await setup(3)
    await t.admin.post(`/api/v1/groups/${g.id}/devices`, { ids: devices })
    await t.db.run('UPDATE devices SET device_status = 1 WHERE id = ?', [devices[0]!])
    const r = await t.admin.get<Page<Member>>(`/api/v1/groups/${g.id}/devices`)
    assert.is(r.status, 200)
    assert.equal(r.body.meta, { count: 3, limit: 10, page: 1, next: null })
    const first = r.body.items.find((d) => d.id === devices[0])
    const { deviceID, deviceName, createAt, ...rest } = first!
    assert.type(deviceID, 'string')
    assert.type(deviceName, 'string')
    assert.match(createAt!, TIME)
    assert.equal(
      rest,
      k.v === 'A'
        ? {
            id: devices[0],
            deviceType: 1,
            deviceTypeLabel: '终端',
            deviceStatus: 1,
            deviceStatusLabel: '在线',
            status: 1,
            statusLabel: '在线',
            productID: p.productID,
            productName: p.productName,
          }
        : {
            id: devices[0],
            deviceType: 0,
            deviceTypeLabel: '终端',
            status: 1,
            statusLabel: '在线',
            productID: p.productID,
            productName: p.productName,
          },
    )
    assert.equal(
      r.body.items.map((d) => d.id),
      [...devices].reverse(),
    )
    const en = await t.admin.english().get(`/api/v1/groups/${g.id}/devices?deviceID=${deviceID}`)
    assert.is(en.body.meta.count, 1)
    assert.is(en.body.items[0].statusLabel, 'Online')
    assert.is(en.body.items[0].deviceTypeLabel, 'Terminal')
    const byName = await t.admin.get<Page<Member>>(
      `/api/v1/groups/${g.id}/devices?deviceName_like=${encodeURIComponent(deviceName)}`,
    )
    assert.equal(
      byName.body.items.map((d) => d.id),
      [devices[0]],
    )
    assert.is((await t.admin.get('/api/v1/groups/999999/devices')).status, 404)
  })

  members('remove :: 204, all or none; a non-member is 404 errors.ids', async () => {
    const { g, devices } = await setup(3)
    await t.admin.post(`/api/v1/groups/${g.id}/devices`, { ids: devices.slice(0, 2) })
    const partly = await t.admin.del(
      `/api/v1/groups/${g.id}/devices?ids=${devices[0]},${devices[2]}`,
    )
    assert.is(partly.status, 404)
    assert.match(partly.body.errors.ids, new RegExp(`not in the group: ${devices[2]}$`))
    assert.is(await countOf(g.id), 2)
    const r = await t.admin.del(`/api/v1/groups/${g.id}/devices?ids=${devices[0]},${devices[1]}`)
    assert.is(r.status, 204)
    assert.is(r.text, '')
    assert.is(await countOf(g.id), 0)
    const noIds = await t.admin.del(`/api/v1/groups/${g.id}/devices`)
    assert.is(noIds.status, 400)
    assert.is(noIds.body.errorCode, 'PARAMETER_INVALID')
    // once empty, the group can be deleted
    assert.is((await t.admin.del(`/api/v1/groups?ids=${g.id}`)).status, 204)
  })

  members(
    'not_joined_devices :: plain array of {label, value}, only the product, filter deviceName_like',
    async () => {
      const { p, g, devices } = await setup(3)
      await t.admin.post(`/api/v1/groups/${g.id}/devices`, { ids: [devices[0]] })
      await insertDevice(t, tenant, p.id, { kind: 'gateway', deviceName: 'gw-not-a-member' })
      await insertDevice(t, tenant, (await product()).id, { deviceName: 'other-product' })
      const r = await t.admin.get(`/api/v1/platform_select/groups/${g.id}/not_joined_devices`)
      assert.is(r.status, 200)
      const names = await t.db.all('SELECT id, device_name FROM devices WHERE id IN (?, ?)', [
        devices[1]!,
        devices[2]!,
      ])
      const label = (id: number) => String(names.find((x) => Number(x.id) === id)?.device_name)
      assert.equal(r.body, [
        { label: label(devices[2]!), value: devices[2] },
        { label: label(devices[1]!), value: devices[1] },
      ])
      const filtered = await t.admin.get(
        `/api/v1/platform_select/groups/${g.id}/not_joined_devices?deviceName_like=${label(devices[1]!)}`,
      )
      assert.equal(filtered.body, [{ label: label(devices[1]!), value: devices[1] }])
      const pct = await t.admin.get(
        `/api/v1/platform_select/groups/${g.id}/not_joined_devices?deviceName_like=%25`,
      )
      assert.equal(pct.body, [])
      assert.is(
        (await t.admin.get('/api/v1/platform_select/groups/999999/not_joined_devices')).status,
        404,
      )
    },
  )

  members('device deleted :: its memberships go with it', async () => {
    const { g, devices } = await setup(2)
    await t.admin.post(`/api/v1/groups/${g.id}/devices`, { ids: devices })
    await t.db.run('DELETE FROM devices WHERE id = ?', [devices[0]!])
    assert.is(await countOf(g.id), 1)
  })

  members('tenant isolation :: foreign group 404 on every member call', async () => {
    const { g, devices } = await setup(1)
    await t.admin.post(`/api/v1/groups/${g.id}/devices`, { ids: devices })
    const other = await t.newTenant()
    assert.is((await other.get(`/api/v1/groups/${g.id}/devices`)).status, 404)
    assert.is((await other.post(`/api/v1/groups/${g.id}/devices`, { ids: devices })).status, 404)
    assert.is((await other.del(`/api/v1/groups/${g.id}/devices?ids=${devices[0]}`)).status, 404)
    assert.is(
      (await other.get(`/api/v1/platform_select/groups/${g.id}/not_joined_devices`)).status,
      404,
    )
    assert.is(await countOf(g.id), 1)
  })

  members('viewer write :: 403 on add and remove, list allowed', async () => {
    const { g, devices } = await setup(1)
    const viewer = await t.userWithRole('viewer')
    assert.is((await viewer.post(`/api/v1/groups/${g.id}/devices`, { ids: devices })).status, 403)
    assert.is((await viewer.del(`/api/v1/groups/${g.id}/devices?ids=${devices[0]}`)).status, 403)
    assert.is((await viewer.get(`/api/v1/groups/${g.id}/devices`)).status, 200)
    assert.is(
      (await viewer.get(`/api/v1/platform_select/groups/${g.id}/not_joined_devices`)).status,
      200,
    )
  })

  members.run()
}
