import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestService, type TestService } from '../../_support/service.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { Device, DeviceWrite } from '../../../src/schemas/devices.ts'
import type { ConnectLog } from '../../../src/schemas/logs.ts'
import { mqttBody, newProduct } from './devices-helpers.ts'
import { assertRefusal } from '../../_support/asserts.ts'

const SECRET = 'emqx-hook-secret-0123456789'
const H = { 'x-hook-secret': SECRET }
let t: TestService
type Dev = Wire<typeof DeviceWrite>
let dev: Dev
let other: Dev

const createDevice = async (name: string) => {
  const { productID } = await newProduct(t.admin)
  const r = await t.admin.post<Dev>('/api/v1/devices', mqttBody(productID, { deviceName: name }))
  assert.is(r.status, 201, r.text)
  return r.body
}
const full = (d: Dev, topic: string) => `/mqtt/${d.tenantID}/${d.productID}/${d.deviceID}/${topic}`
const connectLogs = async (d: Dev) =>
  (
    await t.admin.get<Page<Wire<typeof ConnectLog>>>(
      `/api/v1/devices/${d.id}/connect_logs?_sort=id&_order=asc`,
    )
  ).body.items
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function start() {
  t = await startTestService({
    EMQX_HOOK_SECRET: SECRET,
    MQTT_USERNAME: 'svc',
    MQTT_PASSWORD: 'svc-password',
  })
  dev = await createDevice('emqx-dev')
  other = await createDevice('emqx-other')
}

// ---------------------------------------------------------------- secret
const secret = suite('EMQX hooks: shared secret')
secret.before(start)
secret.after(async () => t.close())

secret('no secret header :: 401 AUTH_FAILED', async () => {
  const r = await t.anon.post('/api/v1/emqx/auth', { clientid: dev.deviceID })
  assert.is(r.status, 401)
  assert.is(r.body.errorCode, 'AUTH_FAILED')
  assert.ok(r.body.errors['x-hook-secret'])
})

secret('wrong secret (also one of another length) :: 401 before the body is read', async () => {
  for (const wrong of [SECRET.slice(0, -1) + 'X', 'short', SECRET + 'x']) {
    const r = await t.anon.post('/api/v1/emqx/acl', 'not json', { 'x-hook-secret': wrong })
    assert.is(r.status, 401, wrong)
  }
})

secret('hooks with EMQX_HOOK_SECRET unset :: 404 DATA_NOT_FOUND as an unknown path', async () => {
  const bare = await startTestService()
  try {
    for (const path of ['auth', 'acl', 'events']) {
      const r = await bare.anon.post(`/api/v1/emqx/${path}`, { clientid: 'x' }, H)
      assert.is(r.status, 404)
      assert.is(r.body.errorCode, 'DATA_NOT_FOUND')
      assert.equal(r.body.errors, { url: `no such path: /api/v1/emqx/${path}` })
    }
  } finally {
    await bare.close()
  }
})

secret('bad bodies :: 400 BAD_REQUEST / 422 FORM_INVALID naming the fields', async () => {
  const nonJson = await t.anon.post('/api/v1/emqx/auth', '{oops', H)
  assert.is(nonJson.status, 400)
  assert.is(nonJson.body.errorCode, 'BAD_REQUEST')
  const acl = await t.anon.post('/api/v1/emqx/acl', { clientid: 1, action: 'read' }, H)
  assertRefusal(acl, 422, ['action', 'clientid', 'topic'])
})

// ---------------------------------------------------------------- auth
const auth = suite('POST /api/v1/emqx/auth')
auth.before(start)
auth.after(async () => t.close())

auth('right deviceID, username and token :: allow', async () => {
  const r = await t.anon.post(
    '/api/v1/emqx/auth',
    {
      clientid: dev.deviceID,
      username: dev.deviceUsername,
      password: dev.token,
      peerhost: '10.1.2.3',
    },
    H,
  )
  assert.is(r.status, 200)
  assert.equal(r.body, { result: 'allow', is_superuser: false })
})

auth(
  'wrong token, wrong username, unknown client :: deny and a refused connect log (status 2)',
  async () => {
    const before = (await connectLogs(dev)).length
    const cases = [
      {
        clientid: dev.deviceID,
        username: dev.deviceUsername,
        password: 'wrong',
        peerhost: '10.9.9.9',
      },
      { clientid: dev.deviceID, username: other.deviceUsername, password: dev.token },
      { clientid: dev.deviceID, username: dev.deviceUsername },
      { clientid: 'no-such-device', username: dev.deviceUsername, password: dev.token },
      { clientid: "x' OR 1=1 --", username: '', password: '' },
    ]
    for (const body of cases) {
      const r = await t.anon.post('/api/v1/emqx/auth', body, H)
      assert.is(r.status, 200)
      assert.equal(r.body, { result: 'deny' }, JSON.stringify(body))
    }
    // one row per client id and address: the two refusals without a peerhost are counted in one
    const logs = await connectLogs(dev)
    assert.is(logs.length, before + 2)
    assert.equal(
      logs.slice(-2).map((l) => [l.connectStatus, l.IP, l.attempts]),
      [
        [2, '10.9.9.9', 1],
        [2, null, 2],
      ],
    )
    // an unknown client belongs to no tenant: its refused log has no tenant and is seen in the table only
    const row = await t.db.one(
      'SELECT tenant_id, connect_status FROM connect_logs WHERE device_id = ?',
      ['no-such-device'],
    )
    assert.equal([row?.tenant_id, row?.connect_status], [null, 2])
  },
)

auth('blocked device with the right token :: deny', async () => {
  const d = await createDevice('emqx-blocked')
  assert.is((await t.admin.put(`/api/v1/devices/${d.id}`, { blocked: 1 })).status, 200)
  const r = await t.anon.post(
    '/api/v1/emqx/auth',
    { clientid: d.deviceID, username: d.deviceUsername, password: d.token },
    H,
  )
  assert.equal(r.body, { result: 'deny' })
})

auth('the service account :: allow as superuser; its wrong password :: deny', async () => {
  const ok = await t.anon.post(
    '/api/v1/emqx/auth',
    { clientid: 'devicecloud-x-1', username: 'svc', password: 'svc-password' },
    H,
  )
  assert.equal(ok.body, { result: 'allow', is_superuser: true })
  const bad = await t.anon.post(
    '/api/v1/emqx/auth',
    { clientid: 'devicecloud-x-1', username: 'svc', password: 'nope' },
    H,
  )
  assert.is(bad.body.result, 'deny')
})

// ---------------------------------------------------------------- acl
const acl = suite('POST /api/v1/emqx/acl')
acl.before(start)
acl.after(async () => t.close())

const check = async (d: Dev, action: string, topic: string) =>
  (
    await t.anon.post(
      '/api/v1/emqx/acl',
      { clientid: d.deviceID, username: d.deviceUsername, topic, action },
      H,
    )
  ).body.result

acl('own mountpoint :: allow publish and subscribe', async () => {
  assert.is(await check(dev, 'publish', full(dev, 'telemetry')), 'allow')
  assert.is(await check(dev, 'subscribe', full(dev, 'inbox')), 'allow')
  assert.is(await check(dev, 'subscribe', full(dev, 'cmd/#')), 'allow')
})

acl("another device's prefix, outside any mountpoint, wildcard publish :: deny", async () => {
  assert.is(await check(dev, 'publish', full(other, 'telemetry')), 'deny')
  assert.is(await check(dev, 'subscribe', full(other, '#')), 'deny')
  assert.is(await check(dev, 'publish', 'telemetry'), 'deny')
  assert.is(await check(dev, 'subscribe', '#'), 'deny')
  assert.is(await check(dev, 'publish', full(dev, 'a/+')), 'deny')
  assert.is(await check({ ...dev, deviceID: 'unknown' }, 'publish', full(dev, 'telemetry')), 'deny')
})

acl('policies bound to the device :: narrow publish and subscribe', async () => {
  const deny = await t.admin.post('/api/v1/policies', {
    name: 'no secrets',
    topic: 'secret/#',
    access: 0,
    allow: 0,
  })
  const subOnly = await t.admin.post('/api/v1/policies', {
    name: 'only cmd',
    topic: 'cmd/+',
    access: 1,
    allow: 1,
  })
  assert.is(deny.status, 201, deny.text)
  for (const p of [deny.body, subOnly.body]) {
    const b = await t.admin.post(`/api/v1/policies/${p.id}/devices`, { devicesIntID: [dev.id] })
    assert.is(b.status, 201, b.text)
  }
  assert.is(await check(dev, 'publish', full(dev, 'secret/x')), 'deny')
  assert.is(await check(dev, 'publish', full(dev, 'telemetry')), 'allow')
  assert.is(await check(dev, 'subscribe', full(dev, 'cmd/a')), 'allow')
  assert.is(await check(dev, 'subscribe', full(dev, 'inbox')), 'deny')
  assert.is(
    await check(other, 'publish', full(other, 'secret/x')),
    'allow',
    'other device unaffected',
  )
})

acl('the service account :: allow anywhere', async () => {
  const r = await t.anon.post(
    '/api/v1/emqx/acl',
    {
      clientid: 'devicecloud-x',
      username: 'svc',
      topic: '$share/g//+/+/+/+/#',
      action: 'subscribe',
    },
    H,
  )
  assert.equal(r.body, { result: 'allow' })
})

// ---------------------------------------------------------------- events
const events = suite('POST /api/v1/emqx/events')
events.before(start)
events.after(async () => t.close())

const event = (body: object) => t.anon.post('/api/v1/emqx/events', body, H)
const detail = async (d: Dev) =>
  (await t.admin.get<Wire<typeof Device>>(`/api/v1/devices/${d.id}`)).body

events(
  'client.connected :: 200 {}, device online with clientIP and keepAlive, connect log status 1',
  async () => {
    const r = await event({
      event: 'client.connected',
      clientid: dev.deviceID,
      peername: '192.0.2.7:50211',
      keepalive: 45,
      connected_at: 1000,
    })
    assert.is(r.status, 200)
    assert.equal(r.body, {})
    const d = await detail(dev)
    assert.equal([d.deviceStatus, d.clientIP, d.keepAlive], [1, '192.0.2.7', 45])
    assert.ok(d.connectedAt)
    const last = (await connectLogs(dev)).at(-1)!
    assert.equal([last.connectStatus, last.IP, last.keepAlive], [1, '192.0.2.7', 45])
  },
)

events("takeover then the old session's late disconnect :: device stays online", async () => {
  await event({
    event: 'client.connected',
    clientid: dev.deviceID,
    peername: '[2001:db8::1]:4000',
    keepalive: 30,
    connected_at: 2000,
  })
  await event({
    event: 'client.disconnected',
    clientid: dev.deviceID,
    reason: 'takenover',
    connected_at: 1000,
  })
  await event({
    event: 'client.disconnected',
    clientid: dev.deviceID,
    reason: 'normal',
    connected_at: 1000,
  })
  const d = await detail(dev)
  assert.equal([d.deviceStatus, d.clientIP], [1, '2001:db8::1'])
  assert.equal(
    (await connectLogs(dev)).slice(-3).map((l) => l.connectStatus),
    [1, 0, 0],
  )
})

events('client.disconnected of the current session :: offline, connect log status 0', async () => {
  const r = await event({
    event: 'client.disconnected',
    clientid: dev.deviceID,
    reason: 'normal',
    connected_at: 2000,
  })
  assert.is(r.status, 200)
  assert.is((await detail(dev)).deviceStatus, 0)
  assert.is((await connectLogs(dev)).at(-1)!.connectStatus, 0)
})

events('unknown clients and other events :: 200 {} and nothing written', async () => {
  const before = (await t.admin.get('/api/v1/device_connect_logs?_limit=1')).body.meta.count
  assert.equal(
    (
      await event({
        event: 'client.connected',
        clientid: 'devicecloud-node-1',
        peername: '1.2.3.4:1',
      })
    ).body,
    {},
  )
  assert.equal((await event({ event: 'message.publish', clientid: other.deviceID })).body, {})
  await sleep(50)
  assert.is((await t.admin.get('/api/v1/device_connect_logs?_limit=1')).body.meta.count, before)
  assert.is((await detail(other)).deviceStatus, 0)
})

secret.run()
auth.run()
acl.run()
events.run()
