import * as assert from 'uvu/assert'
import { ADMIN_EMAIL, ADMIN_PASSWORD, Client, type TestService } from '../_support/service.ts'
import { serviceSuite } from '../_support/suite.ts'
import { assertRefusal } from '../_support/asserts.ts'

let t: TestService

const login = serviceSuite('login and callers', (svc) => (t = svc))

login('good credentials :: 201 with token and session fields', async () => {
  const r = await t.anon.post('/api/v1/login', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD })
  assert.is(r.status, 201)
  assert.equal(Object.keys(r.body).sort(), [
    'email',
    'expiresAt',
    'role',
    'tenantID',
    'token',
    'userIntID',
    'username',
  ])
  assert.is(r.body.email, ADMIN_EMAIL)
  assert.is(r.body.role, 'admin')
  const days = (Date.parse(r.body.expiresAt.replace(' ', 'T') + 'Z') - Date.now()) / 86_400_000
  assert.ok(days > 2.9 && days <= 3, `token life ${days} days`)
  const remember = await t.anon.post('/api/v1/login', {
    email: ADMIN_EMAIL,
    password: ADMIN_PASSWORD,
    remember: true,
  })
  const long =
    (Date.parse(remember.body.expiresAt.replace(' ', 'T') + 'Z') - Date.now()) / 86_400_000
  assert.ok(long > 29.9 && long <= 30, `remember life ${long} days`)
})

login('unknown email :: 401 AUTH_FAILED errors.email', async () => {
  const r = await t.anon.post('/api/v1/login', { email: 'nobody@x.y', password: 'whatever1' })
  assert.is(r.status, 401)
  assert.is(r.body.errorCode, 'AUTH_FAILED')
  assert.ok(r.body.errors.email)
})

login('wrong password :: 401 AUTH_FAILED errors.password', async () => {
  const r = await t.anon.post('/api/v1/login', { email: ADMIN_EMAIL, password: 'wrong-password' })
  assert.is(r.status, 401)
  assert.ok(r.body.errors.password)
})

login('no credentials :: 401 AUTH_FAILED', async () => {
  const r = await t.anon.get('/api/v1/products')
  assert.is(r.status, 401)
  assert.is(r.body.errorCode, 'AUTH_FAILED')
})

login('forged, tampered or foreign-scheme tokens :: 401', async () => {
  const good = t.admin.authorization!.slice('Bearer '.length)
  const [h, p, s] = good.split('.')
  const claims = JSON.parse(Buffer.from(p!, 'base64url').toString())
  const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, role: 'admin', sub: 999 })).toString('base64url')}.${s}`
  // the same signature bytes written another way: the last character's two unused bits flipped
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
  const alias = `${s!.slice(0, -1)}${B64[B64.indexOf(s!.at(-1)!) ^ 1]}`
  assert.equal(Buffer.from(alias, 'base64url'), Buffer.from(s!, 'base64url'))
  for (const auth of [
    `Bearer ${forged}`,
    `Bearer ${h}.${p}.${alias}`,
    `Bearer ${h}.${p}.${s!.slice(0, -1)}`,
    `Bearer ${h}.${p}.${s}A`,
    `Bearer ${h}.${p}.`,
    `Bearer ${h}.${p}.${'x'.repeat(10_000)}`,
    'Bearer abc',
    `Token ${good}`,
    'Basic !!!',
    `Basic ${Buffer.from('x:y').toString('base64')}`,
  ]) {
    const r = await new Client(t.url, auth).get('/api/v1/products')
    assert.is(r.status, 401, auth)
  }
})

login('deleted user token :: 401 at once', async () => {
  const email = `gone-${Date.now()}@test.local`
  const u = await t.admin.post('/api/v1/users', {
    username: 'gone',
    email,
    password: 'gone-password',
    role: 'user',
  })
  const s = await t.anon.post('/api/v1/login', { email, password: 'gone-password' })
  const gone = new Client(t.url, `Bearer ${s.body.token}`)
  assert.is((await gone.get('/api/v1/products')).status, 200)
  assert.is((await t.admin.del(`/api/v1/users?ids=${u.body.id}`)).status, 204)
  assert.is((await gone.get('/api/v1/products')).status, 401)
})

login('signup :: new tenant with its admin, isolated', async () => {
  const r = await t.anon.post('/api/v1/signup', {
    email: 'new@tenant.io',
    username: 'n',
    password: 'password-9',
    tenantName: 'New',
  })
  assert.is(r.status, 201)
  assert.is.not(
    r.body.tenantID,
    (await t.anon.post('/api/v1/login', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).body
      .tenantID,
  )
  const dup = await t.anon.post('/api/v1/signup', {
    email: 'NEW@tenant.io',
    username: 'n',
    password: 'password-9',
    tenantName: 'New',
  })
  assert.is(dup.status, 400)
  assert.is(dup.body.errorCode, 'DATA_EXISTED')
  const bad = await t.anon.post('/api/v1/signup', {
    email: 'not-an-email',
    username: '',
    password: 'short',
    tenantName: 'x',
  })
  assertRefusal(bad, 422, ['email', 'password', 'username'])
})

const users = serviceSuite('users and applications', (svc) => (t = svc))

users('user roles :: user may write products, not users; viewer only reads', async () => {
  const user = await t.userWithRole('user')
  assert.is(
    (await user.post('/api/v1/products', { productName: 'by user', cloudProtocol: 1 })).status,
    201,
  )
  const r = await user.get('/api/v1/users')
  assert.is(r.status, 403)
  assert.is(r.body.errorCode, 'PERMISSION_DENIED')
  const viewer = await t.userWithRole('viewer')
  assert.is((await viewer.del('/api/v1/products?ids=1')).status, 403)
})

users('users CRUD :: list, detail, edit role, password never shown', async () => {
  const c = await t.admin.post('/api/v1/users', {
    username: 'bob',
    email: 'bob@x.io',
    password: 'bob-password',
    role: 'viewer',
  })
  assert.is(c.status, 201)
  assert.not.ok('password' in c.body || 'passwordHash' in c.body)
  const list = await t.admin.get('/api/v1/users?email_like=bob')
  assert.is(list.body.meta.count, 1)
  const e = await t.admin.put(`/api/v1/users/${c.body.id}`, { role: 'user' })
  assert.is(e.body.role, 'user')
  assert.ok(e.body.updateAt)
  const bad = await t.admin.post('/api/v1/users', {
    username: 'x',
    email: 'bob@x.io',
    password: 'p',
    role: 'root',
  })
  assertRefusal(bad, 422, ['password', 'role'])
  const self = await t.admin.del(`/api/v1/users?ids=1`)
  assert.is(self.status, 400)
})

users(
  'application :: token shown once, Basic auth works with its role, expired refused',
  async () => {
    const c = await t.admin.post('/api/v1/applications', { appName: 'edge', role: 'viewer' })
    assert.is(c.status, 201)
    assert.match(c.body.appToken, /^[A-Za-z0-9]{40}$/)
    const basic = new Client(
      t.url,
      `Basic ${Buffer.from(`${c.body.appID}:${c.body.appToken}`).toString('base64')}`,
    )
    assert.is((await basic.get('/api/v1/products')).status, 200)
    assert.is(
      (await basic.post('/api/v1/products', { productName: 'app', cloudProtocol: 1 })).status,
      403,
    )
    const detail = await t.admin.get(`/api/v1/applications/${c.body.id}`)
    assert.not.ok('appToken' in detail.body)
    const wrong = new Client(
      t.url,
      `Basic ${Buffer.from(`${c.body.appID}:nope`).toString('base64')}`,
    )
    assert.is((await wrong.get('/api/v1/products')).status, 401)
    await t.admin.put(`/api/v1/applications/${c.body.id}`, { expiredAt: '2001-01-01 00:00:00' })
    assert.is((await basic.get('/api/v1/products')).status, 401)
    const other = await t.newTenant()
    assert.is((await other.get(`/api/v1/applications/${c.body.id}`)).status, 404)
  },
)

login.run()
users.run()
