import * as assert from 'uvu/assert'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import { insertDevice, tenantOf } from '../../_support/fixtures.ts'
import type { LogRepository } from '../../../store/types.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { ControlLog, Event, GroupControlLog } from '../../../src/schemas/logs.ts'
import { kits, variants } from './_variant.ts'
import { COMMAND_KEYS } from './_logs.ts'
import { restOf } from '../../_support/asserts.ts'

const at = (minutes: number) => Date.UTC(2024, 2, 1, 10, 0, 0) + minutes * 60_000
const enc = encodeURIComponent

/** What the suite reads of a connection log: its status label is connectStatusLabel (A) or deviceStatusLabel (B). */
interface ConnectRow {
  deviceID: string
  IP: string | null
  keepAlive: number | null
  connectStatusLabel?: string | null
  deviceStatusLabel?: string | null
}
type Events = Page<Wire<typeof Event>>

for (const v of variants) {
  const kit = kits[v]
  /** The connection status label: connectStatusLabel (Variant A), deviceStatusLabel (Variant B). */
  const connectLabelOf = (l: ConnectRow) =>
    kit.v === 'A' ? l.connectStatusLabel : l.deviceStatusLabel

  let t: TestService
  let logs: LogRepository
  let tenantA: string
  let dev: number
  let other: number
  let gw: number
  let child: number
  let group: number
  let foreignDev: number
  let foreignGw: number
  let foreignGroup: number
  let tenantB: Awaited<ReturnType<TestService['newTenant']>>

  async function insertGroup(tenant: string, productIntID: number, groupID: string) {
    const r = await t.db.run(
      'INSERT INTO groups (tenant_id, group_id, group_name, product_int_id, create_at) VALUES (?, ?, ?, ?, ?)',
      [tenant, groupID, `group ${groupID}`, productIntID, Date.now()],
    )
    return r.lastId
  }

  async function seed() {
    const base = { tenantID: tenantA, publishUser: 'admin', userIntID: 1 }
    await logs.addEvents([
      {
        tenantID: tenantA,
        deviceIntID: dev,
        deviceID: 'D1',
        deviceName: 'dev-1',
        topic: 'up',
        payload: '1',
        msgTime: at(1),
      },
      {
        tenantID: tenantA,
        deviceIntID: dev,
        deviceID: 'D1',
        deviceName: 'dev-1',
        topic: 'up',
        payload: '2',
        msgTime: at(2),
      },
      {
        tenantID: tenantA,
        deviceIntID: other,
        deviceID: 'D2',
        deviceName: 'dev-2',
        topic: 'up',
        payload: '3',
        msgTime: at(3),
      },
      {
        tenantID: tenantA,
        deviceIntID: gw,
        deviceID: 'GW1',
        deviceName: 'gateway-1',
        topic: 'gw/up',
        payload: '{"a":1}',
        IP: '10.1.1.1',
        msgTime: at(4),
      },
      {
        tenantID: tenantA,
        deviceIntID: child,
        deviceID: 'C1',
        deviceName: 'child-1',
        topic: 'up',
        payload: '5',
        msgTime: at(5),
      },
    ])
    await logs.addConnectLogs([
      {
        tenantID: tenantA,
        deviceIntID: dev,
        deviceID: 'D1',
        deviceName: 'dev-1',
        connectStatus: 1,
        IP: '10.0.0.1',
        keepAlive: 30,
        msgTime: at(1),
      },
      {
        tenantID: tenantA,
        deviceIntID: other,
        deviceID: 'D2',
        deviceName: 'dev-2',
        connectStatus: 1,
        msgTime: at(2),
      },
      {
        tenantID: tenantA,
        deviceIntID: gw,
        deviceID: 'GW1',
        deviceName: 'gateway-1',
        connectStatus: 1,
        msgTime: at(3),
      },
    ])
    await logs.addControlLogs([
      {
        ...base,
        deviceIntID: dev,
        deviceID: 'D1',
        deviceName: 'dev-1',
        topic: 'inbox',
        payload: 'on',
        publishStatus: 2,
        msgTime: at(1),
      },
      {
        ...base,
        deviceIntID: other,
        deviceID: 'D2',
        deviceName: 'dev-2',
        topic: 'inbox',
        payload: 'off',
        publishStatus: 1,
        msgTime: at(2),
      },
      {
        ...base,
        deviceIntID: gw,
        deviceID: 'GW1',
        deviceName: 'gateway-1',
        payload: '{"func":3,"kbid":"k1","channel":[{"chnno":1}],"message":[],"object":[]}',
        publishStatus: 2,
        msgTime: at(3),
      },
      {
        ...base,
        deviceIntID: gw,
        deviceID: 'GW1',
        deviceName: 'gateway-1',
        payload: 'plain text',
        publishStatus: 0,
        msgTime: at(4),
      },
      {
        ...base,
        groupIntID: group,
        groupID: 'G1',
        groupName: 'group G1',
        topic: 'inbox',
        payload: 'all',
        publishStatus: 3,
        msgTime: at(5),
      },
      {
        ...base,
        groupIntID: group,
        groupID: 'G1',
        groupName: 'group G1',
        deviceIntID: dev,
        deviceID: 'D1',
        deviceName: 'dev-1',
        topic: 'inbox',
        payload: 'all',
        publishStatus: 1,
        msgTime: at(5),
      },
      {
        ...base,
        groupIntID: group,
        groupID: 'G1',
        groupName: 'group G1',
        topic: 'inbox',
        payload: 'later',
        publishStatus: 0,
        msgTime: at(6),
      },
    ])
    await logs.addEvents([
      {
        tenantID: tenantB.tenantID,
        deviceIntID: foreignDev,
        deviceID: 'B1',
        deviceName: 'b-1',
        topic: 'up',
        msgTime: at(1),
      },
    ])
  }

  const scoped = serviceSuite(
    `per device, gateway and group logs (Variant ${v})`,
    async (svc) => {
      t = svc
      logs = t.svc.deps.meta.logs
      tenantA = await tenantOf(t)
      const product = (
        await t.admin.post('/api/v1/products', kit.productBody({ productName: 'Scoped' }))
      ).body
      dev = await insertDevice(t, tenantA, product.id, { deviceName: 'dev-1', deviceID: 'D1' })
      other = await insertDevice(t, tenantA, product.id, { deviceName: 'dev-2', deviceID: 'D2' })
      gw = await insertDevice(t, tenantA, product.id, {
        deviceName: 'gateway-1',
        deviceID: 'GW1',
        kind: 'gateway',
      })
      child = await insertDevice(t, tenantA, product.id, {
        deviceName: 'child-1',
        deviceID: 'C1',
        gatewayIntID: gw,
      })
      group = await insertGroup(tenantA, product.id, 'G1')
      tenantB = await t.newTenant()
      const productB = (
        await tenantB.post('/api/v1/products', kit.productBody({ productName: 'B' }))
      ).body
      foreignDev = await insertDevice(t, tenantB.tenantID, productB.id, {
        deviceName: 'b-1',
        deviceID: 'B1',
      })
      foreignGw = await insertDevice(t, tenantB.tenantID, productB.id, {
        deviceName: 'b-gw',
        deviceID: 'BGW',
        kind: 'gateway',
      })
      foreignGroup = await insertGroup(tenantB.tenantID, productB.id, 'GB')
      await seed()
    },
    kit.env,
  )

  scoped('device events :: only that device, newest first, full record', async () => {
    const r = await t.admin.get<Events>(`/api/v1/devices/${dev}/events`)
    assert.is(r.status, 200)
    assert.equal(r.body.meta, { count: 2, limit: 10, page: 1, next: null })
    assert.equal(
      r.body.items.map((e) => e.payload),
      ['2', '1'],
    )
    assert.equal(Object.keys(r.body.items[0]!), [
      'id',
      'deviceID',
      'deviceName',
      'productName',
      'IP',
      'topic',
      'payload',
      'status',
      'reason',
      'msgTime',
      'createAt',
      'updateAt',
    ])
    assert.is(r.body.items[0]!.productName, null)
  })

  scoped(
    'device connect and control logs :: only that device; group deliveries to it included',
    async () => {
      const c = await t.admin.english().get<Page<ConnectRow>>(`/api/v1/devices/${dev}/connect_logs`)
      assert.equal(
        c.body.items.map((l) => [l.deviceID, l.IP, l.keepAlive, connectLabelOf(l)]),
        [['D1', '10.0.0.1', 30, 'Online']],
      )
      const k = await t.admin
        .english()
        .get<Page<Wire<typeof ControlLog>>>(`/api/v1/devices/${dev}/control_logs`)
      assert.equal(
        k.body.items.map((l) => [l.payload, l.publishStatusLabel]),
        [
          ['all', 'Issued'],
          ['on', 'Sent successfully'],
        ],
      )
    },
  )

  scoped('device lists :: paging, filters and time range apply', async () => {
    const r = await t.admin.get<Events>(`/api/v1/devices/${dev}/events?_limit=1&_page=2`)
    assert.equal(r.body.meta, { count: 2, limit: 1, page: 2, next: null })
    assert.equal(
      r.body.items.map((e) => e.payload),
      ['1'],
    )
    const ranged = await t.admin.get<Events>(
      `/api/v1/devices/${dev}/events?startTime=${enc('2024-03-01 10:02:00')}`,
    )
    assert.equal(
      ranged.body.items.map((e) => e.payload),
      ['2'],
    )
    const bad = await t.admin.get(
      `/api/v1/devices/${dev}/control_logs?endTime=${enc('2024/03/01 10:00:00')}`,
    )
    assert.is(bad.status, 400)
    assert.is(bad.body.errorCode, 'PARAMETER_INVALID')
    assert.ok(bad.body.errors.endTime)
  })

  scoped('a gateway through /devices/:id :: its logs too', async () => {
    const r = await t.admin.get<Page<ConnectRow>>(`/api/v1/devices/${gw}/connect_logs`)
    assert.equal(
      r.body.items.map((l) => l.deviceID),
      ['GW1'],
    )
  })

  scoped(
    'gateway events :: the gateway own uplinks with gatewayName, not its children',
    async () => {
      const r = await t.admin.get(`/api/v1/gateways/${gw}/events`)
      assert.is(r.status, 200)
      assert.equal(r.body.meta, { count: 1, limit: 10, page: 1, next: null })
      const rest = restOf(r.body.items[0])
      assert.equal(rest, {
        deviceID: 'GW1',
        IP: '10.1.1.1',
        topic: 'gw/up',
        payload: '{"a":1}',
        status: 1,
        reason: null,
        msgTime: '2024-03-01 10:04:00',
        updateAt: null,
        gatewayName: 'gateway-1',
      })
      assert.not.ok('deviceName' in r.body.items[0])
    },
  )

  scoped(
    'gateway control logs :: structured payload object, non-JSON text kept as a string',
    async () => {
      const r = await t.admin.get(`/api/v1/gateways/${gw}/control_logs`)
      assert.is(r.status, 200)
      assert.is(r.body.meta.count, 2)
      const [text, structured] = r.body.items
      assert.equal(Object.keys(structured), [
        'id',
        'deviceIntID',
        'createUser',
        'payload',
        ...COMMAND_KEYS,
        'createAt',
      ])
      assert.equal(structured.payload, {
        func: 3,
        kbid: 'k1',
        channel: [{ chnno: 1 }],
        message: [],
        object: [],
      })
      assert.is(structured.deviceIntID, gw)
      assert.is(structured.createUser, 'admin')
      assert.is(text.payload, 'plain text')
    },
  )

  scoped(
    'group control logs :: the group own rows (not in the device list), exact record, labels',
    async () => {
      const r = await t.admin.get(`/api/v1/groups/${group}/control_logs`)
      assert.is(r.status, 200)
      assert.equal(r.body.meta, { count: 2, limit: 10, page: 1, next: null })
      assert.equal(restOf(r.body.items[1]), {
        groupID: 'G1',
        groupName: 'group G1',
        topic: 'inbox',
        payload: 'all',
        publishStatus: 3,
        publishStatusLabel: '无需回执',
        publishUser: 'admin',
        userIntID: 1,
        taskID: null,
        commandStatus: null,
        commandStatusLabel: null,
        statusReason: null,
        qos: null,
        needAck: null,
        sentAt: null,
        deliveredAt: null,
        expiresAt: null,
        scheduleID: null,
        updateAt: null,
      })
      const en = await t.admin
        .english()
        .get<Page<Wire<typeof GroupControlLog>>>(
          `/api/v1/groups/${group}/control_logs?publishStatus=0`,
        )
      assert.equal(
        en.body.items.map((l) => [l.payload, l.publishStatusLabel]),
        [['later', 'Failed to issue']],
      )
      const global = await t.admin.get<Page<Wire<typeof ControlLog>>>('/api/v1/device_control_logs')
      assert.is(global.body.meta.count, 5)
      assert.ok(global.body.items.every((l) => l.deviceID !== null))
    },
  )

  scoped('unknown or foreign ids :: 404 DATA_NOT_FOUND on every scoped list', async () => {
    const paths = [
      `/devices/999999/events`,
      `/devices/${foreignDev}/events`,
      `/devices/${foreignDev}/connect_logs`,
      `/devices/${foreignDev}/control_logs`,
      `/devices/abc/events`,
      `/gateways/${foreignGw}/events`,
      `/gateways/${foreignGw}/control_logs`,
      `/gateways/${dev}/events`,
      `/gateways/${child}/control_logs`,
      `/groups/${foreignGroup}/control_logs`,
      `/groups/999999/control_logs`,
    ]
    for (const p of paths) {
      const r = await t.admin.get(`/api/v1${p}`)
      assert.is(r.status, 404, p)
      assert.is(r.body.errorCode, 'DATA_NOT_FOUND', p)
    }
  })

  scoped('tenant B :: its own device works, A ids are 404', async () => {
    const own = await tenantB.get<Events>(`/api/v1/devices/${foreignDev}/events`)
    assert.equal(
      own.body.items.map((e) => e.deviceID),
      ['B1'],
    )
    for (const p of [
      `/devices/${dev}/events`,
      `/gateways/${gw}/events`,
      `/groups/${group}/control_logs`,
    ]) {
      const r = await tenantB.get(`/api/v1${p}`)
      assert.is(r.status, 404, p)
      assert.is(r.body.errorCode, 'DATA_NOT_FOUND', p)
    }
  })

  scoped('viewer :: may read scoped logs', async () => {
    const viewer = await t.userWithRole('viewer')
    assert.is((await viewer.get(`/api/v1/gateways/${gw}/events`)).status, 200)
    assert.is((await viewer.get(`/api/v1/groups/${group}/control_logs`)).status, 200)
  })

  scoped.run()
}
