/**
 * Security defaults of accounts and credentials: viewers never read device tokens or private keys (and so cannot
 * act as a device), failed logins are throttled per email and address, a password or role change and logout
 * revoke tokens, a tenant keeps its last admin, and device exports are bounded.
 */
import * as assert from 'uvu/assert'
import { connect as mqttConnect } from 'mqtt'
import { parseCsvRecords } from '../../src/kernel/csv.ts'
import { clientAddress } from '../../src/http/env.ts'
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  Client,
  startTestService,
  waitTask,
  type TestService,
} from '../_support/service.ts'
import { serviceSuite } from '../_support/suite.ts'
import type { Page, Wire } from '../_support/wire.ts'
import type { User } from '../../src/schemas/accounts.ts'
import type { DeviceListItem } from '../../src/schemas/devices.ts'
import type { GatewayListItem } from '../../src/schemas/gateways.ts'
import { assertError } from './routes/_product-model.ts'
import { mqttBody, newDevice, newGateway, newProduct, uniq } from './routes/devices-helpers.ts'

/** Logs in; answers the raw reply. */
const login = (t: TestService, email: string, password: string) =>
  t.anon.post('/api/v1/login', { email, password })

// ---------------------------------------------------------------------------------------------------------------

let t: TestService
const secrets = serviceSuite(
  'security: viewers read no device tokens or private keys',
  (svc) => (t = svc),
)

secrets('devices and gateways :: admin and user read the token, a viewer reads null', async () => {
  const product = await newProduct(t.admin)
  const device = await newDevice(t.admin, mqttBody(product.productID))
  const gateway = await newGateway(t.admin, product.productID)
  const user = await t.userWithRole('user')
  const viewer = await t.userWithRole('viewer')
  for (const [who, c] of [
    ['admin', t.admin],
    ['user', user],
  ] as const) {
    assert.is((await c.get(`/api/v1/devices/${device.id}`)).body.token, device.token, who)
    const list = await c.get(`/api/v1/devices?deviceName=${device.deviceName}`)
    assert.is(list.body.items[0].token, device.token, who)
    assert.is((await c.get(`/api/v1/gateways/${gateway.id}`)).body.token, gateway.token, who)
  }
  const detail = await viewer.get(`/api/v1/devices/${device.id}`)
  assert.is(detail.status, 200)
  assert.is(detail.body.token, null)
  assert.is(detail.body.deviceUsername, device.deviceUsername)
  const list = await viewer.get<Page<Wire<typeof DeviceListItem>>>('/api/v1/devices?_limit=1000')
  assert.ok(list.body.items.length >= 1)
  assert.ok(list.body.items.every((d) => d.token === null))
  assert.is((await viewer.get(`/api/v1/gateways/${gateway.id}`)).body.token, null)
  const gateways = await viewer.get<Page<Wire<typeof GatewayListItem>>>('/api/v1/gateways')
  assert.ok(gateways.body.items.every((g) => g.token === null))
  // what the viewer read does not let it send as the device
  const mqtt = mqttConnect(t.svc.deps.endpoints.mqtt!, {
    clientId: device.deviceID,
    username: device.deviceUsername,
    password: String(detail.body.token ?? ''),
    reconnectPeriod: 0,
    connectTimeout: 5_000,
  })
  const refused = await new Promise<boolean>((resolve) => {
    mqtt.once('connect', () => resolve(false))
    mqtt.once('error', () => resolve(true))
    mqtt.once('close', () => resolve(true))
  })
  mqtt.end(true)
  assert.ok(refused, 'the broker refuses the empty token a viewer read')
})

secrets('certificates :: a viewer reads the certificate but not its private key', async () => {
  const c = await t.admin.post('/api/v1/certs', { name: uniq('cert'), enable: 1 })
  assert.is(c.status, 201, c.text)
  assert.match(c.body.key, /PRIVATE KEY/)
  const viewer = await t.userWithRole('viewer')
  const d = await viewer.get(`/api/v1/certs/${c.body.id}`)
  assert.is(d.status, 200)
  assert.is(d.body.key, null)
  assert.match(d.body.cert, /BEGIN CERTIFICATE/)
  assert.match((await t.admin.get(`/api/v1/certs/${c.body.id}`)).body.key, /PRIVATE KEY/)
})

secrets(
  'exports :: a viewer exports without tokens and may not download a file with them',
  async () => {
    const product = await newProduct(t.admin)
    const device = await newDevice(t.admin, mqttBody(product.productID))
    const viewer = await t.userWithRole('viewer')
    const mine = await viewer.get(`/api/v1/devices_export?deviceName=${device.deviceName}`)
    assert.is(mine.status, 202, mine.text)
    const task = await waitTask(viewer, mine.body.statusUrl)
    assert.is(task.status, 3, JSON.stringify(task))
    const file = await viewer.get(task.result.fileUrl)
    assert.is(file.status, 200, file.text)
    const [row] = parseCsvRecords(file.text).records
    assert.is(row!.deviceName, device.deviceName)
    assert.is(row!.token, undefined, 'the token column is empty')

    const theirs = await t.admin.get(`/api/v1/devices_export?deviceName=${device.deviceName}`)
    const adminTask = await waitTask(t.admin, theirs.body.statusUrl)
    assertError(await viewer.get(adminTask.result.fileUrl), 403, 'PERMISSION_DENIED', ['taskID'])
    const full = await t.admin.get(adminTask.result.fileUrl)
    assert.is(parseCsvRecords(full.text).records[0]!.token, device.token)
  },
)

// ---------------------------------------------------------------------------------------------------------------

let clock = Date.now()
let l: TestService
const logins = serviceSuite(
  'security: failed logins are throttled per email and address',
  (svc) => (l = svc),
  { LOGIN_LOCK_SECONDS: '60' },
  { now: () => clock },
)

logins(
  '5 wrong passwords :: 401 each; then 429 with Retry-After, even for the right password',
  async () => {
    const u = await l.userWithRole('user')
    for (let i = 0; i < 5; i++) {
      assertError(await login(l, u.email, 'wrong-password'), 401, 'AUTH_FAILED', ['password'])
    }
    const locked = await login(l, u.email, 'wrong-password')
    assertError(locked, 429, 'TOO_MANY_REQUESTS', ['email'])
    assert.is(locked.headers.get('retry-after'), '60')
    assertError(await login(l, u.email, 'user-password-1'), 429, 'TOO_MANY_REQUESTS', ['email'])
    // another email from the same address is not locked
    assert.is((await login(l, ADMIN_EMAIL, ADMIN_PASSWORD)).status, 201)

    // the lock ends; one more failure locks again, twice as long
    clock += 61_000
    assertError(await login(l, u.email, 'wrong-password'), 401, 'AUTH_FAILED', ['password'])
    const again = await login(l, u.email, 'wrong-password')
    assertError(again, 429, 'TOO_MANY_REQUESTS', ['email'])
    assert.is(again.headers.get('retry-after'), '120')
    clock += 121_000
    // a good login ends the series: the next failures count from zero
    assert.is((await login(l, u.email, 'user-password-1')).status, 201)
    for (let i = 0; i < 4; i++)
      assertError(await login(l, u.email, 'wrong-password'), 401, 'AUTH_FAILED', ['password'])
    assert.is((await login(l, u.email, 'user-password-1')).status, 201)
  },
)

logins('unknown emails are counted too :: the 6th try is 429', async () => {
  const email = `${uniq('nobody')}@test.local`
  for (let i = 0; i < 5; i++) assertError(await login(l, email, 'x'), 401, 'AUTH_FAILED', ['email'])
  assertError(await login(l, email, 'x'), 429, 'TOO_MANY_REQUESTS', ['email'])
})

logins('failures spread over more than the window :: never locked', async () => {
  const u = await l.userWithRole('viewer')
  for (let i = 0; i < 8; i++) {
    assertError(await login(l, u.email, 'wrong'), 401, 'AUTH_FAILED', ['password'])
    clock += 4 * 60_000 // 4 failures at most within any 15 minutes
  }
})

logins(
  'X-Forwarded-For from a client :: ignored, the socket address is the one counted',
  async () => {
    const u = await l.userWithRole('user')
    const from = (ip: string, password: string) =>
      l.anon.post('/api/v1/login', { email: u.email, password }, { 'x-forwarded-for': ip })
    for (let i = 0; i < 5; i++)
      assertError(await from(`10.0.0.${i}`, 'wrong'), 401, 'AUTH_FAILED', ['password'])
    assertError(await from('10.0.0.99', 'wrong'), 429, 'TOO_MANY_REQUESTS', ['email'])
  },
)

logins(
  'clientAddress :: the right-most untrusted hop behind a trusted proxy, else the socket',
  () => {
    const trusted = new Set(['127.0.0.1', '10.0.0.2'])
    assert.is(clientAddress('127.0.0.1', '203.0.113.7', trusted), '203.0.113.7')
    assert.is(clientAddress('127.0.0.1', 'spoofed, 203.0.113.7, 10.0.0.2', trusted), '203.0.113.7')
    assert.is(clientAddress('127.0.0.1', '::ffff:203.0.113.8', trusted), '203.0.113.8')
    assert.is(clientAddress('198.51.100.1', '203.0.113.7', trusted), '198.51.100.1')
    assert.is(clientAddress('127.0.0.1', undefined, trusted), '127.0.0.1')
    assert.is(clientAddress('127.0.0.1', '10.0.0.2', trusted), '10.0.0.2')
    assert.is(clientAddress(null, '203.0.113.7', trusted), null)
  },
)

let pr: TestService
const proxied = serviceSuite(
  'security: behind a trusted proxy, logins are counted per forwarded address',
  (svc) => (pr = svc),
  { TRUSTED_PROXIES: '127.0.0.1' },
)

proxied('5 failures from one forwarded address :: that address locked, another not', async () => {
  const u = await pr.userWithRole('user')
  const from = (ip: string, password: string) =>
    pr.anon.post('/api/v1/login', { email: u.email, password }, { 'x-forwarded-for': ip })
  for (let i = 0; i < 5; i++)
    assertError(await from('203.0.113.7', 'wrong'), 401, 'AUTH_FAILED', ['password'])
  assertError(await from('203.0.113.7', 'user-password-1'), 429, 'TOO_MANY_REQUESTS', ['email'])
  assert.is((await from('203.0.113.8', 'user-password-1')).status, 201)
})

// ---------------------------------------------------------------------------------------------------------------

let a: TestService
const tokens = serviceSuite(
  'security: tokens are revoked by a password or role change and by logout',
  (svc) => (a = svc),
)

tokens('a password change :: the old token is 401 at once, a new login works', async () => {
  const u = await a.userWithRole('user')
  assert.is((await u.get('/api/v1/products')).status, 200)
  const r = await a.admin.put(`/api/v1/users/${u.id}`, { password: 'new-password-22' })
  assert.is(r.status, 200, r.text)
  const revoked = await u.get('/api/v1/products')
  assertError(revoked, 401, 'AUTH_FAILED', ['authorization'])
  assert.is(revoked.body.errors.authorization, 'token revoked')
  assertError(await login(a, u.email, 'user-password-1'), 401, 'AUTH_FAILED', ['password'])
  assert.is((await login(a, u.email, 'new-password-22')).status, 201)
})

tokens('a role change revokes; a name change does not', async () => {
  const u = await a.userWithRole('user')
  assert.is((await a.admin.put(`/api/v1/users/${u.id}`, { username: uniq('renamed') })).status, 200)
  assert.is((await u.get('/api/v1/products')).status, 200)
  assert.is((await a.admin.put(`/api/v1/users/${u.id}`, { role: 'viewer' })).status, 200)
  assertError(await u.get('/api/v1/products'), 401, 'AUTH_FAILED', ['authorization'])
})

tokens('the revocation reaches another process of the service within seconds', async () => {
  const u = await a.userWithRole('user')
  // a second service process over the same database, serving the same tokens (same JWT secret in the store)
  const other = await startTestService({ DATABASE_URL: a.svc.deps.config.DATABASE_URL })
  try {
    const there = new Client(other.url, u.authorization)
    assert.is((await there.get('/api/v1/products')).status, 200)
    assert.is(
      (await a.admin.put(`/api/v1/users/${u.id}`, { password: 'other-pass-33' })).status,
      200,
    )
    let status = 200
    for (let i = 0; i < 80 && status === 200; i++) {
      await new Promise((r) => setTimeout(r, 100))
      status = (await there.get('/api/v1/products')).status
    }
    assert.is(status, 401)
  } finally {
    await other.close()
  }
})

tokens('logout :: 204, that token is 401, another token of the user still works', async () => {
  const u = await a.userWithRole('viewer')
  const second = await login(a, u.email, 'user-password-1')
  const other = new Client(a.url, `Bearer ${second.body.token}`)
  const r = await u.post('/api/v1/logout')
  assert.is(r.status, 204, r.text)
  const after = await u.get('/api/v1/products')
  assertError(after, 401, 'AUTH_FAILED', ['authorization'])
  assert.is(after.body.errors.authorization, 'token revoked')
  assertError(await u.post('/api/v1/logout'), 401, 'AUTH_FAILED', ['authorization'])
  assert.is((await other.get('/api/v1/products')).status, 200)
})

tokens('logout without a user token :: 401 anonymous, 400 for an application', async () => {
  const anon = await a.anon.post('/api/v1/logout')
  assertError(anon, 401, 'AUTH_FAILED', ['authorization'])
  assert.is(anon.body.errors.authorization, 'missing credentials')
  const app = await a.admin.post('/api/v1/applications', { appName: uniq('app'), role: 'user' })
  const basic = `Basic ${Buffer.from(`${app.body.appID}:${app.body.appToken}`).toString('base64')}`
  assertError(await new Client(a.url, basic).post('/api/v1/logout'), 400, 'BAD_REQUEST', [
    'authorization',
  ])
})

// ---------------------------------------------------------------------------------------------------------------

let m: TestService
const admins = serviceSuite('security: a tenant keeps its last admin', (svc) => (m = svc))

admins('the only admin demoting itself :: 400 PARAMETER_INVALID errors.role', async () => {
  const me = await m.admin.get<Page<Wire<typeof User>>>('/api/v1/users?_limit=100')
  const self = me.body.items.find((u) => u.email === ADMIN_EMAIL)
  const r = await m.admin.put(`/api/v1/users/${self?.id}`, { role: 'user' })
  assertError(r, 400, 'PARAMETER_INVALID', ['role'])
  assert.is((await m.admin.get(`/api/v1/users/${self?.id}`)).body.role, 'admin')
  // a change that keeps the role is fine
  assert.is((await m.admin.put(`/api/v1/users/${self?.id}`, { role: 'admin' })).status, 200)
})

admins('two admins :: one may be demoted, then the other is the last', async () => {
  const tenant = await m.newTenant()
  const second = await tenant.post('/api/v1/users', {
    username: 'second',
    email: `${uniq('second')}@test.local`,
    password: 'user-password-1',
    role: 'admin',
  })
  assert.is(second.status, 201, second.text)
  assert.is((await tenant.put(`/api/v1/users/${second.body.id}`, { role: 'viewer' })).status, 200)
  const users = await tenant.get<Page<Wire<typeof User>>>('/api/v1/users')
  const first = users.body.items.find((u) => u.role === 'admin')
  assertError(
    await tenant.put(`/api/v1/users/${first?.id}`, { role: 'viewer' }),
    400,
    'PARAMETER_INVALID',
    ['role'],
  )
})

admins('an admin application deleting the last admin user :: 400, the user stays', async () => {
  const tenant = await m.newTenant()
  const app = await tenant.post('/api/v1/applications', { appName: uniq('ops'), role: 'admin' })
  const basic = `Basic ${Buffer.from(`${app.body.appID}:${app.body.appToken}`).toString('base64')}`
  const ops = new Client(m.url, basic)
  const admin = (await ops.get('/api/v1/users')).body.items[0]
  const r = await ops.del(`/api/v1/users?ids=${admin.id}`)
  assertError(r, 400, 'PARAMETER_INVALID', ['ids'])
  assert.is((await ops.get(`/api/v1/users/${admin.id}`)).status, 200)
  // a non-admin user of the tenant may still be deleted
  const v = await ops.post('/api/v1/users', {
    username: 'v',
    email: `${uniq('v')}@test.local`,
    password: 'user-password-1',
    role: 'viewer',
  })
  assert.is((await ops.del(`/api/v1/users?ids=${v.body.id}`)).status, 204)
})

// ---------------------------------------------------------------------------------------------------------------

let x: TestService
const exportsSuite = serviceSuite(
  'security: device exports are bounded per tenant',
  (svc) => (x = svc),
  { EXPORT_CONCURRENCY: '1', EXPORT_FILES_KEPT: '2' },
)

exportsSuite('an export running :: the next one is 429 with Retry-After', async () => {
  // a waiting export of the tenant, as another request would leave it
  await x.db.run(
    `INSERT INTO tasks (tenant_id, task_id, task_name, status, user_int_id, create_at)
     SELECT tenant_id, 'busy-task', 'devices_export', 1, NULL, 0 FROM users LIMIT 1`,
  )
  const viewer = await x.userWithRole('viewer')
  const r = await viewer.get('/api/v1/devices_export')
  assertError(r, 429, 'TOO_MANY_REQUESTS', ['task'])
  assert.is(r.headers.get('retry-after'), '5')
  await x.db.run(`UPDATE tasks SET status = 3 WHERE task_id = 'busy-task'`)
  const next = await viewer.get('/api/v1/devices_export')
  assert.is(next.status, 202)
  await waitTask(viewer, next.body.statusUrl) // done before the next case counts running exports
})

exportsSuite('three exports :: only the newest two files are kept', async () => {
  const urls: string[] = []
  for (let i = 0; i < 3; i++) {
    const r = await x.admin.get('/api/v1/devices_export')
    assert.is(r.status, 202, r.text)
    urls.push((await waitTask(x.admin, r.body.statusUrl)).result.fileUrl)
  }
  const statuses = []
  for (const u of urls) statuses.push((await x.admin.get(u)).status)
  assert.equal(statuses, [404, 200, 200])
})

secrets.run()
logins.run()
proxied.run()
tokens.run()
admins.run()
exportsSuite.run()
