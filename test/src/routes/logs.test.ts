import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestService, type TestService } from '../../_support/service.ts'
import { insertDevice, tenantOf } from '../../_support/fixtures.ts'
import type { LogRepository } from '../../../store/types.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { ConnectLog, ControlLog } from '../../../src/schemas/logs.ts'
import { kits, type VariantKit } from './_variant.ts'
import { COMMAND_KEYS } from './_logs.ts'
import { restOf } from '../../_support/asserts.ts'

/** 2024-03-01 10:00:00 UTC (the tests' TIMEZONE is UTC) plus `minutes`. */
const at = (minutes: number) => Date.UTC(2024, 2, 1, 10, 0, 0) + minutes * 60_000
const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/

/** A connection log of either variant: its status fields are named `${status}` and `${status}Label` (below). */
type ConnectRows = Page<
  Omit<Wire<typeof ConnectLog>, 'connectStatus' | 'connectStatusLabel'> & Record<string, unknown>
>

let t: TestService
let logs: LogRepository
let tenantA: string
let productA: { id: number; productName: string }
let devA: number
let devA2: number

async function setup(k: VariantKit = kits.A) {
  t = await startTestService(k.env)
  logs = t.svc.deps.meta.logs
  tenantA = await tenantOf(t)
  productA = (await t.admin.post('/api/v1/products', k.productBody({ productName: 'Meters' }))).body
  devA = await insertDevice(t, tenantA, productA.id, { deviceName: 'meter-1', deviceID: 'M1' })
  devA2 = await insertDevice(t, tenantA, productA.id, { deviceName: 'meter-2', deviceID: 'M2' })
}

// The log suites run under both API variants: Variant B names the connection status `deviceStatus`.
for (const k of [kits.A, kits.B]) {
  const status = k.connectStatusField
  // ---------------------------------------------------------------------------------------------------------------
  const connect = suite(`GET /device_connect_logs (Variant ${k.v})`)
  connect.before(async () => {
    await setup(k)
    await logs.addConnectLogs([
      {
        tenantID: tenantA,
        deviceIntID: devA,
        deviceID: 'M1',
        deviceName: 'meter-1',
        connectStatus: 1,
        IP: '10.0.0.1',
        keepAlive: 60,
        msgTime: at(1),
      },
      {
        tenantID: tenantA,
        deviceIntID: devA,
        deviceID: 'M1',
        deviceName: 'meter-1',
        connectStatus: 0,
        IP: '10.0.0.1',
        keepAlive: 60,
        msgTime: at(5),
      },
      {
        tenantID: tenantA,
        deviceIntID: devA2,
        deviceID: 'M2',
        deviceName: 'meter-2',
        connectStatus: 2,
        IP: '192.168.1.9',
        msgTime: at(3),
      },
      { tenantID: null, deviceID: 'ghost', connectStatus: 2, IP: '6.6.6.6', msgTime: at(4) },
    ])
  })
  connect.after(async () => t.close())

  connect(
    'list :: page envelope, newest first by msgTime, exact record with zh label',
    async () => {
      const r = await t.admin.get<ConnectRows>('/api/v1/device_connect_logs')
      assert.is(r.status, 200)
      assert.equal(r.body.meta, { count: 3, limit: 10, page: 1, next: null })
      assert.equal(
        r.body.items.map((l) => l.msgTime),
        ['2024-03-01 10:05:00', '2024-03-01 10:03:00', '2024-03-01 10:01:00'],
      )
      const rest = restOf(r.body.items[0]!)
      assert.equal(Object.keys(r.body.items[0]!), [
        'id',
        'deviceID',
        'deviceName',
        'IP',
        'keepAlive',
        'tenantID',
        status,
        `${status}Label`,
        'attempts',
        'reason',
        'msgTime',
        'createAt',
        'updateAt',
      ])
      assert.equal(rest, {
        deviceID: 'M1',
        deviceName: 'meter-1',
        IP: '10.0.0.1',
        keepAlive: 60,
        tenantID: tenantA,
        [status]: 0,
        [`${status}Label`]: '下线',
        attempts: 1,
        reason: null,
        msgTime: '2024-03-01 10:05:00',
        updateAt: null,
      })
    },
  )

  connect('English labels :: Online, Offline, Authentication failed', async () => {
    const r = await t.admin.english().get<ConnectRows>('/api/v1/device_connect_logs')
    assert.equal(
      r.body.items.map((l) => l[`${status}Label`]),
      ['Offline', 'Authentication failed', 'Online'],
    )
  })

  connect(`filters :: deviceName_like, deviceID, IP_like, ${status}, ${status}_in`, async () => {
    const q = async (s: string) =>
      (await t.admin.get<ConnectRows>(`/api/v1/device_connect_logs?${s}`)).body
    assert.is((await q('deviceName_like=METER-2')).meta.count, 1)
    assert.is((await q('deviceID=M1')).meta.count, 2)
    assert.is((await q('IP_like=192.168')).items[0]!.deviceID, 'M2')
    assert.equal(
      (await q(`${status}=1`)).items.map((l) => l.msgTime),
      ['2024-03-01 10:01:00'],
    )
    assert.is((await q(`${status}_in=0,2`)).meta.count, 2)
    assert.is((await q('deviceID=ghost')).meta.count, 0)
  })

  connect('time range :: startTime and endTime inclusive, on msgTime', async () => {
    const r = await t.admin.get<ConnectRows>(
      `/api/v1/device_connect_logs?startTime=${encodeURIComponent('2024-03-01 10:03:00')}&endTime=${encodeURIComponent('2024-03-01 10:05:00')}`,
    )
    assert.is(r.status, 200)
    assert.equal(
      r.body.items.map((l) => l.msgTime),
      ['2024-03-01 10:05:00', '2024-03-01 10:03:00'],
    )
    const none = await t.admin.get(
      `/api/v1/device_connect_logs?endTime=${encodeURIComponent('2024-03-01 10:00:59')}`,
    )
    assert.is(none.body.meta.count, 0)
  })

  connect('bad time or integer filter :: 400 PARAMETER_INVALID naming the parameter', async () => {
    for (const [q, field] of [
      ['startTime=2024-03-01', 'startTime'],
      ['startTime=yesterday', 'startTime'],
      [`startTime=${encodeURIComponent('2024-13-01 00:00:00')}`, 'startTime'],
      [`endTime=${encodeURIComponent('2024-02-30 10:00:00')}`, 'endTime'],
      [`${status}=online`, status],
      ['_sort=token', '_sort'],
    ] as const) {
      const r = await t.admin.get(`/api/v1/device_connect_logs?${q}`)
      assert.is(r.status, 400, q)
      assert.is(r.body.errorCode, 'PARAMETER_INVALID', q)
      assert.ok(r.body.errors[field], q)
    }
  })

  connect('sorting :: _sort=msgTime asc, _sort=IP desc', async () => {
    const asc = await t.admin.get<ConnectRows>(
      '/api/v1/device_connect_logs?_sort=msgTime&_order=asc',
    )
    assert.equal(
      asc.body.items.map((l) => l.msgTime),
      ['2024-03-01 10:01:00', '2024-03-01 10:03:00', '2024-03-01 10:05:00'],
    )
    const ip = await t.admin.get('/api/v1/device_connect_logs?_sort=IP&_order=desc')
    assert.is(ip.body.items[0].IP, '192.168.1.9')
  })

  connect('tenant isolation :: another tenant sees none of them; viewer may read', async () => {
    const other = await t.newTenant()
    const r = await other.get('/api/v1/device_connect_logs?deviceID=M1')
    assert.is(r.status, 200)
    assert.equal(r.body, { items: [], meta: { count: 0, limit: 10, page: 1, next: null } })
    const viewer = await t.userWithRole('viewer')
    assert.is((await viewer.get('/api/v1/device_connect_logs')).body.meta.count, 3)
  })

  connect('without credentials :: 401 AUTH_FAILED', async () => {
    const r = await t.anon.get('/api/v1/device_connect_logs')
    assert.is(r.status, 401)
    assert.is(r.body.errorCode, 'AUTH_FAILED')
  })

  connect.run()

  // ---------------------------------------------------------------------------------------------------------------
  const events = suite(`GET /device_events (Variant ${k.v})`)
  events.before(async () => {
    await setup(k)
    const rows = Array.from({ length: 2000 }, (_, i) => ({
      tenantID: tenantA,
      deviceIntID: i % 2 ? devA2 : devA,
      deviceID: i % 2 ? 'M2' : 'M1',
      deviceName: i % 2 ? 'meter-2' : 'meter-1',
      productIntID: productA.id,
      topic: i % 10 === 0 ? 'alarm' : 'telemetry',
      payload: JSON.stringify({ temp: i }),
      IP: '10.0.0.7',
      msgTime: at(i),
    }))
    assert.is(await logs.addEvents(rows), 2000)
    await logs.addEvents([
      {
        tenantID: tenantA,
        deviceIntID: devA,
        deviceID: 'M1',
        deviceName: 'meter-1',
        productIntID: productA.id,
        topic: "x'); DROP TABLE events; --",
        payload: '{"hum":"wet"}',
        status: 0,
        reason: 'hum: value "wet" does not fit pointDataType 1 (numeric)',
        msgTime: at(-1),
      },
    ])
  })
  events.after(async () => t.close())

  events('list :: newest first, exact record with productName, status and reason', async () => {
    const r = await t.admin.get('/api/v1/device_events')
    assert.is(r.status, 200)
    const { next, ...meta } = r.body.meta
    assert.equal(meta, { count: 2001, limit: 10, page: 1 })
    assert.type(next, 'string')
    assert.equal(restOf(r.body.items[0]), {
      deviceID: 'M2',
      deviceName: 'meter-2',
      productName: 'Meters',
      IP: '10.0.0.7',
      topic: 'telemetry',
      payload: '{"temp":1999}',
      status: 1,
      reason: null,
      msgTime: '2024-03-02 19:19:00',
      updateAt: null,
    })
  })

  events('value not stored :: status 0 with the reason, payload verbatim', async () => {
    const r = await t.admin.get('/api/v1/device_events?status=0')
    assert.is(r.body.meta.count, 1)
    const e = r.body.items[0]
    assert.is(e.payload, '{"hum":"wet"}')
    assert.match(e.reason, /does not fit/)
    assert.is(e.msgTime, '2024-03-01 09:59:00')
  })

  events(
    'paging through 2,000 events :: every id once, order kept, _limit clamped to 1000',
    async () => {
      const seen = new Set<number>()
      let last = Infinity
      for (let page = 1; page <= 3; page++) {
        const r = await t.admin.get(`/api/v1/device_events?_limit=1000&_page=${page}&status=1`)
        const { next, ...meta } = r.body.meta
        assert.equal(meta, { count: 2000, limit: 1000, page })
        if (page === 1) assert.type(next, 'string', 'a page follows')
        else assert.is(next, null)
        for (const e of r.body.items) {
          const ms = Date.parse(e.msgTime.replace(' ', 'T') + 'Z')
          assert.ok(ms <= last)
          last = ms
          seen.add(e.id)
        }
        if (page === 3) assert.equal(r.body.items, [])
      }
      assert.is(seen.size, 2000)
      const big = await t.admin.get('/api/v1/device_events?_limit=5000')
      assert.is(big.body.meta.limit, 1000)
      assert.is(big.body.items.length, 1000)
    },
  )

  events('filters :: topic, topic_like, deviceID, deviceName_like combined', async () => {
    const q = async (s: string) => (await t.admin.get(`/api/v1/device_events?${s}`)).body.meta.count
    assert.is(await q('topic=alarm'), 200)
    assert.is(await q('topic_like=TELE'), 1800)
    assert.is(await q('deviceID=M1'), 1001)
    assert.is(await q('deviceName_like=meter-2&topic=alarm'), 0)
    assert.is(await q('deviceID_in=M1,M2'), 2001)
    assert.is(await q(`topic_like=${encodeURIComponent('DROP TABLE')}`), 1)
    assert.is(await q(`topic_like=${encodeURIComponent('%')}`), 0)
  })

  events('time range :: exact count over 2,000 rows; sort ascending', async () => {
    const s = encodeURIComponent('2024-03-01 11:00:00')
    const e = encodeURIComponent('2024-03-01 11:59:59')
    const r = await t.admin.get(
      `/api/v1/device_events?startTime=${s}&endTime=${e}&_sort=msgTime&_order=asc&_limit=100`,
    )
    assert.is(r.body.meta.count, 60)
    assert.is(r.body.items[0].msgTime, '2024-03-01 11:00:00')
    assert.is(r.body.items[59].msgTime, '2024-03-01 11:59:00')
    const bad = await t.admin.get('/api/v1/device_events?startTime=1700000000')
    assert.is(bad.status, 400)
    assert.equal(Object.keys(bad.body.errors), ['startTime'])
  })

  events('tenant isolation :: another tenant lists none', async () => {
    const other = await t.newTenant()
    const r = await other.get('/api/v1/device_events')
    assert.equal(r.body.meta, { count: 0, limit: 10, page: 1, next: null })
  })

  events.run()

  // ---------------------------------------------------------------------------------------------------------------
  const control = suite(`GET /device_control_logs (Variant ${k.v})`)
  let taskLog = 0
  control.before(async () => {
    await setup(k)
    const g = await t.db.run(
      `INSERT INTO groups (tenant_id, group_id, group_name, product_int_id, create_at) VALUES (?, 'G1', 'floor-1', ?, ?)`,
      [tenantA, productA.id, Date.now()],
    )
    const base = { tenantID: tenantA, publishUser: 'admin', userIntID: 1 }
    const ids = await logs.addControlLogs([
      {
        ...base,
        deviceIntID: devA,
        deviceID: 'M1',
        deviceName: 'meter-1',
        topic: 'inbox',
        payload: '{"on":1}',
        publishStatus: 2,
        taskID: 'T1',
        msgTime: at(1),
      },
      {
        ...base,
        deviceIntID: devA2,
        deviceID: 'M2',
        deviceName: 'meter-2',
        topic: 'cmd/reset',
        payload: 'reset',
        publishStatus: 0,
        taskID: 'T2',
        msgTime: at(2),
      },
      {
        ...base,
        groupIntID: g.lastId,
        groupID: 'G1',
        groupName: 'floor-1',
        topic: 'inbox',
        payload: 'all on',
        publishStatus: 3,
        msgTime: at(3),
      },
    ])
    assert.is(ids.length, 3)
    taskLog = await logs.addControlLog({
      ...base,
      deviceIntID: devA,
      deviceID: 'M1',
      deviceName: 'meter-1',
      topic: 'inbox',
      payload: 'ping',
      publishStatus: 1,
      taskID: 'T3',
      msgTime: at(4),
    })
  })
  control.after(async () => t.close())

  control('list :: device rows only, newest first, exact record with zh label', async () => {
    const r = await t.admin.get('/api/v1/device_control_logs')
    assert.is(r.status, 200)
    assert.equal(r.body.meta, { count: 3, limit: 10, page: 1, next: null })
    const { id, createAt, userIntID, ...rest } = r.body.items[0]
    assert.is(id, taskLog)
    assert.match(createAt, TIME)
    assert.equal(rest, {
      deviceIntID: devA,
      deviceID: 'M1',
      deviceName: 'meter-1',
      topic: 'inbox',
      payload: 'ping',
      publishStatus: 1,
      publishStatusLabel: '已下发',
      publishUser: 'admin',
      taskID: 'T3',
      commandStatus: null,
      commandStatusLabel: null,
      statusReason: null,
      qos: null,
      sentAt: null,
      deliveredAt: null,
      respondedAt: null,
      responseCode: null,
      responsePayload: null,
      expiresAt: null,
      scheduleID: null,
      parentTaskID: null,
      updateAt: null,
    })
    assert.equal(Object.keys(r.body.items[0]), [
      'id',
      'deviceIntID',
      'deviceID',
      'deviceName',
      'topic',
      'payload',
      'publishStatus',
      'publishStatusLabel',
      'publishUser',
      'userIntID',
      ...COMMAND_KEYS,
      'createAt',
      'updateAt',
    ])
  })

  control('English labels and filters :: publishStatus, topic_like, deviceName_like', async () => {
    const en = t.admin.english()
    const failed = await en.get<Page<Wire<typeof ControlLog>>>(
      '/api/v1/device_control_logs?publishStatus=0',
    )
    assert.equal(
      failed.body.items.map((l) => [l.deviceID, l.publishStatusLabel]),
      [['M2', 'Failed to issue']],
    )
    assert.is((await en.get('/api/v1/device_control_logs?topic_like=reset')).body.meta.count, 1)
    assert.is(
      (await en.get('/api/v1/device_control_logs?deviceName_like=meter-1')).body.meta.count,
      2,
    )
    assert.is(
      (await en.get('/api/v1/device_control_logs?taskID=T1')).body.items[0].publishStatusLabel,
      'Sent successfully',
    )
    const bad = await en.get('/api/v1/device_control_logs?publishStatus=x')
    assert.is(bad.status, 400)
    assert.ok(bad.body.errors.publishStatus)
  })

  control(
    'setControlLogStatus :: by id, by taskID, guarded by whenStatus; updateAt set',
    async () => {
      assert.is(await logs.setControlLogStatus(taskLog, 0, { whenStatus: 2 }), 0)
      assert.is(await logs.setControlLogStatus('T3', 2, { whenStatus: 1, tenantID: tenantA }), 1)
      assert.is(await logs.setControlLogStatus('T3', 0, { whenStatus: 1 }), 0)
      let r = await t.admin.get('/api/v1/device_control_logs?taskID=T3')
      assert.is(r.body.items[0].publishStatus, 2)
      assert.match(r.body.items[0].updateAt, TIME)
      assert.is(await logs.setControlLogStatus(taskLog, 0), 1)
      r = await t.admin.get('/api/v1/device_control_logs?taskID=T3')
      assert.is(r.body.items[0].publishStatus, 0)
      assert.is(await logs.setControlLogStatus('T3', 2, { tenantID: 'someone-else' }), 0)
      assert.is(await logs.setControlLogStatus('no-such-task', 2), 0)
    },
  )

  control('tenant isolation :: another tenant lists none', async () => {
    const other = await t.newTenant()
    assert.is((await other.get('/api/v1/device_control_logs')).body.meta.count, 0)
  })

  control.run()
}

// ---------------------------------------------------------------------------------------------------------------
const port = suite('LogsRepo write port and retention')
port.before(() => setup())
port.after(async () => t.close())

port(
  'multi-row inserts :: 1,200 connect logs across statements, all written in one call',
  async () => {
    const rows = Array.from({ length: 1200 }, (_, i) => ({
      tenantID: tenantA,
      deviceID: 'M1',
      connectStatus: i % 2,
      msgTime: at(i),
    }))
    assert.is(await logs.addConnectLogs(rows), 1200)
    assert.is(await logs.addConnectLogs([]), 0)
    assert.is((await t.admin.get('/api/v1/device_connect_logs?deviceID=M1')).body.meta.count, 1200)
  },
)

port('addControlLogs :: ids in input order; addControlLog one id', async () => {
  const rows = Array.from({ length: 700 }, (_, i) => ({
    tenantID: tenantA,
    deviceID: 'M2',
    topic: `t${i}`,
    publishStatus: 1,
  }))
  const ids = await logs.addControlLogs(rows)
  assert.is(ids.length, 700)
  assert.ok(ids.every((id, i) => i === 0 || id > ids[i - 1]!))
  const last = await t.db.one('SELECT topic FROM control_logs WHERE id = ?', [ids[699]!])
  assert.is(last?.topic, 't699')
  assert.equal(await logs.addControlLogs([]), [])
})

port.run()
