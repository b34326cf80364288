/**
 * Disabling a user (`enable` 0): their tokens stop working here and in another process of the service, their sign-in
 * is refused (said only to the right password), enabling them again lets them sign in anew; a tenant keeps one enabled
 * admin, nobody disables themselves, another tenant's user is a 404, and the audit log says `disable` / `enable`.
 */
import * as assert from 'uvu/assert'
import { Client, startTestService, type TestService } from '../_support/service.ts'
import { serviceSuite } from '../_support/suite.ts'
import type { Page, Wire } from '../_support/wire.ts'
import type { User } from '../../src/schemas/accounts.ts'
import { assertError } from './routes/_product-model.ts'
import { uniq } from './routes/devices-helpers.ts'

type UserWire = Wire<typeof User>

let t: TestService
const test = serviceSuite('users: disable and enable', (svc) => (t = svc))

const login = (email: string, password = 'user-password-1') =>
  t.anon.post('/api/v1/login', { email, password })

test('disable :: tokens 401 "user disabled", sign-in refused, enable :: sign-in again', async () => {
  const u = await t.userWithRole('user')
  const other = await t.userWithRole('user') // a second user of the tenant, untouched
  assert.is((await u.get('/api/v1/products')).status, 200)

  const r = await t.admin.put<UserWire>(`/api/v1/users/${u.id}`, { enable: 0 })
  assert.is(r.status, 200, r.text)
  assert.is(r.body.enable, 0)
  assert.is(r.body.enableLabel, '已停用') // the default language's label

  const refused = await u.get('/api/v1/products')
  assertError(refused, 401, 'AUTH_FAILED', ['authorization'])
  assert.is(refused.body.errors.authorization, 'user disabled')
  assert.is((await other.get('/api/v1/products')).status, 200)

  // the right password learns that the user is disabled; a wrong one learns only that it is wrong
  const right = await login(u.email)
  assertError(right, 401, 'AUTH_FAILED', ['email'])
  assert.is(right.body.errors.email, 'this user is disabled')
  assert.not.ok(right.body.token)
  const wrong = await login(u.email, 'not-the-password')
  assertError(wrong, 401, 'AUTH_FAILED', ['password'])

  // the list filters by it
  const disabled = await t.admin.get<Page<UserWire>>('/api/v1/users?enable=0&_limit=100')
  assert.equal(
    disabled.body.items.map((x) => x.id),
    [u.id],
  )
  const enabled = await t.admin.get<Page<UserWire>>('/api/v1/users?enable=1&_limit=100')
  assert.ok(enabled.body.items.some((x) => x.id === other.id))
  assert.not.ok(enabled.body.items.some((x) => x.id === u.id))

  const back = await t.admin.put<UserWire>(`/api/v1/users/${u.id}`, { enable: 1 })
  assert.is(back.status, 200, back.text)
  assert.is(back.body.enableLabel, '已启用')
  // the old token stays revoked; a new sign-in works
  assertError(await u.get('/api/v1/products'), 401, 'AUTH_FAILED', ['authorization'])
  const again = await login(u.email)
  assert.is(again.status, 201, again.text)
  assert.is(
    (await new Client(t.url, `Bearer ${again.body.token}`).get('/api/v1/products')).status,
    200,
  )
})

test('bad values :: 422 naming enable; a viewer or user cannot disable anyone', async () => {
  const u = await t.userWithRole('viewer')
  for (const enable of [2, -1, 'no', true, null]) {
    assertError(await t.admin.put(`/api/v1/users/${u.id}`, { enable }), 422, 'FORM_INVALID', [
      'enable',
    ])
  }
  const user = await t.userWithRole('user')
  assertError(await user.put(`/api/v1/users/${u.id}`, { enable: 0 }), 403, 'PERMISSION_DENIED', [
    'role',
  ])
  assertError(await u.put(`/api/v1/users/${user.id}`, { enable: 0 }), 403, 'PERMISSION_DENIED', [
    'role',
  ])
  assert.is((await u.get('/api/v1/products')).status, 200)
})

test('oneself :: REFERENCED_ERROR; the last enabled admin :: 400 errors.enable', async () => {
  const tenant = await t.newTenant()
  const [me] = (await tenant.get<Page<UserWire>>('/api/v1/users')).body.items as [UserWire]
  const self = await tenant.put(`/api/v1/users/${me.id}`, { enable: 0 })
  assertError(self, 400, 'REFERENCED_ERROR', ['enable'])
  assert.is((await tenant.get<UserWire>(`/api/v1/users/${me.id}`)).body.enable, 1)

  // through an admin application (which is nobody's self) the last enabled admin still stays
  const app = await tenant.post('/api/v1/applications', { appName: uniq('ops'), role: 'admin' })
  const basic = `Basic ${Buffer.from(`${app.body.appID}:${app.body.appToken}`).toString('base64')}`
  const ops = new Client(t.url, basic)
  assertError(await ops.put(`/api/v1/users/${me.id}`, { enable: 0 }), 400, 'PARAMETER_INVALID', [
    'enable',
  ])

  // a second admin: the first may be disabled; then the second is the last enabled admin, and a disabled admin
  // does not count as the one the tenant keeps (neither for disabling nor for deleting)
  const second = await ops.post<UserWire>('/api/v1/users', {
    username: 'second',
    email: `${uniq('second')}@test.local`,
    password: 'user-password-1',
    role: 'admin',
  })
  assert.is(second.status, 201, second.text)
  assert.is((await ops.put(`/api/v1/users/${me.id}`, { enable: 0 })).status, 200)
  assertError(await tenant.get('/api/v1/users'), 401, 'AUTH_FAILED', ['authorization'])
  assertError(
    await ops.put(`/api/v1/users/${second.body.id}`, { enable: 0 }),
    400,
    'PARAMETER_INVALID',
    ['enable'],
  )
  assertError(
    await ops.put(`/api/v1/users/${second.body.id}`, { role: 'user' }),
    400,
    'PARAMETER_INVALID',
    ['role'],
  )
  assertError(await ops.del(`/api/v1/users?ids=${second.body.id}`), 400, 'PARAMETER_INVALID', [
    'ids',
  ])
  // enabling the first again frees the second
  assert.is((await ops.put(`/api/v1/users/${me.id}`, { enable: 1 })).status, 200)
  assert.is((await ops.put(`/api/v1/users/${second.body.id}`, { enable: 0 })).status, 200)
})

test('another tenant :: its user is a 404 and stays enabled', async () => {
  const a = await t.newTenant()
  const b = await t.newTenant()
  const bUser = await b.post<UserWire>('/api/v1/users', {
    username: 'b-user',
    email: `${uniq('b-user')}@test.local`,
    password: 'user-password-1',
    role: 'user',
  })
  assert.is(bUser.status, 201, bUser.text)
  assertError(await a.put(`/api/v1/users/${bUser.body.id}`, { enable: 0 }), 404, 'DATA_NOT_FOUND', [
    'id',
  ])
  assertError(
    await t.admin.put(`/api/v1/users/${bUser.body.id}`, { enable: 0 }),
    404,
    'DATA_NOT_FOUND',
    ['id'],
  )
  assert.is((await b.get<UserWire>(`/api/v1/users/${bUser.body.id}`)).body.enable, 1)
  assert.is((await login(bUser.body.email)).status, 201)
})

test('audit :: disable and enable rows, and the refused sign-in as login_failed', async () => {
  const u = await t.userWithRole('viewer')
  await t.admin.put(`/api/v1/users/${u.id}`, { enable: 0 })
  await login(u.email)
  await t.admin.put(`/api/v1/users/${u.id}`, { enable: 1 })
  const rows = await t.admin.get<Page<{ action: string; changed: string[]; userIntID: number }>>(
    `/api/v1/audit_logs?resourceType=user&resourceIntID=${u.id}&_limit=100`,
  )
  const actions = rows.body.items.map((r) => r.action)
  assert.equal(actions.filter((a) => a === 'disable').length, 1, actions.join())
  assert.equal(actions.filter((a) => a === 'enable').length, 1, actions.join())
  const disable = rows.body.items.find((r) => r.action === 'disable')
  assert.equal(disable?.changed, ['enable'])
  const failed = await t.admin.get<Page<{ action: string; userIntID: number }>>(
    `/api/v1/audit_logs?action=login_failed&userIntID=${u.id}`,
  )
  assert.is(failed.body.items.length, 1)
})

test('another process of the service :: the disabled user is refused there within seconds', async () => {
  const u = await t.userWithRole('user')
  const other = await startTestService({ DATABASE_URL: t.svc.deps.config.DATABASE_URL })
  try {
    const there = new Client(other.url, u.authorization)
    assert.is((await there.get('/api/v1/products')).status, 200)
    assert.is((await t.admin.put(`/api/v1/users/${u.id}`, { enable: 0 })).status, 200)
    let status = 200
    for (let i = 0; i < 80 && status === 200; i++) {
      await new Promise((r) => setTimeout(r, 100))
      status = (await there.get('/api/v1/products')).status
    }
    assert.is(status, 401)
    assert.is(
      (await other.anon.post('/api/v1/login', { email: u.email, password: 'user-password-1' }))
        .status,
      401,
    )
  } finally {
    await other.close()
  }
})

test.run()
