import * as assert from 'uvu/assert'
import type { Client, TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import { insertDevice, tenantOf } from '../../_support/fixtures.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { CertDevice } from '../../../src/schemas/certs.ts'

let t: TestService
let tenant: string
let productIntID: number

const bindings = serviceSuite('cert devices', async (svc) => {
  t = svc
  tenant = await tenantOf(t)
  productIntID = (
    await t.admin.post('/api/v1/products', { productName: 'Cert product', cloudProtocol: 1 })
  ).body.id
})

const newCert = async (name: string, enable = 1, client: Client = t.admin) =>
  (await client.post('/api/v1/certs', { name, enable, CN: `cn-${name}` })).body as {
    id: number
    CN: string
  }

bindings('bind :: 201 with the page of bound devices {id, deviceID, deviceName}', async () => {
  const c = await newCert('bind1')
  const d1 = await insertDevice(t, tenant, productIntID, { deviceName: 'dev-a', deviceID: 'devA' })
  const d2 = await insertDevice(t, tenant, productIntID, {
    deviceName: 'dev-b',
    deviceID: 'devB',
    kind: 'gateway',
  })
  const r = await t.admin.post<Page<Wire<typeof CertDevice>>>(`/api/v1/certs/${c.id}/devices`, {
    devicesIntID: [d1, d2],
  })
  assert.is(r.status, 201)
  assert.equal(r.body.meta, { count: 2, limit: 10, page: 1, next: null })
  assert.equal(
    r.body.items.sort((a, b) => a.id - b.id),
    [
      { id: d1, deviceID: 'devA', deviceName: 'dev-a' },
      { id: d2, deviceID: 'devB', deviceName: 'dev-b' },
    ],
  )
  const list = await t.admin.get(`/api/v1/certs/${c.id}/devices?deviceName_like=-b`)
  assert.is(list.status, 200)
  assert.equal(list.body, {
    items: [{ id: d2, deviceID: 'devB', deviceName: 'dev-b' }],
    meta: { count: 1, limit: 10, page: 1, next: null },
  })
})

bindings('bind twice :: idempotent, no duplicates', async () => {
  const c = await newCert('bind2')
  const d = await insertDevice(t, tenant, productIntID)
  assert.is(
    (await t.admin.post(`/api/v1/certs/${c.id}/devices`, { devicesIntID: [d, d] })).status,
    201,
  )
  const again = await t.admin.post(`/api/v1/certs/${c.id}/devices`, { devicesIntID: [d] })
  assert.is(again.status, 201)
  assert.is(again.body.meta.count, 1)
})

bindings('bind unknown or foreign device :: 404 errors.devicesIntID, nothing bound', async () => {
  const c = await newCert('bind3')
  const mine = await insertDevice(t, tenant, productIntID)
  const other = await t.newTenant()
  const otherProduct = (
    await other.post('/api/v1/products', { productName: 'P', cloudProtocol: 1 })
  ).body.id
  const foreign = await insertDevice(t, other.tenantID, otherProduct)
  for (const ids of [
    [mine, 987654],
    [mine, foreign],
  ]) {
    const r = await t.admin.post(`/api/v1/certs/${c.id}/devices`, { devicesIntID: ids })
    assert.is(r.status, 404)
    assert.is(r.body.errorCode, 'DATA_NOT_FOUND')
    assert.ok(r.body.errors.devicesIntID)
  }
  assert.is((await t.admin.get(`/api/v1/certs/${c.id}/devices`)).body.meta.count, 0)
  // a foreign tenant cannot bind its devices to my certificate, nor see it
  const r = await other.post(`/api/v1/certs/${c.id}/devices`, { devicesIntID: [foreign] })
  assert.is(r.status, 404)
  assert.ok(r.body.errors.id)
})

bindings('bind bad bodies :: 422 errors.devicesIntID', async () => {
  const c = await newCert('bind4')
  for (const body of [
    {},
    { devicesIntID: [] },
    { devicesIntID: 'x' },
    { devicesIntID: [1.5] },
    { devicesIntID: ['1'] },
  ]) {
    const r = await t.admin.post(`/api/v1/certs/${c.id}/devices`, body)
    assert.is(r.status, 422, JSON.stringify(body))
    assert.is(r.body.errorCode, 'FORM_INVALID')
    assert.ok(
      Object.keys(r.body.errors).some((k) => k.startsWith('devicesIntID')),
      JSON.stringify(r.body.errors),
    )
  }
  assert.is((await t.admin.post('/api/v1/certs/999999/devices', { devicesIntID: [1] })).status, 404)
})

bindings('unbind :: 204, all or none, unbound id 404', async () => {
  const c = await newCert('unbind')
  const [d1, d2, d3] = [
    await insertDevice(t, tenant, productIntID),
    await insertDevice(t, tenant, productIntID),
    await insertDevice(t, tenant, productIntID),
  ]
  await t.admin.post(`/api/v1/certs/${c.id}/devices`, { devicesIntID: [d1, d2] })
  const partly = await t.admin.del(`/api/v1/certs/${c.id}/devices?ids=${d1},${d3}`)
  assert.is(partly.status, 404)
  assert.ok(partly.body.errors.ids)
  assert.is((await t.admin.get(`/api/v1/certs/${c.id}/devices`)).body.meta.count, 2)
  const r = await t.admin.del(`/api/v1/certs/${c.id}/devices?ids=${d1}`)
  assert.is(r.status, 204)
  assert.is(r.text, '')
  assert.equal(
    (
      await t.admin.get<Page<Wire<typeof CertDevice>>>(`/api/v1/certs/${c.id}/devices`)
    ).body.items.map((d) => d.id),
    [d2],
  )
  assert.is((await t.admin.del(`/api/v1/certs/${c.id}/devices?ids=x`)).status, 400)
})

bindings('delete a bound certificate :: 400 REFERENCED_ERROR, 204 once unbound', async () => {
  const c = await newCert('refd')
  const d = await insertDevice(t, tenant, productIntID)
  await t.admin.post(`/api/v1/certs/${c.id}/devices`, { devicesIntID: [d] })
  const r = await t.admin.del(`/api/v1/certs?ids=${c.id}`)
  assert.is(r.status, 400)
  assert.is(r.body.errorCode, 'REFERENCED_ERROR')
  assert.match(r.body.errors.ids, /bound to 1 devices/)
  assert.is((await t.admin.get(`/api/v1/certs/${c.id}`)).status, 200)
  assert.is((await t.admin.del(`/api/v1/certs/${c.id}/devices?ids=${d}`)).status, 204)
  assert.is((await t.admin.del(`/api/v1/certs?ids=${c.id}`)).status, 204)
})

bindings('certsForDevice :: CNs of enabled bound certificates only', async () => {
  const repo = t.svc.deps.meta.certs
  const d = await insertDevice(t, tenant, productIntID)
  const lonely = await insertDevice(t, tenant, productIntID)
  const on1 = await newCert('on1')
  const on2 = await newCert('on2')
  const off = await newCert('off', 0)
  await newCert('unbound')
  for (const c of [on1, on2, off])
    await t.admin.post(`/api/v1/certs/${c.id}/devices`, { devicesIntID: [d] })
  assert.equal(await repo.certsForDevice(d), ['cn-on1', 'cn-on2'])
  assert.equal(await repo.certsForDevice(lonely), [])
  assert.equal(await repo.certsForDevice(987654), [])
  await t.admin.put(`/api/v1/certs/${on1.id}`, { enable: 0 })
  await t.admin.put(`/api/v1/certs/${off.id}`, { enable: 1 })
  assert.equal(await repo.certsForDevice(d), ['cn-off', 'cn-on2'])
  await t.admin.del(`/api/v1/certs/${on2.id}/devices?ids=${d}`)
  assert.equal(await repo.certsForDevice(d), ['cn-off'])
})

bindings.run()
