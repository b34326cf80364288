import * as assert from 'uvu/assert'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import { insertDevice, tenantOf } from '../../_support/fixtures.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { PolicyListItem } from '../../../src/schemas/policies.ts'
import { assertRefusal, assertTaken, postNotJson } from '../../_support/asserts.ts'

const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/
type Policies = Page<Wire<typeof PolicyListItem>>
/** A policy record's fields up to its description, in order. */
const POLICY_KEYS = [
  'id',
  'name',
  'topic',
  'access',
  'accessLabel',
  'allow',
  'allowLabel',
  'description',
]
let t: TestService
let tenant: string
let n = 0

async function policy(client = t.admin, extra: Record<string, unknown> = {}) {
  const r = await client.post('/api/v1/policies', {
    name: `pol${++n}`,
    topic: 'data/#',
    access: 0,
    allow: 1,
    ...extra,
  })
  assert.is(r.status, 201, r.text)
  return r.body
}

const policies = serviceSuite('policies', async (svc) => {
  t = svc
  tenant = await tenantOf(t)
})

policies('create :: 201 with the stored record, zh labels, empty mqtt_acl', async () => {
  const r = await t.admin.post('/api/v1/policies', {
    name: 'Read cmds',
    topic: 'cmd/+',
    access: 1,
    allow: 1,
    description: 'd',
  })
  assert.is(r.status, 201)
  const { id, createAt, userIntID, ...rest } = r.body
  assert.type(id, 'number')
  assert.type(userIntID, 'number')
  assert.match(createAt, TIME)
  assert.equal(rest, {
    name: 'Read cmds',
    topic: 'cmd/+',
    access: 1,
    accessLabel: '订阅',
    allow: 1,
    allowLabel: '允许',
    description: 'd',
    mqtt_acl: [],
    createUser: 'admin',
    updateAt: null,
  })
  assert.equal(Object.keys(r.body), [
    ...POLICY_KEYS,
    'mqtt_acl',
    'userIntID',
    'createUser',
    'createAt',
    'updateAt',
  ])
  const en = await t.admin.english().get(`/api/v1/policies/${id}`)
  assert.is(en.status, 200)
  assert.is(en.body.accessLabel, 'Subscribe')
  assert.is(en.body.allowLabel, 'Allow')
})

policies('missing fields :: 422 naming name, topic, access, allow', async () => {
  const r = await t.admin.post('/api/v1/policies', {})
  assertRefusal(r, 422, ['access', 'allow', 'name', 'topic'], 'FORM_INVALID')
})

policies(
  'access and allow out of range or wrong type :: 422 errors.access, errors.allow',
  async () => {
    const r = await t.admin.post('/api/v1/policies', {
      name: 'x',
      topic: 'a',
      access: 3,
      allow: '1',
    })
    assert.is(r.status, 422)
    assert.match(r.body.errors.access, /one of 0, 1, 2/)
    assert.match(r.body.errors.allow, /one of 0, 1/)
  },
)

policies('invalid topic filters :: 422 errors.topic with the reason', async () => {
  const cases: Array<[string, RegExp]> = [
    ['', /must not be empty/],
    ['/abs/topic', /relative/],
    ['a/#/b', /'#' is only allowed as the whole last level/],
    ['a/b#', /'#'/],
    ['a/+b', /'\+' is only allowed as a whole level/],
    ['x'.repeat(201), /at most 200/],
    ['a\u0000b', /NUL/],
  ]
  for (const [topic, why] of cases) {
    const r = await t.admin.post('/api/v1/policies', {
      name: `bad${++n}`,
      topic,
      access: 0,
      allow: 1,
    })
    assert.is(r.status, 422, topic)
    assert.equal(Object.keys(r.body.errors), ['topic'], topic)
    assert.match(r.body.errors.topic, why, topic)
  }
  const notString = await t.admin.post('/api/v1/policies', {
    name: 'x',
    topic: 5,
    access: 0,
    allow: 1,
  })
  assert.is(notString.status, 422)
  assert.ok(notString.body.errors.topic)
})

policies('non-JSON body :: 400 BAD_REQUEST', async () => {
  await postNotJson(t.admin, '/api/v1/policies', 'name=x')
})

policies('duplicate name :: 400 DATA_EXISTED errors.name; free in another tenant', async () => {
  await policy(t.admin, { name: 'Dup' })
  const r = await t.admin.post('/api/v1/policies', { name: 'Dup', topic: 'a', access: 0, allow: 0 })
  assertTaken(r, 'name')
  const other = await t.newTenant()
  assert.is(
    (await other.post('/api/v1/policies', { name: 'Dup', topic: 'a', access: 0, allow: 0 })).status,
    201,
  )
})

policies('SQL-looking values :: stored verbatim', async () => {
  const name = "p'); DROP TABLE policies; --"
  const r = await t.admin.post('/api/v1/policies', { name, topic: "x'/+/#", access: 2, allow: 0 })
  assert.is(r.status, 201)
  const back = await t.admin.get(`/api/v1/policies?name_like=${encodeURIComponent('DROP TABLE')}`)
  assert.is(back.body.meta.count, 1)
  assert.is(back.body.items[0].name, name)
  assert.is(back.body.items[0].topic, "x'/+/#")
})

policies(
  'list :: page envelope, list fields, filters name_like, topic_like, access, allow',
  async () => {
    const a = await policy(t.admin, { name: 'L-one', topic: 'telemetry/+', access: 2, allow: 0 })
    await policy(t.admin, { name: 'L-two', topic: 'cmd', access: 1, allow: 1 })
    const r = await t.admin.get<Policies>('/api/v1/policies?name_like=l-')
    assert.is(r.status, 200)
    assert.equal(r.body.meta, { count: 2, limit: 10, page: 1, next: null })
    assert.equal(
      r.body.items.map((p) => p.name),
      ['L-two', 'L-one'],
    )
    assert.equal(Object.keys(r.body.items[0]!), [
      ...POLICY_KEYS,
      'userIntID',
      'createAt',
      'updateAt',
    ])
    assert.equal(
      (await t.admin.get<Policies>('/api/v1/policies?name_like=l-&access=2')).body.items.map(
        (p) => p.id,
      ),
      [a.id],
    )
    assert.equal(
      (await t.admin.get<Policies>('/api/v1/policies?name_like=l-&allow=0')).body.items.map(
        (p) => p.id,
      ),
      [a.id],
    )
    assert.equal(
      (await t.admin.get<Policies>('/api/v1/policies?topic_like=TELEMETRY')).body.items.map(
        (p) => p.id,
      ),
      [a.id],
    )
    const bad = await t.admin.get('/api/v1/policies?access=x')
    assert.is(bad.status, 400)
    assert.ok(bad.body.errors.access)
  },
)

policies(
  'edit :: 200, updateAt set, whole record as read accepted, absent fields kept',
  async () => {
    const p = await policy()
    const r = await t.admin.put(`/api/v1/policies/${p.id}`, {
      ...p,
      name: 'Edited',
      topic: 'up/#',
      access: 2,
    })
    assert.is(r.status, 200)
    assert.is(r.body.name, 'Edited')
    assert.is(r.body.topic, 'up/#')
    assert.is(r.body.access, 2)
    assert.is(r.body.accessLabel, '发布和订阅')
    assert.is(r.body.allow, p.allow)
    assert.match(r.body.updateAt, TIME)
    const keep = await t.admin.put(`/api/v1/policies/${p.id}`, { description: 'only' })
    assert.is(keep.body.topic, 'up/#')
    assert.is(keep.body.description, 'only')
  },
)

policies('edit errors :: bad topic 422, duplicate name 400, unknown id 404', async () => {
  const a = await policy()
  const b = await policy()
  const topic = await t.admin.put(`/api/v1/policies/${a.id}`, { topic: '#/x', allow: 5 })
  assertRefusal(topic, 422, ['allow', 'topic'])
  const dup = await t.admin.put(`/api/v1/policies/${a.id}`, { name: b.name })
  assert.is(dup.status, 400)
  assert.equal(dup.body.errors, { name: 'already exists' })
  assert.is((await t.admin.put('/api/v1/policies/999999', { name: 'zz' })).status, 404)
  assert.is((await t.admin.get('/api/v1/policies/999999')).status, 404)
})

policies('delete :: 204, then 404; unknown 404; bad ids 400', async () => {
  const p = await policy()
  const r = await t.admin.del(`/api/v1/policies?ids=${p.id}`)
  assert.is(r.status, 204)
  assert.is(r.text, '')
  assert.is((await t.admin.get(`/api/v1/policies/${p.id}`)).status, 404)
  assert.is((await t.admin.del('/api/v1/policies?ids=987654')).status, 404)
  const bad = await t.admin.del('/api/v1/policies?ids=a')
  assert.is(bad.status, 400)
  assert.ok(bad.body.errors.ids)
})

policies('delete a bound policy :: 400 REFERENCED_ERROR, nothing deleted', async () => {
  const product = (
    await t.admin.post('/api/v1/products', { productName: 'Pdel', cloudProtocol: 1 })
  ).body
  const bound = await policy()
  const free = await policy()
  const d = await insertDevice(t, tenant, product.id)
  await t.admin.post(`/api/v1/policies/${bound.id}/devices`, { devicesIntID: [d] })
  const r = await t.admin.del(`/api/v1/policies?ids=${free.id},${bound.id}`)
  assert.is(r.status, 400)
  assert.is(r.body.errorCode, 'REFERENCED_ERROR')
  assert.match(r.body.errors.ids, new RegExp(`policy ${bound.id} .* bound to 1 devices`))
  assert.is((await t.admin.get(`/api/v1/policies/${free.id}`)).status, 200)
})

policies('tenant isolation :: foreign id 404, never listed', async () => {
  const other = await t.newTenant()
  const mine = await policy()
  assert.is((await other.get(`/api/v1/policies/${mine.id}`)).status, 404)
  assert.is((await other.put(`/api/v1/policies/${mine.id}`, { name: 'x' })).status, 404)
  assert.is((await other.del(`/api/v1/policies?ids=${mine.id}`)).status, 404)
  assert.is((await other.get(`/api/v1/policies?name=${mine.name}`)).body.meta.count, 0)
})

policies('viewer write :: 403 PERMISSION_DENIED, read allowed', async () => {
  const viewer = await t.userWithRole('viewer')
  const p = await policy()
  assert.is(
    (await viewer.post('/api/v1/policies', { name: 'v', topic: 'a', access: 0, allow: 0 })).status,
    403,
  )
  assert.is((await viewer.put(`/api/v1/policies/${p.id}`, { name: 'v' })).status, 403)
  const del = await viewer.del(`/api/v1/policies?ids=${p.id}`)
  assert.is(del.status, 403)
  assert.is(del.body.errorCode, 'PERMISSION_DENIED')
  assert.is((await viewer.get(`/api/v1/policies/${p.id}`)).status, 200)
})

policies.run()
