/**
 * The console's Variant B adapter (src/console/api/variant.ts) without a browser: Variant B's records (checked
 * against src/variant-b/schemas/) come out with every field of Variant A's schema; Variant A's bodies go out as bodies
 * Variant B's schemas accept; list filters and sort keys are renamed, dropped or refused; publish bodies find the
 * deviceID / groupID through one read; calls whose shapes agree pass through untouched; and every operation whose
 * shapes differ in the service's OpenAPI documents of A and B has a rule.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import {
  adaptB,
  queryToB,
  ruleOf,
  RULES,
  type Ctx,
  type Send,
} from '../../src/console/api/variant.ts'
import {
  connectLogToA,
  deviceCreateToB,
  deviceToA,
  deviceUpdateToB,
  groupDeviceToA,
  groupToA,
  productCreateToB,
  productToA,
} from '../../src/console/api/variant-maps.ts'
import * as devA from '../../src/schemas/devices.ts'
import * as devB from '../../src/variant-b/schemas/devices.ts'
import * as prodA from '../../src/schemas/products.ts'
import * as prodB from '../../src/variant-b/schemas/products.ts'
import * as grpA from '../../src/schemas/groups.ts'
import * as grpB from '../../src/variant-b/schemas/groups.ts'
import * as logA from '../../src/schemas/logs.ts'
import * as logB from '../../src/variant-b/schemas/logs.ts'
import * as cmdB from '../../src/variant-b/schemas/commands.ts'
import { kits } from '../src/routes/_variant.ts'
import { createApp } from '../../src/app.ts'
import { shapesA } from '../../src/wire/shapes.ts'
import { startTestService, type TestService } from '../_support/service.ts'
import type { Page, Wire } from '../_support/wire.ts'

const T = '2026-11-23 10:00:00'

/** A device list page as Variant A answers it (what adaptB makes of B's). */
type DevicesA = Page<Wire<typeof devA.DeviceListItem>>

/** The console's refusal as api.ts makes it (an ApiError there; here its fields). */
class Invalid extends Error {
  status = 422
  errorCode = 'FORM_INVALID'
  constructor(
    message: string,
    readonly errors: Record<string, unknown>,
  ) {
    super(message)
  }
}
const invalid = (message: string, errors: Record<string, unknown>) => new Invalid(message, errors)

/** A Variant B device detail, as the service answers it. */
const deviceB = devB.Device.parse({
  id: 7,
  deviceID: 'dev-7',
  deviceName: 'thermo',
  deviceUsername: 'u7',
  token: 'tok',
  authType: 1,
  authTypeLabel: 'Token',
  blocked: 0,
  deviceType: 0,
  deviceTypeLabel: 'Terminal',
  status: 1,
  statusLabel: 'Online',
  gateway: null,
  productID: 'p1',
  productName: 'Thermo',
  manufacturer: null,
  serialNumber: null,
  softVersion: '1.0',
  hardwareVersion: null,
  description: null,
  location: 'Room 7',
  clientIP: '10.0.0.7',
  connectedAt: T,
  keepAlive: 60,
  lastSeenAt: T,
  stateDelta: 0,
  mqttBroker: 'localhost:1883',
  mqttsBroker: null,
  mqttssBroker: null,
  coapBroker: null,
  coapsBroker: null,
  coapssBroker: null,
  createUser: 'admin',
  tenantID: 't1',
  userIntID: 1,
  createAt: T,
  updateAt: T,
})

/** `schema` with every field nullable: what a page may meet (B lacks the field: null). */
const nullable = (schema: z.ZodObject) =>
  z.strictObject(
    Object.fromEntries(
      Object.entries(schema.shape).map(([k, v]) => [k, (v as z.ZodType).nullable()]),
    ),
  )

/** Every field of A's `schema` is there, with A's type or null, and nothing of B's renamed fields is left. */
function hasShapeOfA(value: unknown, schema: z.ZodObject, extra: readonly string[] = []) {
  const v = value as Record<string, unknown>
  const missing = Object.keys(schema.shape).filter((k) => !(k in v))
  assert.equal(missing, [], 'missing fields of A')
  const own = Object.fromEntries(Object.keys(schema.shape).map((k) => [k, v[k]]))
  const r = nullable(schema).safeParse(own)
  assert.ok(r.success, JSON.stringify(r.error?.issues))
  for (const k of Object.keys(v))
    if (!(k in schema.shape)) assert.ok(extra.includes(k), `extra ${k}`)
}

const BROKERS = [
  'mqttBroker',
  'mqttsBroker',
  'mqttssBroker',
  'coapBroker',
  'coapsBroker',
  'coapssBroker',
]

const shapes = suite('variant B answers as A')

shapes('device detail :: every field of A, status as deviceStatus, terminal 1, MQTT', () => {
  const a = deviceToA(deviceB)
  hasShapeOfA(a, devA.Device, BROKERS)
  assert.equal(
    [
      a.deviceStatus,
      a.deviceStatusLabel,
      a.deviceType,
      a.upLinkSystem,
      a.cloudProtocol,
      a.productIntID,
    ],
    [1, 'Online', 1, 1, 1, null],
  )
  assert.is(a.location, 'Room 7')
})

shapes('device list item, smartphone behind nothing, gateway :: A codes 3 and null', () => {
  const item = devB.DeviceListItem.parse(deviceB)
  // the detail-only fields of A are null in a list item too
  hasShapeOfA(deviceToA({ ...item }), devA.DeviceListItem, ['gatewayName', 'parentDeviceName'])
  assert.is(deviceToA({ ...item, deviceType: 2 }).deviceType, 3)
  const gw = deviceToA({ ...item, deviceType: 1, deviceTypeLabel: 'Gateway' })
  assert.equal([gw.deviceType, gw.deviceTypeLabel, gw.upLinkSystem], [null, 'Gateway', null])
  assert.is(deviceToA({ ...item, gateway: 3 }).upLinkSystem, 2)
})

shapes('product, group, group member, connect log :: every field of A', () => {
  const product = prodB.Product.parse({
    id: 1,
    productID: 'p1',
    productName: 'Thermo',
    description: 'd',
    deviceCount: 2,
    devices: [{ id: 7 }, { id: 8 }],
    rawRetentionDays: null,
    eventRetentionDays: 90,
    userIntID: 1,
    createUser: 'admin',
    createAt: T,
    updateAt: T,
  })
  hasShapeOfA(productToA(product), prodA.Product)
  const listed = ruleOf('GET', '/products')!.answer!(
    { items: [prodB.ProductListItem.parse(product)], meta: {} },
    { send: () => Promise.reject(new Error('no call')), invalid },
  ) as { items: unknown[] }
  hasShapeOfA(listed.items[0], prodA.ProductListItem)
  const group = grpB.Group.parse({
    id: 3,
    groupID: 'g3',
    groupName: 'Floor',
    description: 'd',
    productID: 'p1',
    productName: 'Thermo',
    devices: [{ id: 7 }],
    userIntID: 1,
    createUser: 'admin',
    createAt: T,
    updateAt: T,
  })
  const g = groupToA(group)
  hasShapeOfA(g, grpA.Group, ['userIntID'])
  assert.is(g.deviceCount, 1)
  const member = grpB.GroupDevice.parse({ ...deviceB })
  hasShapeOfA(groupDeviceToA(member), grpA.GroupDevice)
  assert.equal([groupDeviceToA(member).deviceStatus, groupDeviceToA(member).deviceType], [1, 1])
  const log = logB.ConnectLog.parse({
    id: 1,
    deviceID: 'dev-7',
    deviceName: 'thermo',
    IP: '10.0.0.7',
    keepAlive: 60,
    tenantID: 't1',
    deviceStatus: 2,
    deviceStatusLabel: 'Authentication failed',
    attempts: 1,
    reason: 'bad credentials',
    msgTime: T,
    createAt: T,
    updateAt: T,
  })
  const l = connectLogToA(log)
  hasShapeOfA(l, logA.ConnectLog)
  assert.equal([l.connectStatus, l.connectStatusLabel], [2, 'Authentication failed'])
})

const bodies = suite('variant A bodies as B')

bodies(
  "device create :: A's body (terminal, smartphone, behind a gateway) accepted by B's schema",
  () => {
    const a = kits.A.deviceBody('p1', { deviceName: 'd1', location: { place: 'Room 7' } })
    const b = deviceCreateToB(a)
    assert.equal(b, {
      deviceName: 'd1',
      productID: 'p1',
      authType: 1,
      deviceType: 0,
      location: '{"place":"Room 7"}',
    })
    assert.ok(devB.DeviceCreate.safeParse(b).success)
    assert.is(deviceCreateToB({ ...a, deviceType: 3 }).deviceType, 2)
    const child = deviceCreateToB(kits.A.childBody('p1', 5))
    assert.is(child.gateway, 5)
    assert.ok(devB.DeviceCreate.safeParse(child).success)
  },
)

bodies('device edit :: the record as read, changed, sent back as B edit fields', () => {
  const read = deviceToA(deviceB)
  const b = deviceUpdateToB({ ...read, deviceName: 'renamed', blocked: 1 })
  assert.equal(b, {
    deviceName: 'renamed',
    authType: 1,
    blocked: 1,
    softVersion: '1.0',
    manufacturer: null,
    serialNumber: null,
    hardwareVersion: null,
    description: null,
    deviceType: 0,
    location: 'Room 7',
    gateway: null,
  })
  assert.ok(devB.DeviceUpdate.safeParse(b).success)
  // a B gateway read as A (no A deviceType) keeps its type
  assert.not.ok('deviceType' in deviceUpdateToB(deviceToA({ ...deviceB, deviceType: 1 })))
})

bodies('product create :: productName and description; another protocol than MQTT refused', () => {
  const b = productCreateToB({ productName: 'P', cloudProtocol: 1, description: 'd' }, { invalid })
  assert.equal(b, { productName: 'P', description: 'd' })
  assert.ok(prodB.ProductCreate.safeParse(b).success)
  try {
    productCreateToB({ productName: 'P', cloudProtocol: 2, description: 'd' }, { invalid })
    assert.unreachable('refused')
  } catch (e) {
    const err = e as Invalid
    assert.equal(
      [err.status, err.errorCode, err.errors],
      [422, 'FORM_INVALID', { cloudProtocol: 'must be 1 (MQTT)' }],
    )
  }
})

const q = (s: string) => new URLSearchParams(s)
const queries = suite('list queries as B')

queries('device list :: names kept, deviceType codes mapped, a sort B lacks dropped', () => {
  const spec = ruleOf('GET', '/devices')!.query!
  assert.is(
    (
      queryToB(
        spec,
        q('_page=2&_limit=20&deviceName_like=al&deviceType_in=1,3&_sort=lastSeenAt'),
      ) as URLSearchParams
    ).toString(),
    '_page=2&_limit=20&deviceName_like=al&deviceType_in=0%2C2&_sort=lastSeenAt',
  )
  assert.is(
    (queryToB(spec, q('deviceType=3&_sort=deviceStatus')) as URLSearchParams).toString(),
    'deviceType=2',
  )
  for (const f of [
    'deviceStatus=1',
    'parentDevice=4',
    'cloudProtocol_in=1,2',
    'productName_like=x',
  ])
    assert.equal(queryToB(spec, q(f)), { lacks: f.split(/[_=]/)[0] }, f)
})

queries(
  'device list and export :: stateDelta (not in the desired state) passes as B filters by it too',
  () => {
    for (const path of ['/devices', '/devices_export']) {
      const b = queryToB(ruleOf('GET', path)!.query!, q('stateDelta=1&productID=p1&_page=1'))
      assert.ok(b instanceof URLSearchParams, path)
      assert.is(b.toString(), 'stateDelta=1&productID=p1&_page=1', path)
    }
  },
)

queries('connect logs :: connectStatus filter and sort as deviceStatus', () => {
  const spec = ruleOf('GET', '/devices/7/connect_logs')!.query!
  assert.is(
    (
      queryToB(spec, q('connectStatus=2&_sort=connectStatus&_order=asc')) as URLSearchParams
    ).toString(),
    'deviceStatus=2&_sort=deviceStatus&_order=asc',
  )
  assert.is(ruleOf('GET', '/device_connect_logs')!.query, spec)
})

/** A fake Variant B service: records the calls, answers from `answers` by `METHOD path`. */
function fakeB(answers: Record<string, unknown>) {
  const calls: Array<[string, string, unknown]> = []
  const send: Send = async (path, init = {}) => {
    const key = `${init.method ?? 'GET'} ${path}`
    calls.push([init.method ?? 'GET', path, init.body])
    if (!(key in answers)) throw new Error(`unexpected ${key}`)
    return answers[key]
  }
  const ctx: Ctx = { send, invalid }
  return { calls, send, ctx }
}

const calls = suite('adaptB')

calls(
  'device_publish with deviceIntID :: one read of the device, then B body with deviceID',
  async () => {
    const f = fakeB({
      'GET /devices/7': deviceB,
      'POST /device_publish': { taskID: 'k1', commandStatus: 'queued' },
    })
    const body = { deviceIntID: 7, payload: { led: 'on' }, qos: 1, timeout: 30 }
    assert.equal(await adaptB('/device_publish', { method: 'POST', body }, f.ctx), {
      taskID: 'k1',
      commandStatus: 'queued',
    })
    await adaptB('/device_publish', { method: 'POST', body }, f.ctx)
    const sent = { deviceID: 'dev-7', payload: { led: 'on' }, qos: 1, timeout: 30 }
    assert.equal(f.calls, [
      ['GET', '/devices/7', undefined],
      ['POST', '/device_publish', sent],
      ['POST', '/device_publish', sent],
    ])
    assert.ok(cmdB.DevicePublish.safeParse(sent).success)
  },
)

calls('group_publish with groupIntID :: groupID read from the group', async () => {
  const f = fakeB({
    'GET /groups/3': { id: 3, groupID: 'g3' },
    'POST /group_publish': { statusUrl: '/task_status/x', taskID: 'x' },
  })
  await adaptB('/group_publish', { method: 'POST', body: { groupIntID: 3, payload: 'hi' } }, f.ctx)
  assert.equal(f.calls[1], ['POST', '/group_publish', { groupID: 'g3', payload: 'hi' }])
  assert.ok(cmdB.GroupPublish.safeParse(f.calls[1]![2]).success)
})

calls(
  'device list :: B query sent, items as A with productIntID from one products read',
  async () => {
    const item = devB.DeviceListItem.parse(deviceB)
    const f = fakeB({
      'GET /devices?_page=1&_limit=20&deviceName_like=th': {
        items: [item, item],
        meta: { count: 2, page: 1, limit: 20 },
      },
      'GET /products?productID_in=p1&_limit=100': { items: [{ id: 11, productID: 'p1' }] },
    })
    const page = (await adaptB(
      '/devices?_page=1&_limit=20&deviceName_like=th',
      {},
      f.ctx,
    )) as DevicesA
    assert.equal(page.meta, { count: 2, page: 1, limit: 20 })
    assert.equal(
      page.items.map((d) => [d.deviceStatus, d.productIntID]),
      [
        [1, 11],
        [1, 11],
      ],
    )
    assert.is(f.calls.length, 2)
  },
)

calls('a filter B cannot apply :: an empty page, nothing asked', async () => {
  const f = fakeB({})
  assert.equal(await adaptB('/devices?_page=3&_limit=20&deviceStatus=1', {}, f.ctx), {
    items: [],
    meta: { count: 0, page: 3, limit: 20 },
  })
  assert.equal(f.calls, [])
})

calls('an export filtered by a field B lacks :: refused (422), nothing asked', async () => {
  const f = fakeB({ 'GET /devices_export?deviceType=0': { statusUrl: '/task_status/x' } })
  try {
    await adaptB('/devices_export?deviceStatus=1', {}, f.ctx)
    assert.unreachable('refused')
  } catch (e) {
    const err = e as Invalid
    assert.equal([err.status, err.errors], [422, { deviceStatus: 'not a filter here' }])
  }
  assert.equal(await adaptB('/devices_export?deviceType=1', {}, f.ctx), {
    statusUrl: '/task_status/x',
  })
  assert.is(f.calls.length, 1)
})

calls(
  'shapes that agree (alerts, latest, login, deletes) :: passed through untouched',
  async () => {
    const f = fakeB({
      'GET /current_alerts?ruleID=1': { items: [{ id: 1 }] },
      'GET /devices/7/latest': [{ dataPointID: 'temp' }],
      'DELETE /devices?ids=7': null,
      'POST /login': { token: 'x' },
    })
    assert.equal(await adaptB('/current_alerts?ruleID=1', {}, f.ctx), { items: [{ id: 1 }] })
    assert.equal(await adaptB('/devices/7/latest', {}, f.ctx), [{ dataPointID: 'temp' }])
    assert.is(await adaptB('/devices?ids=7', { method: 'DELETE' }, f.ctx), null)
    assert.equal(await adaptB('/login', { method: 'POST', body: { email: 'e' } }, f.ctx), {
      token: 'x',
    })
    assert.equal(f.calls[3], ['POST', '/login', { email: 'e' }])
  },
)

calls('the table :: each rule names its endpoint, no two rules for one call', () => {
  const seen = new Set<string>()
  for (const r of RULES) {
    assert.ok(r.name.startsWith(`${r.method} /`), r.name)
    const key = `${r.method} ${r.path}`
    assert.not.ok(seen.has(key), key)
    seen.add(key)
  }
})

let t: TestService
const table = suite('the table against the service')
table.before(async () => {
  t = await startTestService({ API_VARIANT: 'B' })
})
table.after(() => t.close())

/** What the table reads of an OpenAPI operation. */
type Operation = { parameters?: unknown; requestBody?: unknown; responses?: unknown }
/** What the table reads of an OpenAPI document: the operations of each path, by method. */
type OpenApi = { paths: Record<string, Record<string, Operation>> }

/** Request parameters, body and answers of an OpenAPI operation, without the prose. */
const wire = (op: Operation) =>
  JSON.stringify([op.parameters, op.requestBody, op.responses], (k, v) =>
    ['description', 'examples', 'summary'].includes(k) ? undefined : v,
  )

table(
  'every operation whose shapes differ between A and B :: has a rule; every rule an operation',
  () => {
    const b = createApp(t.svc.deps).document() as OpenApi
    const a = createApp(t.svc.deps, shapesA).document() as OpenApi
    const differ: string[] = []
    const served: Array<[string, string]> = []
    for (const [p, ops] of Object.entries(b.paths))
      for (const [m, op] of Object.entries(ops)) {
        const path = p.replace('/api/v1', '').replace(/\{\w+\}/g, '1')
        served.push([m.toUpperCase(), path])
        if (wire(op) !== wire(a.paths[p]?.[m] as Operation))
          differ.push(`${m.toUpperCase()} ${path}`)
      }
    assert.ok(differ.length >= 15, differ.join())
    assert.equal(
      differ.filter((d) => !ruleOf(d.split(' ')[0]!, d.split(' ')[1]!)),
      [],
    )
    for (const r of RULES)
      assert.ok(
        served.some(([m, p]) => m === r.method && r.path.test(p)),
        `${r.name}: not served`,
      )
  },
)

shapes.run()
bodies.run()
queries.run()
calls.run()
table.run()
