import * as assert from 'uvu/assert'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import { insertDevice, tenantOf } from '../../_support/fixtures.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { Subscription } from '../../../src/schemas/subscriptions.ts'
import { assertRefusal, restOf } from '../../_support/asserts.ts'

let t: TestService
let tenant: string
let productIntID: number

const device = () => insertDevice(t, tenant, productIntID)

const subs = serviceSuite('device subscriptions', async (svc) => {
  t = svc
  tenant = await tenantOf(t)
  productIntID = (await t.admin.post('/api/v1/products', { productName: 'Subs', cloudProtocol: 1 }))
    .body.id
})

subs('create :: 201 {id, topic, qos, createAt, updateAt}, qos default 1', async () => {
  const d = await device()
  const r = await t.admin.post(`/api/v1/devices/${d}/subscriptions`, { topic: 'cmd/+' })
  assert.is(r.status, 201)
  assert.equal(restOf(r.body), { topic: 'cmd/+', qos: 1, updateAt: null })
  assert.equal(Object.keys(r.body), ['id', 'topic', 'qos', 'createAt', 'updateAt'])
})

subs('qos as number or numeric string :: stored as a number', async () => {
  const d = await device()
  assert.is(
    (await t.admin.post(`/api/v1/devices/${d}/subscriptions`, { topic: 'a', qos: 0 })).body.qos,
    0,
  )
  assert.is(
    (await t.admin.post(`/api/v1/devices/${d}/subscriptions`, { topic: 'b', qos: '2' })).body.qos,
    2,
  )
})

subs('invalid topic and qos :: 422 FORM_INVALID naming both', async () => {
  const d = await device()
  const r = await t.admin.post(`/api/v1/devices/${d}/subscriptions`, { topic: '/abs/#', qos: 3 })
  assertRefusal(r, 422, ['qos', 'topic'], 'FORM_INVALID')
  assert.match(r.body.errors.topic, /relative/)
  assert.match(r.body.errors.qos, /0, 1, 2/)
  const missing = await t.admin.post(`/api/v1/devices/${d}/subscriptions`, {})
  assert.is(missing.status, 422)
  assert.equal(Object.keys(missing.body.errors), ['topic'])
  for (const topic of ['a/#/b', 'x+', '']) {
    const bad = await t.admin.post(`/api/v1/devices/${d}/subscriptions`, { topic })
    assert.is(bad.status, 422, topic)
    assert.ok(bad.body.errors.topic, topic)
  }
  const fraction = await t.admin.post(`/api/v1/devices/${d}/subscriptions`, {
    topic: 'a',
    qos: 1.5,
  })
  assert.is(fraction.status, 422)
  assert.ok(fraction.body.errors.qos)
})

subs('non-JSON body :: 400 BAD_REQUEST', async () => {
  const d = await device()
  const r = await t.admin.call('POST', `/api/v1/devices/${d}/subscriptions`, 'topic', {
    'content-type': 'application/json',
  })
  assert.is(r.status, 400)
  assert.is(r.body.errorCode, 'BAD_REQUEST')
})

subs(
  'duplicate topic for the device :: 400 DATA_EXISTED errors.topic; other device may',
  async () => {
    const d = await device()
    await t.admin.post(`/api/v1/devices/${d}/subscriptions`, { topic: 'dup/#' })
    const r = await t.admin.post(`/api/v1/devices/${d}/subscriptions`, { topic: 'dup/#', qos: 0 })
    assert.is(r.status, 400)
    assert.is(r.body.errorCode, 'DATA_EXISTED')
    assert.ok(r.body.errors.topic)
    assert.is(
      (await t.admin.post(`/api/v1/devices/${await device()}/subscriptions`, { topic: 'dup/#' }))
        .status,
      201,
    )
  },
)

subs('SQL-looking topic :: stored verbatim', async () => {
  const d = await device()
  const topic = "x'); DROP TABLE device_subscriptions; --"
  assert.is((await t.admin.post(`/api/v1/devices/${d}/subscriptions`, { topic })).status, 201)
  const r = await t.admin.get<Page<Wire<typeof Subscription>>>(
    `/api/v1/devices/${d}/subscriptions?topic_like=${encodeURIComponent('DROP')}`,
  )
  assert.equal(
    r.body.items.map((s) => s.topic),
    [topic],
  )
})

subs('list :: page of the device subscriptions only, newest first, filters', async () => {
  const d = await device()
  const other = await device()
  const a = (await t.admin.post(`/api/v1/devices/${d}/subscriptions`, { topic: 'l/a', qos: 0 }))
    .body
  const b = (await t.admin.post(`/api/v1/devices/${d}/subscriptions`, { topic: 'l/b' })).body
  await t.admin.post(`/api/v1/devices/${other}/subscriptions`, { topic: 'l/c' })
  const r = await t.admin.get(`/api/v1/devices/${d}/subscriptions`)
  assert.is(r.status, 200)
  assert.equal(r.body, { items: [b, a], meta: { count: 2, limit: 10, page: 1, next: null } })
  assert.equal((await t.admin.get(`/api/v1/devices/${d}/subscriptions?qos=0`)).body.items, [a])
  assert.equal(
    (await t.admin.get(`/api/v1/devices/${d}/subscriptions?_limit=1&_page=2`)).body.items,
    [a],
  )
})

subs('delete :: 204, all or none; another device subscription is 404 errors.ids', async () => {
  const d = await device()
  const other = await device()
  const a = (await t.admin.post(`/api/v1/devices/${d}/subscriptions`, { topic: 'del/a' })).body
  const theirs = (await t.admin.post(`/api/v1/devices/${other}/subscriptions`, { topic: 'del/b' }))
    .body
  const wrong = await t.admin.del(`/api/v1/devices/${d}/subscriptions?ids=${a.id},${theirs.id}`)
  assert.is(wrong.status, 404)
  assert.match(wrong.body.errors.ids, new RegExp(String(theirs.id)))
  assert.is((await t.admin.get(`/api/v1/devices/${d}/subscriptions`)).body.meta.count, 1)
  const r = await t.admin.del(`/api/v1/devices/${d}/subscriptions?ids=${a.id}`)
  assert.is(r.status, 204)
  assert.is(r.text, '')
  assert.is((await t.admin.get(`/api/v1/devices/${d}/subscriptions`)).body.meta.count, 0)
  const bad = await t.admin.del(`/api/v1/devices/${d}/subscriptions?ids=x`)
  assert.is(bad.status, 400)
  assert.is(bad.body.errorCode, 'PARAMETER_INVALID')
})

subs('unknown device :: 404 on every call', async () => {
  assert.is((await t.admin.get('/api/v1/devices/999999/subscriptions')).status, 404)
  assert.is(
    (await t.admin.post('/api/v1/devices/999999/subscriptions', { topic: 'a' })).status,
    404,
  )
  assert.is((await t.admin.del('/api/v1/devices/999999/subscriptions?ids=1')).status, 404)
})

subs('device deleted :: its subscriptions go with it', async () => {
  const d = await device()
  await t.admin.post(`/api/v1/devices/${d}/subscriptions`, { topic: 'gone' })
  await t.db.run('DELETE FROM devices WHERE id = ?', [d])
  const left = await t.db.one(
    'SELECT count(*) AS n FROM device_subscriptions WHERE device_int_id = ?',
    [d],
  )
  assert.is(Number(left?.n), 0)
})

subs('tenant isolation :: foreign device 404, its subscriptions never seen', async () => {
  const d = await device()
  const s = (await t.admin.post(`/api/v1/devices/${d}/subscriptions`, { topic: 'mine' })).body
  const other = await t.newTenant()
  assert.is((await other.get(`/api/v1/devices/${d}/subscriptions`)).status, 404)
  assert.is((await other.post(`/api/v1/devices/${d}/subscriptions`, { topic: 'x' })).status, 404)
  assert.is((await other.del(`/api/v1/devices/${d}/subscriptions?ids=${s.id}`)).status, 404)
  assert.is((await t.admin.get(`/api/v1/devices/${d}/subscriptions`)).body.meta.count, 1)
})

subs('viewer write :: 403, read allowed', async () => {
  const d = await device()
  const viewer = await t.userWithRole('viewer')
  const r = await viewer.post(`/api/v1/devices/${d}/subscriptions`, { topic: 'v' })
  assert.is(r.status, 403)
  assert.is(r.body.errorCode, 'PERMISSION_DENIED')
  assert.is((await viewer.del(`/api/v1/devices/${d}/subscriptions?ids=1`)).status, 403)
  assert.is((await viewer.get(`/api/v1/devices/${d}/subscriptions`)).status, 200)
})

subs.run()
