import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { IClientOptions } from 'mqtt'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSql, testConfig, type TestService } from '../_support/service.ts'
import type { Page, Wire } from '../_support/wire.ts'
import type { ConnectLog } from '../../src/schemas/logs.ts'
import { mqttBody, newDevice, newProduct } from '../src/routes/devices-helpers.ts'
import { startService } from '../../src/service.ts'
import {
  closedWithin,
  connect,
  connectDevice,
  connectedDevice,
  credentials,
  end,
  mqttUrl,
  oneDevice,
  sleep,
  until,
  wsUrl,
} from './_mqtt.ts'
import { adminLogin, withService } from './_service.ts'

const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/
let t: TestService

const auth = suite('broker: device authentication and connection state')
withService(auth, (s) => (t = s))

const detail = async (id: number) => (await t.admin.get(`/api/v1/devices/${id}`)).body
const logsOf = async (id: number) =>
  (
    await t.admin.get<Page<Wire<typeof ConnectLog>>>(
      `/api/v1/devices/${id}/connect_logs?_sort=id&_order=asc`,
    )
  ).body.items
const statuses = async (id: number) => (await logsOf(id)).map((l) => l.connectStatus)
/** Waits until the device has as many connection log rows as `want`, and asserts their statuses are `want`. */
const statusesAre = async (id: number, want: number[]) =>
  assert.equal(
    await until(
      () => statuses(id),
      (s) => s.length === want.length,
    ),
    want,
  )

auth(
  'good credentials :: CONNACK 0, log status 1, device online with clientIP, connectedAt, keepAlive',
  async () => {
    const d = await oneDevice(t)
    const r = await connect(mqttUrl(t), { ...credentials(d), keepalive: 42 })
    assert.ok(r.connack, r.error?.message)
    assert.is(r.connack.returnCode, 0)
    const online = await until(
      () => detail(d.id),
      (b) => b.deviceStatus === 1,
    )
    assert.is(online.deviceStatus, 1)
    assert.is(online.clientIP, '127.0.0.1')
    assert.match(online.connectedAt, TIME)
    assert.is(online.keepAlive, 42)
    const logs = await logsOf(d.id)
    assert.is(logs.length, 1)
    assert.is(logs[0]?.connectStatus, 1)
    assert.is(logs[0]?.IP, '127.0.0.1')
    assert.is(logs[0]?.keepAlive, 42)
    assert.is(logs[0]?.deviceID, d.deviceID)
    r.client.end()
    const offline = await until(
      () => detail(d.id),
      (b) => b.deviceStatus === 0,
    )
    assert.is(offline.deviceStatus, 0)
    assert.is(offline.clientIP, '127.0.0.1', 'the last address is kept')
    await statusesAre(d.id, [1, 0])
  },
)

for (const [name, change] of [
  ['wrong token', (o: IClientOptions) => ({ ...o, password: 'not-the-token' })],
  ['wrong username', (o: IClientOptions) => ({ ...o, username: 'not-the-username' })],
  ['no password', (o: IClientOptions) => ({ ...o, password: undefined })],
] as const) {
  auth(`${name} :: CONNACK 5 not authorized, log status 2, device stays offline`, async () => {
    const d = await oneDevice(t)
    const r = await connect(mqttUrl(t), change(credentials(d)))
    assert.is(r.connack, undefined)
    assert.is(r.error?.code, 5, r.error?.message)
    r.client.end(true)
    await statusesAre(d.id, [2])
    assert.is((await detail(d.id)).deviceStatus, 0)
  })
}

auth('unknown device :: CONNACK 5, a status 2 log row in no tenant', async () => {
  const clientId = `ghost-${Date.now()}`
  const r = await connect(mqttUrl(t), { clientId, username: 'u', password: 'p' })
  assert.is(r.error?.code, 5, r.error?.message)
  r.client.end(true)
  const rows = await until(
    () =>
      t.db.all('SELECT tenant_id, connect_status, ip FROM connect_logs WHERE device_id = ?', [
        clientId,
      ]),
    (x) => x.length > 0,
  )
  assert.equal(rows, [{ tenant_id: null, connect_status: 2, ip: '127.0.0.1' }])
  const list = await t.admin.get(`/api/v1/device_connect_logs?deviceID=${clientId}`)
  assert.is(list.body.meta?.count ?? list.body.items.length, 0, 'not in the tenant list')
})

auth('blocked device :: CONNACK 5, log status 2', async () => {
  const d = await oneDevice(t)
  assert.is((await t.admin.put(`/api/v1/devices/${d.id}`, { blocked: 1 })).status, 200)
  const r = await connect(mqttUrl(t), credentials(d))
  assert.is(r.error?.code, 5)
  r.client.end(true)
  await statusesAre(d.id, [2])
})

auth('blocking a connected device :: disconnected within 1 s, then refused, offline', async () => {
  const { d, c } = await connectedDevice(t)
  await until(
    () => detail(d.id),
    (b) => b.deviceStatus === 1,
  )
  const closed = closedWithin(c, 1000)
  assert.is((await t.admin.put(`/api/v1/devices/${d.id}`, { blocked: 1 })).status, 200)
  assert.ok(await closed, 'kicked within a second')
  const again = await connect(mqttUrl(t), credentials(d))
  assert.is(again.error?.code, 5)
  again.client.end(true)
  assert.is(
    (
      await until(
        () => detail(d.id),
        (b) => b.deviceStatus === 0,
      )
    ).deviceStatus,
    0,
  )
  await statusesAre(d.id, [1, 0, 2])
})

auth('an edit that keeps it unblocked :: the session stays', async () => {
  const { d, c } = await connectedDevice(t)
  assert.is((await t.admin.put(`/api/v1/devices/${d.id}`, { description: 'renamed' })).status, 200)
  assert.not.ok(await closedWithin(c, 700))
  end(c)
})

auth('deleting a connected device :: disconnected within 1 s', async () => {
  const { d, c } = await connectedDevice(t)
  const closed = closedWithin(c, 1000)
  assert.is((await t.admin.del(`/api/v1/devices?ids=${d.id}`)).status, 204)
  assert.ok(await closed)
  const again = await connect(mqttUrl(t), credentials(d))
  assert.is(again.error?.code, 5, 'unknown now')
  again.client.end(true)
})

auth('takeover by client id :: the first session is closed, the device stays online', async () => {
  const d = await oneDevice(t)
  const first = await connectDevice(t, d)
  await until(
    () => detail(d.id),
    (b) => b.deviceStatus === 1,
  )
  const firstClosed = closedWithin(first, 2000)
  const second = await connectDevice(t, d, { keepalive: 17 })
  assert.ok(await firstClosed, 'first session closed')
  assert.ok(second.connected)
  await statusesAre(d.id, [1, 0, 1])
  await sleep(200) // a late write of the old session must not land after the new one
  const b = await detail(d.id)
  assert.is(b.deviceStatus, 1)
  assert.is(b.keepAlive, 17)
  end(second)
  assert.is(
    (
      await until(
        () => detail(d.id),
        (x) => x.deviceStatus === 0,
      )
    ).deviceStatus,
    0,
  )
})

auth('late disconnect of a taken-over session :: never marks the new one offline', async () => {
  const d = await oneDevice(t)
  const tracker = new (await import('../../ingest/connections.ts')).ConnectionTracker(
    t.svc.deps.meta,
  )
  const { DeviceDirectory } = await import('../../ingest/identity.ts')
  const identity = (await new DeviceDirectory(t.svc.deps.meta.ingest, t.svc.deps.bus).byId(d.id))!
  const oldSession = {}
  const newSession = {}
  await tracker.connected(identity, { ip: '10.0.0.1', keepAlive: 60, session: oldSession })
  await tracker.connected(identity, { ip: '10.0.0.2', keepAlive: 60, session: newSession })
  await tracker.disconnected(identity, oldSession)
  const b = await detail(d.id)
  assert.is(b.deviceStatus, 1)
  assert.is(b.clientIP, '10.0.0.2')
  assert.equal(await statuses(d.id), [1, 1, 0], 'the old session is still logged')
  await tracker.disconnected(identity, newSession)
  assert.is((await detail(d.id)).deviceStatus, 0)
})

auth('MQTT over WebSocket on /mqtt :: connects, online, receives its inbox', async () => {
  const d = await oneDevice(t)
  const r = await connect(wsUrl(t), credentials(d))
  assert.ok(r.connack, r.error?.message)
  const online = await until(
    () => detail(d.id),
    (b) => b.deviceStatus === 1,
  )
  assert.is(online.clientIP, '127.0.0.1')
  const got = new Promise<string>((resolve) =>
    r.client.once('message', (topic, p) => resolve(`${topic} ${String(p)}`)),
  )
  await sleep(100) // the inbox subscription is made right after CONNACK
  const identity = await t.svc.deps.broker.publish(await idOf(d), 'inbox', Buffer.from('ping'), {
    timeoutMs: 2000,
  })
  assert.ok(identity, 'acknowledged')
  assert.is(await got, 'inbox ping') // the service's inbox subscription is relative
  r.client.end()
  const bad = await connect(wsUrl(t), { ...credentials(d), password: 'x' })
  assert.is(bad.error?.code, 5)
  bad.client.end(true)
})

auth(
  'MQTT 5 client :: good credentials connect (online), bad ones get reason 135, each logged',
  async () => {
    const d = await oneDevice(t)
    const ok = await connect(mqttUrl(t), { ...credentials(d), protocolVersion: 5 })
    assert.ok(ok.connack, 'connected with MQTT 5')
    assert.is(ok.connack.reasonCode, 0)
    assert.ok(ok.client.connected)
    assert.is(
      (
        await until(
          () => detail(d.id),
          (x) => x.deviceStatus === 1,
        )
      ).deviceStatus,
      1,
    )
    ok.client.end()
    await until(
      () => detail(d.id),
      (x) => x.deviceStatus === 0,
    )
    const bad = await connect(mqttUrl(t), {
      ...credentials(d),
      password: 'wrong',
      protocolVersion: 5,
    })
    assert.is(bad.connack, undefined)
    assert.is(bad.error?.code, 135)
    bad.client.end(true)
    await statusesAre(d.id, [1, 0, 2])
  },
)

auth('HTTP still answers :: after all of the above', async () => {
  assert.is((await t.admin.get('/api/v1/products')).status, 200)
})

async function idOf(d: { id: number }) {
  const { DeviceDirectory } = await import('../../ingest/identity.ts')
  return (await new DeviceDirectory(t.svc.deps.meta.ingest, t.svc.deps.bus).byId(d.id))!
}

const restart = suite('broker: restart')

restart('devices online when the service stopped :: offline after start-up', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'devicecloud-restart-'))
  try {
    const a = await startService(testConfig(dir))
    const sqlA = await openSql(a)
    const product = await sqlA.run(
      "INSERT INTO products (tenant_id, product_id, product_name, cloud_protocol, create_at) VALUES ('t', 'p1', 'p', 1, 0)",
    )
    await sqlA.run(
      `INSERT INTO devices (tenant_id, product_int_id, device_id, device_name, device_username, token, device_status, create_at)
       VALUES ('t', ?, 'dev-restart', 'n', 'u', 'k', 1, 0)`,
      [product.lastId],
    )
    void sqlA.close()
    await a.close() // as a crash would leave it: device_status 1
    const b = await startService(testConfig(dir))
    const sqlB = await openSql(b)
    const row = await sqlB.one("SELECT device_status FROM devices WHERE device_id = 'dev-restart'")
    void sqlB.close()
    assert.is(row?.device_status, 0)
    await b.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

restart(
  'close() with devices connected :: resolves, their disconnects are logged before the database closes',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'devicecloud-close-'))
    try {
      const a = await startService(testConfig(dir))
      const { admin } = await adminLogin(a.url)
      const product = await newProduct(admin)
      const d = await newDevice(admin, mqttBody(product.productID))
      const r = await connect(`mqtt://127.0.0.1:${a.deps.broker.port}`, credentials(d))
      assert.ok(r.connack)
      const closing = a.close()
      const done = await Promise.race([closing.then(() => true), sleep(8000).then(() => false)])
      assert.ok(done, 'close() resolved')
      assert.ok(await closedWithin(r.client, 1000), 'the device was disconnected')
      r.client.end(true)
      const b = await startService(testConfig(dir))
      const sqlB = await openSql(b)
      const rows = await sqlB.all(
        'SELECT id, connect_status, msg_time FROM connect_logs WHERE device_id = ? ORDER BY id',
        [d.deviceID],
      )
      void sqlB.close()
      assert.equal(
        rows.map((x) => x.connect_status),
        [1, 0],
      )
      await b.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },
)

auth.run()
restart.run()
