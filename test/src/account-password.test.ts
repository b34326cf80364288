/**
 * Self-service password change, `PUT /api/v1/users/me/password {oldPassword, password}`: every signed-in user
 * (viewers too), never an application; the token used keeps working, the user's other tokens are revoked; a wrong
 * old password is 422 and counts as a failed login.
 */
import * as assert from 'uvu/assert'
import { Client, type Reply, type TestService } from '../_support/service.ts'
import { serviceSuite } from '../_support/suite.ts'
import type { Session } from '../../src/schemas/accounts.ts'
import type { ErrorBody, Wire } from '../_support/wire.ts'
import { assertError } from './routes/_product-model.ts'

let t: TestService
const me = serviceSuite('PUT /users/me/password', (svc) => (t = svc))

const login = async (email: string, password: string) => {
  const r = await t.anon.post<Wire<typeof Session> | ErrorBody>('/api/v1/login', {
    email,
    password,
  })
  // 201 answers the session, anything else the error
  return r.status === 201
    ? new Client(t.url, `Bearer ${(r.body as Wire<typeof Session>).token}`)
    : r
}
const change = (c: Client, oldPassword: unknown, password: unknown) =>
  c.put('/api/v1/users/me/password', { oldPassword, password })

me(
  'a viewer :: 204; the token used still works, another token of theirs is 401; only the new password logs in',
  async () => {
    const v = await t.userWithRole('viewer')
    const second = (await login(v.email, 'user-password-1')) as Client
    assert.is((await second.get('/api/v1/products')).status, 200)
    const r = await change(v, 'user-password-1', 'brand-new-pass-1')
    assert.is(r.status, 204, r.text)
    assert.is(r.text, '')
    assert.is((await v.get('/api/v1/products')).status, 200, 'the token used keeps working')
    const revoked = await second.get('/api/v1/products')
    assertError(revoked, 401, 'AUTH_FAILED', ['authorization'])
    assert.is(revoked.body.errors.authorization, 'token revoked')
    const old = (await login(v.email, 'user-password-1')) as Reply<ErrorBody>
    assertError(old, 401, 'AUTH_FAILED', ['password'])
    const fresh = await login(v.email, 'brand-new-pass-1')
    assert.instance(fresh, Client)
    // twice in a row from the same token: still kept
    assert.is((await change(v, 'brand-new-pass-1', 'brand-new-pass-2')).status, 204)
    assert.is((await v.get('/api/v1/products')).status, 200)
    assert.is((await (fresh as Client).get('/api/v1/products')).status, 401)
  },
)

me('an admin resets the password afterwards :: the kept token is revoked too', async () => {
  const u = await t.userWithRole('user')
  assert.is((await change(u, 'user-password-1', 'mine-pass-123')).status, 204)
  assert.is((await u.get('/api/v1/products')).status, 200)
  assert.is(
    (await t.admin.put(`/api/v1/users/${u.id}`, { password: 'admin-set-pass-1' })).status,
    200,
  )
  assertError(await u.get('/api/v1/products'), 401, 'AUTH_FAILED', ['authorization'])
})

me(
  'a wrong oldPassword :: 422 errors.oldPassword; a short password 422 errors.password; nothing changed',
  async () => {
    const u = await t.userWithRole('user')
    const wrong = await change(u, 'not-my-password', 'another-pass-1')
    assertError(wrong, 422, 'FORM_INVALID', ['oldPassword'])
    const weak = await change(u, 'user-password-1', 'short')
    assertError(weak, 422, 'FORM_INVALID', ['password'])
    assert.is(weak.body.errors.password, 'at least 8 characters')
    assertError(await u.put('/api/v1/users/me/password', {}), 422, 'FORM_INVALID', [
      'oldPassword',
      'password',
    ])
    assert.instance(await login(u.email, 'user-password-1'), Client)
    assert.is((await u.get('/api/v1/products')).status, 200)
  },
)

me('wrong oldPassword 5 times :: then 429 with Retry-After, like failed logins', async () => {
  const u = await t.userWithRole('user')
  for (let i = 0; i < 5; i++)
    assertError(await change(u, `wrong-${i}-pass`, 'another-pass-1'), 422, 'FORM_INVALID', [
      'oldPassword',
    ])
  const locked = await change(u, 'user-password-1', 'another-pass-1')
  assert.is(locked.status, 429, locked.text)
  assert.ok(Number(locked.headers.get('retry-after')) > 0)
})

me('an application, no credentials :: 403 and 401', async () => {
  const app = await t.admin.post('/api/v1/applications', { appName: 'key-1', role: 'admin' })
  assert.is(app.status, 201, app.text)
  const basic = Buffer.from(`${app.body.appID}:${app.body.appToken}`).toString('base64')
  const k = new Client(t.url, `Basic ${basic}`)
  assertError(await change(k, 'x-password-1', 'y-password-1'), 403, 'PERMISSION_DENIED', [
    'authorization',
  ])
  assertError(await change(t.anon, 'x-password-1', 'y-password-1'), 401, 'AUTH_FAILED', [
    'authorization',
  ])
})

me('/users/me and /users/me/password by another method :: 404 and 405, not a user id', async () => {
  assert.is((await t.admin.get('/api/v1/users/me')).status, 404)
  const r = await t.admin.post('/api/v1/users/me/password', {})
  assert.is(r.status, 405, r.text)
  assert.is(r.headers.get('allow'), 'PUT')
})

me.run()
