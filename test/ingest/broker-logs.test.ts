import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestService } from '../_support/service.ts'
import type { Page, Wire } from '../_support/wire.ts'
import type { ConnectLog } from '../../src/schemas/logs.ts'
import { mqttBody, newDevice, newProduct } from '../src/routes/devices-helpers.ts'
import {
  connect,
  connectedDevice,
  credentials,
  devices,
  end,
  mqttUrl,
  oneDevice,
  sleep,
  until,
} from './_mqtt.ts'
import { logCollector, withService } from './_service.ts'

let t: TestService
const log = logCollector()
const logs = suite('broker logs: connects, disconnects and refusals with their reason')
// flapping protection off: every refusal here comes from 127.0.0.1
withService(
  logs,
  (s) => (t = s),
  { LOG_LEVEL: 'info', MQTT_FLAP_REFUSALS: '0' },
  { logDestination: log.destination },
)

type ConnectLogs = Page<Wire<typeof ConnectLog>>
const connectLogs = async (id: number) =>
  (await t.admin.get<ConnectLogs>(`/api/v1/devices/${id}/connect_logs?_sort=id&_order=asc`)).body
    .items
const lines = (msg: string, where: (l: Record<string, unknown>) => boolean = () => true) =>
  log.records().filter((l) => l.msg === msg && where(l))

/** Tries to connect with `opts` and expects a refusal; the client is ended. */
async function refusedWith(opts: object) {
  const r = await connect(mqttUrl(t), opts)
  assert.is(r.connack, undefined, 'refused')
  end(r.client)
}

logs(
  'a device connects and disconnects :: info lines with deviceID and clientIP, never its token',
  async () => {
    const { d, c } = await connectedDevice(t)
    const [on] = await until(
      async () => lines('device connected', (l) => l.deviceID === d.deviceID),
      (l) => l.length === 1,
    )
    assert.equal(
      [on?.level, on?.component, on?.clientIP, on?.tenantID],
      ['info', 'broker', '127.0.0.1', d.tenantID],
    )
    end(c)
    const off = await until(
      async () => lines('device disconnected', (l) => l.deviceID === d.deviceID),
      (l) => l.length === 1,
    )
    assert.equal(
      off.map((l) => [l.level, l.component]),
      [['info', 'broker']],
    )
    assert.not.ok(
      log.lines.some((l) => l.includes(d.token)),
      'no log line holds the token',
    )
  },
)

logs(
  'refusals :: connection log rows and log lines name the reason (bad credentials, blocked, certificate required, unknown device)',
  async () => {
    const {
      devices: [wrong, blocked],
    } = await devices(t, 2)
    await refusedWith({ ...credentials(wrong), password: 'not-the-token' })
    await t.admin.put(`/api/v1/devices/${blocked.id}`, { blocked: 1 })
    await until(
      async () => (await t.admin.get(`/api/v1/devices/${blocked.id}`)).body.blocked,
      (b) => b === 1,
    )
    await refusedWith(credentials(blocked))
    const product = await newProduct(t.admin)
    const cert = await newDevice(t.admin, mqttBody(product.productID, { authType: 2 }))
    await refusedWith(credentials(cert)) // its token on the plain listener
    await refusedWith({ clientId: 'nobody-here', username: 'x', password: 'y' })
    for (const [d, reason] of [
      [wrong, 'bad credentials'],
      [blocked, 'blocked'],
      [cert, 'certificate required'],
    ] as const) {
      const rows = await until(
        () => connectLogs(d.id),
        (r) => r.length === 1,
      )
      assert.equal(
        rows.map((r) => [r.connectStatus, r.reason, r.attempts]),
        [[2, reason, 1]],
        d.deviceID,
      )
    }
    const refused = await until(
      async () => lines('connection refused'),
      (l) => l.length >= 4,
    )
    assert.equal(
      refused.map((l) => [l.level, l.component, l.clientID, l.clientIP, l.reason]),
      [
        ['info', 'broker', wrong.deviceID, '127.0.0.1', 'bad credentials'],
        ['info', 'broker', blocked.deviceID, '127.0.0.1', 'blocked'],
        ['info', 'broker', cert.deviceID, '127.0.0.1', 'certificate required'],
        ['info', 'broker', 'nobody-here', '127.0.0.1', 'unknown device'],
      ],
    )
    assert.not.ok(log.lines.some((l) => l.includes('not-the-token')))
    assert.not.ok(log.lines.some((l) => l.includes(cert.token)))
  },
)

logs(
  'a second tenant’s refused device :: its row (with reason) in its own tenant’s list only',
  async () => {
    const other = await t.newTenant()
    const d = await newDevice(other, mqttBody((await newProduct(other)).productID))
    await refusedWith({ ...credentials(d), password: 'wrong' })
    const mine = await until(
      async () => (await other.get<ConnectLogs>(`/api/v1/devices/${d.id}/connect_logs`)).body.items,
      (r) => r.length === 1,
    )
    assert.equal(
      mine.map((r) => [r.connectStatus, r.reason]),
      [[2, 'bad credentials']],
    )
    assert.is((await t.admin.get(`/api/v1/devices/${d.id}/connect_logs`)).status, 404)
  },
)

logs('a flood of 30 refusals of one client id :: one row counting 30, one log line', async () => {
  const d = await oneDevice(t)
  for (let i = 0; i < 30; i++) {
    const r = await connect(mqttUrl(t), { ...credentials(d), password: `bad-${i}` }, 2000)
    end(r.client)
  }
  const rows = await until(
    () => connectLogs(d.id),
    (r) => r[0]?.attempts === 30,
  )
  assert.equal(
    rows.map((r) => [r.connectStatus, r.reason, r.attempts]),
    [[2, 'bad credentials', 30]],
  )
  await sleep(100)
  assert.is(lines('connection refused', (l) => l.clientID === d.deviceID).length, 1)
})

logs.run()
