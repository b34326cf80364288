import * as assert from 'uvu/assert'
import { X509Certificate, createPrivateKey, createSign, createVerify } from 'node:crypto'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import { tenantOf } from '../../_support/fixtures.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { CertListItem } from '../../../src/schemas/certs.ts'
import { assertBadIds, assertRefusal, assertTaken, postNotJson } from '../../_support/asserts.ts'

const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/
let t: TestService

const certs = serviceSuite('certs', (svc) => (t = svc))

const create = (body: Record<string, unknown>, client = t.admin) =>
  client.post('/api/v1/certs', body)

certs('create :: 201 detail with PEM texts, zh label, createUser, updateAt null', async () => {
  const r = await create({ name: 'Gateway cert', enable: 1, CN: 'gw-001' })
  assert.is(r.status, 201)
  const { id, cert, key, root, createAt, ...rest } = r.body
  assert.type(id, 'number')
  assert.match(createAt, TIME)
  assert.match(cert, /^-----BEGIN CERTIFICATE-----\n[\s\S]+-----END CERTIFICATE-----\n?$/)
  assert.match(key, /^-----BEGIN PRIVATE KEY-----\n[\s\S]+-----END PRIVATE KEY-----\n?$/)
  assert.match(root, /^-----BEGIN CERTIFICATE-----\n/)
  assert.equal(rest, {
    name: 'Gateway cert',
    enable: 1,
    enableLabel: '可用',
    CN: 'gw-001',
    createUser: 'admin',
    updateAt: null,
  })
  assert.equal(Object.keys(r.body), [
    'id',
    'name',
    'enable',
    'enableLabel',
    'CN',
    'cert',
    'key',
    'root',
    'createUser',
    'createAt',
    'updateAt',
  ])
  const back = await t.admin.get(`/api/v1/certs/${id}`)
  assert.is(back.status, 200)
  assert.equal(back.body, r.body)
})

certs(
  'issued certificate :: verifies against root, CN matches, key matches, checkIssued',
  async () => {
    const r = await create({ name: 'Crypto', enable: 1, CN: 'sensor-42' })
    const cert = new X509Certificate(r.body.cert)
    const root = new X509Certificate(r.body.root)
    assert.ok(cert.verify(root.publicKey))
    assert.ok(cert.checkIssued(root))
    assert.is(cert.subject, 'CN=sensor-42')
    assert.is(root.subject, `CN=DeviceCloud CA ${await tenantOf(t)}`)
    assert.ok(root.ca)
    assert.not.ok(cert.ca)
    assert.equal(cert.keyUsage, ['1.3.6.1.5.5.7.3.2'])
    const key = createPrivateKey(r.body.key)
    const sig = createSign('SHA256').update('message').sign(key)
    assert.ok(createVerify('SHA256').update('message').verify(cert.publicKey, sig))
    assert.ok(cert.checkPrivateKey(key))
  },
)

certs('CA per tenant :: one root shared by a tenant, another tenant gets its own', async () => {
  const a1 = await create({ name: 'Root A1', enable: 1 })
  const a2 = await create({ name: 'Root A2', enable: 0 })
  assert.is(a1.body.root, a2.body.root)
  const other = await t.newTenant()
  const b = await create({ name: 'Root B', enable: 1 }, other)
  assert.is(b.status, 201)
  assert.is.not(b.body.root, a1.body.root)
  const rootA = new X509Certificate(a1.body.root)
  const rootB = new X509Certificate(b.body.root)
  assert.is(rootB.subject, `CN=DeviceCloud CA ${other.tenantID}`)
  const certB = new X509Certificate(b.body.cert)
  assert.ok(certB.verify(rootB.publicKey))
  assert.not.ok(certB.verify(rootA.publicKey))
  assert.not.ok(certB.checkIssued(rootA))
  const cas = await t.db.all('SELECT tenant_id FROM tenant_cas WHERE tenant_id IN (?, ?)', [
    await tenantOf(t),
    other.tenantID,
  ])
  assert.is(cas.length, 2)
})

certs('CN absent or null :: a random 16-character id; empty or blank CN 422', async () => {
  for (const CN of ['', '  ', '\u3000']) {
    const r = await create({ name: 'Blank CN', enable: 1, CN })
    assert.is(r.status, 422, JSON.stringify(CN))
    assert.equal(r.body, {
      errorCode: 'FORM_INVALID',
      message: 'The request body is invalid',
      errors: { CN: 'must not be empty' },
    })
  }
  const a = await create({ name: 'No CN', enable: 1 })
  const b = await create({ name: 'Null CN', enable: 1, CN: null })
  for (const r of [a, b]) {
    assert.is(r.status, 201)
    assert.match(r.body.CN, /^[A-Za-z0-9]{16}$/)
    assert.is(new X509Certificate(r.body.cert).subject, `CN=${r.body.CN}`)
  }
  assert.is.not(a.body.CN, b.body.CN)
})

certs('SQL-looking and DN-looking values :: stored and issued verbatim', async () => {
  const name = "x'); DROP TABLE certs; --"
  const CN = 'a,O=evil+"q"'
  const r = await create({ name, enable: 1, CN })
  assert.is(r.status, 201)
  assert.is(r.body.name, name)
  assert.is(r.body.CN, CN)
  const list = await t.admin.get(`/api/v1/certs?name_like=${encodeURIComponent('DROP TABLE')}`)
  assert.is(list.body.meta.count, 1)
  assert.is(list.body.items[0].name, name)
})

certs('missing fields :: 422 FORM_INVALID naming name and enable', async () => {
  const r = await create({})
  assertRefusal(r, 422, ['enable', 'name'], 'FORM_INVALID')
})

certs('bad values :: 422 naming every field', async () => {
  const r = await create({ name: '  ', enable: 2, CN: 'x'.repeat(65) })
  assertRefusal(r, 422, ['CN', 'enable', 'name'])
  assert.match(r.body.errors.enable, /one of 0, 1/)
  assert.match(r.body.errors.CN, /64/)
  const types = await create({ name: 5, enable: '1', CN: 7 })
  assertRefusal(types, 422, ['CN', 'enable', 'name'])
  const ctrl = await create({ name: 'ctrl', enable: 1, CN: 'a\nb' })
  assert.is(ctrl.status, 422)
  assert.ok(ctrl.body.errors.CN)
})

certs('non-JSON body :: 400 BAD_REQUEST', async () => {
  await postNotJson(t.admin, '/api/v1/certs', '{nope')
  assert.is((await t.admin.post('/api/v1/certs', [1])).status, 400)
})

certs('duplicate name :: 400 DATA_EXISTED errors.name; free in another tenant', async () => {
  await create({ name: 'Dup', enable: 1 })
  const r = await create({ name: 'Dup', enable: 0 })
  assertTaken(r, 'name')
  const other = await t.newTenant()
  assert.is((await create({ name: 'Dup', enable: 1 }, other)).status, 201)
})

certs('list :: list fields only, filters, English label', async () => {
  for (const [n, e] of [
    ['L-one', 1],
    ['L-two', 0],
    ['L-three', 1],
  ] as const)
    await create({ name: n, enable: e })
  const r = await t.admin
    .english()
    .get<Page<Wire<typeof CertListItem>>>('/api/v1/certs?name_like=l-')
  assert.is(r.status, 200)
  assert.equal(r.body.meta, { count: 3, limit: 10, page: 1, next: null })
  assert.equal(
    r.body.items.map((c) => c.name),
    ['L-three', 'L-two', 'L-one'],
  )
  const item = r.body.items[1]!
  assert.equal(Object.keys(item), ['id', 'name', 'enable', 'enableLabel', 'createAt'])
  assert.is(item.enableLabel, 'Unusable')
  const enabled = await t.admin.get<Page<Wire<typeof CertListItem>>>(
    '/api/v1/certs?name_like=l-&enable=1&_sort=name&_order=asc',
  )
  assert.equal(
    enabled.body.items.map((c) => c.name),
    ['L-one', 'L-three'],
  )
  const bad = await t.admin.get('/api/v1/certs?enable=x')
  assert.is(bad.status, 400)
  assert.is(bad.body.errorCode, 'PARAMETER_INVALID')
  assert.ok(bad.body.errors.enable)
})

certs(
  'edit :: whole record sent back, name and enable changed, PEM texts kept, updateAt set',
  async () => {
    const c = await create({ name: 'Edit me', enable: 1 })
    const r = await t.admin.put(`/api/v1/certs/${c.body.id}`, {
      ...c.body,
      name: 'Edited',
      enable: 0,
    })
    assert.is(r.status, 200)
    assert.is(r.body.name, 'Edited')
    assert.is(r.body.enable, 0)
    assert.is(r.body.enableLabel, '不可用')
    assert.match(r.body.updateAt, TIME)
    for (const k of ['CN', 'cert', 'key', 'root', 'createAt']) assert.is(r.body[k], c.body[k], k)
    const partial = await t.admin.put(`/api/v1/certs/${c.body.id}`, { enable: 1 })
    assert.is(partial.status, 200)
    assert.is(partial.body.name, 'Edited')
    assert.is(partial.body.enable, 1)
    // PEM line endings are not a change
    const crlf = await t.admin.put(`/api/v1/certs/${c.body.id}`, {
      cert: c.body.cert.replace(/\n/g, '\r\n'),
    })
    assert.is(crlf.status, 200)
  },
)

certs('edit immutable fields :: 422 naming each changed one', async () => {
  const c = await create({ name: 'Fixed', enable: 1 })
  const other = await create({ name: 'Other', enable: 1 })
  const r = await t.admin.put(`/api/v1/certs/${c.body.id}`, {
    ...c.body,
    CN: 'new-cn',
    cert: other.body.cert,
    key: other.body.key,
  })
  assertRefusal(r, 422, ['CN', 'cert', 'key'], 'FORM_INVALID')
  assert.is((await t.admin.get(`/api/v1/certs/${c.body.id}`)).body.CN, c.body.CN)
  const bad = await t.admin.put(`/api/v1/certs/${c.body.id}`, { enable: 3, name: '' })
  assertRefusal(bad, 422, ['enable', 'name'])
})

certs('edit to a taken name :: 400 DATA_EXISTED; unknown id 404', async () => {
  const a = await create({ name: 'Taken A', enable: 1 })
  await create({ name: 'Taken B', enable: 1 })
  const r = await t.admin.put(`/api/v1/certs/${a.body.id}`, { name: 'Taken B' })
  assert.is(r.status, 400)
  assert.equal(r.body.errors, { name: 'already exists' })
  assert.is((await t.admin.put(`/api/v1/certs/${a.body.id}`, { name: 'Taken A' })).status, 200)
  const missing = await t.admin.put('/api/v1/certs/999999', { name: 'zz' })
  assert.is(missing.status, 404)
  assert.is(missing.body.errorCode, 'DATA_NOT_FOUND')
  assert.is((await t.admin.get('/api/v1/certs/abc')).status, 404)
})

certs('delete :: 204 empty, then 404; bad and unknown ids', async () => {
  const a = await create({ name: 'Del A', enable: 1 })
  const b = await create({ name: 'Del B', enable: 1 })
  const mixed = await t.admin.del(`/api/v1/certs?ids=${a.body.id},987654`)
  assert.is(mixed.status, 404)
  assert.is((await t.admin.get(`/api/v1/certs/${a.body.id}`)).status, 200)
  const r = await t.admin.del(`/api/v1/certs?ids=${a.body.id},${b.body.id}`)
  assert.is(r.status, 204)
  assert.is(r.text, '')
  assert.is((await t.admin.get(`/api/v1/certs/${a.body.id}`)).status, 404)
  const bad = await t.admin.del('/api/v1/certs?ids=abc')
  assertBadIds(bad)
  assert.is((await t.admin.del('/api/v1/certs')).status, 400)
})

certs('tenant isolation :: foreign id 404 everywhere, never listed', async () => {
  const other = await t.newTenant()
  const mine = await create({ name: 'Secret', enable: 1 })
  assert.is((await other.get(`/api/v1/certs/${mine.body.id}`)).status, 404)
  assert.is((await other.put(`/api/v1/certs/${mine.body.id}`, { name: 'x' })).status, 404)
  assert.is((await other.del(`/api/v1/certs?ids=${mine.body.id}`)).status, 404)
  assert.is((await other.get(`/api/v1/certs/${mine.body.id}/devices`)).status, 404)
  assert.equal((await other.get('/api/v1/certs')).body.meta.count, 0)
  assert.is((await t.admin.get(`/api/v1/certs/${mine.body.id}`)).body.name, 'Secret')
})

certs('viewer :: reads, every write 403 PERMISSION_DENIED', async () => {
  const viewer = await t.userWithRole('viewer')
  const c = await create({ name: 'Viewed', enable: 1 })
  assert.is((await viewer.get('/api/v1/certs')).status, 200)
  assert.is((await viewer.get(`/api/v1/certs/${c.body.id}`)).status, 200)
  for (const r of [
    await viewer.post('/api/v1/certs', { name: 'V', enable: 1 }),
    await viewer.put(`/api/v1/certs/${c.body.id}`, { name: 'V' }),
    await viewer.del(`/api/v1/certs?ids=${c.body.id}`),
    await viewer.post(`/api/v1/certs/${c.body.id}/devices`, { devicesIntID: [1] }),
    await viewer.del(`/api/v1/certs/${c.body.id}/devices?ids=1`),
  ]) {
    assert.is(r.status, 403)
    assert.is(r.body.errorCode, 'PERMISSION_DENIED')
  }
})

certs.run()
