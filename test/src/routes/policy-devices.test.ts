import * as assert from 'uvu/assert'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import { insertDevice, tenantOf } from '../../_support/fixtures.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { PolicyCandidateDevice, PolicyListItem } from '../../../src/schemas/policies.ts'
import { kitProduct, kits, uniq, variants } from './_variant.ts'

type Policies = Page<Wire<typeof PolicyListItem>>

for (const v of variants) {
  const k = kits[v]
  let t: TestService
  let tenant: string

  const product = (client = t.admin) => kitProduct(k, client)

  /** Variant B also names the deviceType code (a terminal: 0). */
  const typed = k.v === 'A' ? {} : { deviceType: 0 }

  async function policy(client = t.admin) {
    const r = await client.post('/api/v1/policies', {
      name: uniq('pol'),
      topic: 'data/#',
      access: 0,
      allow: 1,
    })
    assert.is(r.status, 201, r.text)
    return r.body as { id: number; name: string }
  }

  /** `count` devices of a new product of the admin's tenant, with names `${prefix}-i`. */
  async function devices(count: number, prefix = uniq('dev')) {
    const p = await product()
    const ids: number[] = []
    for (let i = 0; i < count; i++)
      ids.push(
        await insertDevice(t, tenant, p.id, {
          deviceName: `${prefix}-${i}`,
          deviceID: `${prefix}-id-${i}`,
        }),
      )
    return { p, ids }
  }

  const bindings = serviceSuite(
    `policy device bindings (Variant ${v})`,
    async (svc) => {
      t = svc
      tenant = await tenantOf(t)
    },
    k.env,
  )

  bindings(
    'bind devices :: 201 policy with mqtt_acl per device; idempotent; absent or empty list 422',
    async () => {
      const pol = await policy()
      const { ids } = await devices(2)
      const r = await t.admin.post(`/api/v1/policies/${pol.id}/devices`, { devicesIntID: ids })
      assert.is(r.status, 201)
      assert.is(r.body.id, pol.id)
      assert.equal(
        r.body.mqtt_acl,
        ids.map((id) => ({ id })),
      )
      const again = await t.admin.post(`/api/v1/policies/${pol.id}/devices`, {
        devicesIntID: [ids[1], ids[1]],
      })
      assert.is(again.status, 201)
      assert.equal(
        again.body.mqtt_acl,
        ids.map((id) => ({ id })),
      )
      for (const body of [{}, { devicesIntID: [] }]) {
        const none = await t.admin.post(`/api/v1/policies/${pol.id}/devices`, body)
        assert.is(none.status, 422)
        assert.is(none.body.errorCode, 'FORM_INVALID')
        assert.ok(none.body.errors.devicesIntID)
      }
      assert.equal(
        (await t.admin.get(`/api/v1/policies/${pol.id}`)).body.mqtt_acl,
        ids.map((id) => ({ id })),
      )
    },
  )

  bindings('bind unknown or foreign device :: 404 errors.devicesIntID, nothing bound', async () => {
    const pol = await policy()
    const { ids } = await devices(1)
    const other = await t.newTenant()
    const foreign = await insertDevice(t, other.tenantID, (await product(other)).id)
    for (const bad of [987654, foreign]) {
      const r = await t.admin.post(`/api/v1/policies/${pol.id}/devices`, {
        devicesIntID: [ids[0], bad],
      })
      assert.is(r.status, 404)
      assert.is(r.body.errorCode, 'DATA_NOT_FOUND')
      assert.match(r.body.errors.devicesIntID, new RegExp(String(bad)))
    }
    assert.equal((await t.admin.get(`/api/v1/policies/${pol.id}`)).body.mqtt_acl, [])
    const badType = await t.admin.post(`/api/v1/policies/${pol.id}/devices`, { devicesIntID: 'x' })
    assert.is(badType.status, 422)
    assert.ok(badType.body.errors.devicesIntID)
    assert.is(
      (await t.admin.post('/api/v1/policies/999999/devices', { devicesIntID: ids })).status,
      404,
    )
  })

  bindings('gateways bind like devices :: 201', async () => {
    const pol = await policy()
    const p = await product()
    const gw = await insertDevice(t, tenant, p.id, { kind: 'gateway' })
    const r = await t.admin.post(`/api/v1/policies/${pol.id}/devices`, { devicesIntID: [gw] })
    assert.is(r.status, 201)
    assert.equal(r.body.mqtt_acl, [{ id: gw }])
  })

  bindings(
    'devices of a policy :: page of {id, deviceID, deviceName, deviceTypeLabel}, filters',
    async () => {
      const pol = await policy()
      const { ids } = await devices(2, 'pd')
      await t.admin.post(`/api/v1/policies/${pol.id}/devices`, { devicesIntID: ids })
      const r = await t.admin.get(`/api/v1/policies/${pol.id}/devices`)
      assert.is(r.status, 200)
      assert.equal(r.body.meta, { count: 2, limit: 10, page: 1, next: null })
      assert.equal(r.body.items[0], {
        id: ids[1],
        deviceID: 'pd-id-1',
        deviceName: 'pd-1',
        ...typed,
        deviceTypeLabel: '终端',
      })
      const en = await t.admin.english().get(`/api/v1/policies/${pol.id}/devices?deviceName=pd-0`)
      assert.equal(en.body.items, [
        {
          id: ids[0],
          deviceID: 'pd-id-0',
          deviceName: 'pd-0',
          ...typed,
          deviceTypeLabel: 'Terminal',
        },
      ])
      assert.is((await t.admin.get('/api/v1/policies/999999/devices')).status, 404)
    },
  )

  bindings('unbind devices :: 204, all or none; unbound id 404 errors.ids', async () => {
    const pol = await policy()
    const { ids } = await devices(3)
    await t.admin.post(`/api/v1/policies/${pol.id}/devices`, { devicesIntID: ids.slice(0, 2) })
    const partly = await t.admin.del(`/api/v1/policies/${pol.id}/devices?ids=${ids[0]},${ids[2]}`)
    assert.is(partly.status, 404)
    assert.match(partly.body.errors.ids, new RegExp(`${ids[2]}$`))
    const r = await t.admin.del(`/api/v1/policies/${pol.id}/devices?ids=${ids[0]},${ids[1]}`)
    assert.is(r.status, 204)
    assert.is(r.text, '')
    assert.equal((await t.admin.get(`/api/v1/policies/${pol.id}`)).body.mqtt_acl, [])
    assert.is((await t.admin.del(`/api/v1/policies?ids=${pol.id}`)).status, 204)
  })

  bindings(
    'not_joined_devices :: page of {id, deviceName, productName}; deviceName, productName, groupName filters',
    async () => {
      const pol = await policy()
      const prefix = uniq('nj')
      const hall = `Hall-${prefix}`
      const { p, ids } = await devices(3, prefix)
      await t.admin.post(`/api/v1/policies/${pol.id}/devices`, { devicesIntID: [ids[0]] })
      const g = (
        await t.admin.post('/api/v1/groups', k.groupBody(p.productID, { groupName: hall }))
      ).body
      await t.admin.post(`/api/v1/groups/${g.id}/devices`, { ids: [ids[2]] })
      const r = await t.admin.get(
        `/api/v1/platform_select/policies/${pol.id}/not_joined_devices?deviceName_like=${prefix}-`,
      )
      assert.is(r.status, 200)
      assert.equal(r.body.meta, { count: 2, limit: 10, page: 1, next: null })
      assert.equal(r.body.items, [
        { id: ids[2], deviceName: `${prefix}-2`, productName: p.productName },
        { id: ids[1], deviceName: `${prefix}-1`, productName: p.productName },
      ])
      const byProduct = await t.admin.get(
        `/api/v1/platform_select/policies/${pol.id}/not_joined_devices?productName_like=${encodeURIComponent(p.productName)}`,
      )
      assert.is(byProduct.body.meta.count, 2)
      const byGroup = await t.admin.get<Page<Wire<typeof PolicyCandidateDevice>>>(
        `/api/v1/platform_select/policies/${pol.id}/not_joined_devices?groupName_like=${hall.toLowerCase()}`,
      )
      assert.equal(
        byGroup.body.items.map((d) => d.id),
        [ids[2]],
      )
      const noGroup = await t.admin.get(
        `/api/v1/platform_select/policies/${pol.id}/not_joined_devices?groupName_like=nosuchgroup`,
      )
      assert.is(noGroup.body.meta.count, 0)
      assert.is(
        (await t.admin.get('/api/v1/platform_select/policies/999999/not_joined_devices')).status,
        404,
      )
    },
  )

  bindings(
    'device policies :: bind 201 with the page, list, not_joined_policies, unbind 204',
    async () => {
      const { ids } = await devices(1)
      const dev = ids[0]!
      const a = await policy()
      const b = await policy()
      const bound = await t.admin.post<Policies>(`/api/v1/devices/${dev}/policies`, {
        ids: [a.id, b.id],
      })
      assert.is(bound.status, 201)
      assert.equal(bound.body.meta, { count: 2, limit: 10, page: 1, next: null })
      assert.equal(
        bound.body.items.map((p) => p.id),
        [b.id, a.id],
      )
      assert.is(bound.body.items[0]!.accessLabel, '发布')
      const again = await t.admin.post(`/api/v1/devices/${dev}/policies`, { ids: [a.id] })
      assert.is(again.body.meta.count, 2)
      const list = await t.admin.get<Policies>(`/api/v1/devices/${dev}/policies?name=${a.name}`)
      assert.equal(
        list.body.items.map((p) => p.id),
        [a.id],
      )
      const candidates = await t.admin.get<Policies>(
        `/api/v1/platform_select/devices/${dev}/not_joined_policies?_limit=1000`,
      )
      assert.is(candidates.status, 200)
      const candidateIds = candidates.body.items.map((p) => p.id)
      assert.not.ok(candidateIds.includes(a.id) || candidateIds.includes(b.id))
      const c = await policy()
      assert.ok(
        (
          await t.admin.get(
            `/api/v1/platform_select/devices/${dev}/not_joined_policies?name=${c.name}`,
          )
        ).body.items.length === 1,
      )
      const missing = await t.admin.del(`/api/v1/devices/${dev}/policies?ids=${a.id},${c.id}`)
      assert.is(missing.status, 404)
      assert.match(missing.body.errors.ids, new RegExp(`${c.id}$`))
      const r = await t.admin.del(`/api/v1/devices/${dev}/policies?ids=${a.id}`)
      assert.is(r.status, 204)
      assert.equal(
        (await t.admin.get<Policies>(`/api/v1/devices/${dev}/policies`)).body.items.map(
          (p) => p.id,
        ),
        [b.id],
      )
    },
  )

  bindings(
    'device policies errors :: unknown policy 404 errors.ids; no ids 422; unknown device 404',
    async () => {
      const { ids } = await devices(1)
      const a = await policy()
      const other = await t.newTenant()
      const theirs = await policy(other)
      for (const bad of [987654, theirs.id]) {
        const r = await t.admin.post(`/api/v1/devices/${ids[0]}/policies`, { ids: [a.id, bad] })
        assert.is(r.status, 404)
        assert.match(r.body.errors.ids, new RegExp(String(bad)))
      }
      assert.is((await t.admin.get(`/api/v1/devices/${ids[0]}/policies`)).body.meta.count, 0)
      const empty = await t.admin.post(`/api/v1/devices/${ids[0]}/policies`, {})
      assert.is(empty.status, 422)
      assert.ok(empty.body.errors.ids)
      for (const path of [
        '/api/v1/devices/999999/policies',
        '/api/v1/platform_select/devices/999999/not_joined_policies',
      ])
        assert.is((await t.admin.get(path)).status, 404, path)
      assert.is(
        (await t.admin.post('/api/v1/devices/999999/policies', { ids: [a.id] })).status,
        404,
      )
    },
  )

  bindings('device deleted :: its bindings go with it, the policy can be deleted', async () => {
    const pol = await policy()
    const { ids } = await devices(1)
    await t.admin.post(`/api/v1/policies/${pol.id}/devices`, { devicesIntID: ids })
    await t.db.run('DELETE FROM devices WHERE id = ?', [ids[0]!])
    assert.equal((await t.admin.get(`/api/v1/policies/${pol.id}`)).body.mqtt_acl, [])
    assert.is((await t.admin.del(`/api/v1/policies?ids=${pol.id}`)).status, 204)
  })

  bindings('tenant isolation :: foreign policy and device 404 on every binding call', async () => {
    const pol = await policy()
    const { ids } = await devices(1)
    await t.admin.post(`/api/v1/policies/${pol.id}/devices`, { devicesIntID: ids })
    const other = await t.newTenant()
    const theirPol = await policy(other)
    assert.is((await other.get(`/api/v1/policies/${pol.id}/devices`)).status, 404)
    assert.is(
      (await other.post(`/api/v1/policies/${pol.id}/devices`, { devicesIntID: ids })).status,
      404,
    )
    assert.is((await other.del(`/api/v1/policies/${pol.id}/devices?ids=${ids[0]}`)).status, 404)
    assert.is(
      (await other.get(`/api/v1/platform_select/policies/${pol.id}/not_joined_devices`)).status,
      404,
    )
    const foreignDevice = await other.post(`/api/v1/policies/${theirPol.id}/devices`, {
      devicesIntID: ids,
    })
    assert.is(foreignDevice.status, 404)
    assert.is((await other.get(`/api/v1/devices/${ids[0]}/policies`)).status, 404)
    assert.is(
      (await other.post(`/api/v1/devices/${ids[0]}/policies`, { ids: [theirPol.id] })).status,
      404,
    )
    assert.is((await other.del(`/api/v1/devices/${ids[0]}/policies?ids=${pol.id}`)).status, 404)
    assert.is(
      (await other.get(`/api/v1/platform_select/devices/${ids[0]}/not_joined_policies`)).status,
      404,
    )
    const theirCandidates = await other.get(
      `/api/v1/platform_select/policies/${theirPol.id}/not_joined_devices`,
    )
    assert.is(theirCandidates.body.meta.count, 0)
  })

  bindings('viewer write :: 403 on every binding write, reads allowed', async () => {
    const viewer = await t.userWithRole('viewer')
    const pol = await policy()
    const { ids } = await devices(1)
    assert.is(
      (await viewer.post(`/api/v1/policies/${pol.id}/devices`, { devicesIntID: ids })).status,
      403,
    )
    assert.is((await viewer.del(`/api/v1/policies/${pol.id}/devices?ids=${ids[0]}`)).status, 403)
    assert.is(
      (await viewer.post(`/api/v1/devices/${ids[0]}/policies`, { ids: [pol.id] })).status,
      403,
    )
    assert.is((await viewer.del(`/api/v1/devices/${ids[0]}/policies?ids=${pol.id}`)).status, 403)
    assert.is((await viewer.get(`/api/v1/devices/${ids[0]}/policies`)).status, 200)
    assert.is((await viewer.get(`/api/v1/policies/${pol.id}/devices`)).status, 200)
  })

  bindings.run()
}
