/**
 * The audit log (README "Audit log") over the real service: every write route of the API records exactly one row
 * per record it changes, in the change's transaction (who, what, which record, the body's field names, the client
 * address and the request id), a refused change (or one that changes nothing) records none, no secret reaches a
 * row, the list is admins' only and a tenant's own, its filters and paging work, changes batched together are each
 * recorded, sign-ins are recorded, and Variant B records its devices too.
 */
import { randomBytes } from 'node:crypto'
import * as assert from 'uvu/assert'
import { ADMIN_EMAIL, type Client, type TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import { formatTime } from '../../../src/kernel/time.ts'
import { routeAudit } from '../../../src/http/audit-routes.ts'
import {
  AuditCheck,
  adminActor,
  appActor,
  auditedRoutes,
  replyOf,
  roleActor,
  type Actor,
  type Expect,
  type Expected,
} from './_audit.ts'
import { mqttBody, uniq } from './devices-helpers.ts'
import { kits } from './_variant.ts'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- replies are read as the assertions read them
type Loose = any
type Body = Record<string, unknown>
type Ids = Pick<Expect, 'resourceIntID' | 'resourceID' | 'resourceName'>

let t: TestService
let audit: AuditCheck
let admin: Actor
/** Every secret the suite sent or was answered: none may appear in the audit log. */
const secrets: string[] = []

const main = serviceSuite('audit log', async (svc) => {
  t = svc
  audit = new AuditCheck(t, () => t.admin)
  admin = await adminActor(t, ADMIN_EMAIL)
})

/** A record as a row names it: its record id, public id and name. */
const named = (id: number, publicID: string, name: string): Ids => ({
  resourceIntID: id,
  resourceID: publicID,
  resourceName: name,
})
/** A record whose public id is its record id. */
const byID = (id: number, name: string) => named(id, String(id), name)
const deviceIds = (d: Loose) => named(d.id, d.deviceID, d.deviceName)

/** One row of `action` on the record `ids` of `resourceType`, naming `changed`. */
const row = (action: string, resourceType: string, ids: Ids, changed: string[] = []): Expect => ({
  action,
  resourceType,
  ...ids,
  changed,
})

/** Write calls as the test admin, each asserting the rows it adds. */
const post = (path: string, body: unknown, rows: Expected) =>
  audit.write(admin, 'POST', path, body, rows)
const put = (path: string, body: unknown, rows: Expected) =>
  audit.write(admin, 'PUT', path, body, rows)
const patch = (path: string, body: unknown, rows: Expected) =>
  audit.write(admin, 'PATCH', path, body, rows)
const del = (path: string, rows: Expected) => audit.write(admin, 'DELETE', path, undefined, rows)
/** A call answered `status` that adds no row: refused, or changing nothing. */
const noRow = (method: string, path: string, body: unknown, status: number, who = admin) =>
  audit.refused(who, method, path, body, status)

/** POST `path` with `body` as `who`: one `create` row naming the new record (`ids` reads it off the reply). */
async function created(
  path: string,
  resourceType: string,
  body: Body,
  ids: (b: Loose) => Ids,
  who = admin,
): Promise<Loose> {
  const r = await audit.write(who, 'POST', path, body, (r) => [
    row('create', resourceType, ids(r.body), Object.keys(body)),
  ])
  return r.body
}

/** A product, and a device of it, made through the API (not checked here). */
async function productAndDevice(c: Client = t.admin) {
  const p = (await c.post('/api/v1/products', { productName: uniq('prod'), cloudProtocol: 1 })).body
  const d = (await c.post('/api/v1/devices', mqttBody(p.productID))).body
  assert.ok(p.id && d.id, 'product and device made')
  return { p, d }
}

/** A group of product `productID`, made through the API (not checked here). */
const newGroup = async (productID: string) =>
  (await t.admin.post('/api/v1/groups', { productID, groupName: uniq('g') })).body

main('products and devices :: create, update, block, unblock, delete, one row each', async () => {
  const pBody = { productName: uniq('prod'), cloudProtocol: 1 }
  const p = await created('/products', 'product', pBody, (b) =>
    named(b.id, b.productID, pBody.productName),
  )
  const pIds = named(p.id, p.productID, pBody.productName)
  await put(`/products/${p.id}`, { description: 'about' }, [
    row('update', 'product', pIds, ['description']),
  ])
  const token = `tok-${randomBytes(12).toString('hex')}`
  const dBody = mqttBody(p.productID, { token })
  const d = await created('/devices', 'device', dBody, (b) =>
    named(b.id, b.deviceID, dBody.deviceName),
  )
  secrets.push(token, d.token)
  const dIds = deviceIds(d)
  await put(`/devices/${d.id}`, { blocked: 1 }, [row('block', 'device', dIds, ['blocked'])])
  await put(`/devices/${d.id}`, { blocked: 0, description: 'x' }, [
    row('unblock', 'device', dIds, ['blocked', 'description']),
  ])
  // an update names the record as it was before it
  await put(`/devices/${d.id}`, { deviceName: 'renamed' }, [
    row('update', 'device', dIds, ['deviceName']),
  ])
  const d2 = (await t.admin.post('/api/v1/devices', mqttBody(p.productID))).body
  await del(`/devices?ids=${d.id},${d2.id}`, [
    row('delete', 'device', { ...dIds, resourceName: 'renamed' }),
    row('delete', 'device', deviceIds(d2)),
  ])
  await del(`/products?ids=${p.id}`, [row('delete', 'product', pIds)])
})

main('gateways :: create, update, block, delete', async () => {
  const { p } = await productAndDevice()
  const body = { gatewayName: uniq('gw'), productID: p.productID, gatewayProtocol: 1, authType: 1 }
  const g = await created('/gateways', 'gateway', body, (b) =>
    named(b.id, b.deviceID, body.gatewayName),
  )
  secrets.push(g.token)
  const ids = named(g.id, g.deviceID, body.gatewayName)
  await put(`/gateways/${g.id}`, { description: 'roof' }, [
    row('update', 'gateway', ids, ['description']),
  ])
  await put(`/gateways/${g.id}`, { blocked: 1 }, [row('block', 'gateway', ids, ['blocked'])])
  await del(`/gateways?ids=${g.id}`, [row('delete', 'gateway', ids)])
})

main('groups and their devices :: create, add and remove devices, update, delete', async () => {
  const { p, d } = await productAndDevice()
  const body = { productID: p.productID, groupName: uniq('grp') }
  const g = await created('/groups', 'group', body, (b) => named(b.id, b.groupID, body.groupName))
  const ids = named(g.id, g.groupID, body.groupName)
  await post(`/groups/${g.id}/devices`, { ids: [d.id] }, [
    row('add_devices', 'group', ids, ['ids']),
  ])
  await del(`/groups/${g.id}/devices?ids=${d.id}`, [row('remove_devices', 'group', ids)])
  await put(`/groups/${g.id}`, { groupName: 'renamed group' }, [
    row('update', 'group', ids, ['groupName']),
  ])
  await del(`/groups?ids=${g.id}`, [
    row('delete', 'group', { ...ids, resourceName: 'renamed group' }),
  ])
})

main('policies and their devices :: both sides of the binding, update, delete', async () => {
  const { d } = await productAndDevice()
  const body = { name: uniq('pol'), topic: 'a/+', access: 0, allow: 0 }
  const pol = await created('/policies', 'policy', body, (b) => byID(b.id, body.name))
  const ids = byID(pol.id, body.name)
  await post(`/policies/${pol.id}/devices`, { devicesIntID: [d.id] }, [
    row('add_devices', 'policy', ids, ['devicesIntID']),
  ])
  await del(`/policies/${pol.id}/devices?ids=${d.id}`, [row('remove_devices', 'policy', ids)])
  await post(`/devices/${d.id}/policies`, { ids: [pol.id] }, [
    row('add_policies', 'device', deviceIds(d), ['ids']),
  ])
  await del(`/devices/${d.id}/policies?ids=${pol.id}`, [
    row('remove_policies', 'device', deviceIds(d)),
  ])
  await put(`/policies/${pol.id}`, { description: 'd' }, [
    row('update', 'policy', ids, ['description']),
  ])
  await del(`/policies?ids=${pol.id}`, [row('delete', 'policy', ids)])
})

main('certs, their devices and subscriptions :: recorded, the private key never', async () => {
  const { d } = await productAndDevice()
  // the tenant's first certificate: its CA is made (and stored) first, in a transaction of its own
  const body = { name: uniq('cert'), enable: 1, CN: 'cn-audit' }
  const cert = await created('/certs', 'cert', body, (b) => byID(b.id, body.name))
  // a line from the middle of the private key: its JSON text has no escapes
  secrets.push(String(cert.key).split('\n')[2]!)
  const ids = byID(cert.id, body.name)
  await post(`/certs/${cert.id}/devices`, { devicesIntID: [d.id] }, [
    row('add_devices', 'cert', ids, ['devicesIntID']),
  ])
  await del(`/certs/${cert.id}/devices?ids=${d.id}`, [row('remove_devices', 'cert', ids)])
  await put(`/certs/${cert.id}`, { enable: 0 }, [row('update', 'cert', ids, ['enable'])])
  await del(`/certs?ids=${cert.id}`, [row('delete', 'cert', ids)])
  // qos is left out: a field the body did not name is not `changed`, though its schema defaults it
  const sub = await post(`/devices/${d.id}/subscriptions`, { topic: 'cmd/+' }, [
    row('add_subscriptions', 'device', deviceIds(d), ['topic']),
  ])
  await del(`/devices/${d.id}/subscriptions?ids=${sub.body.id}`, [
    row('remove_subscriptions', 'device', deviceIds(d)),
  ])
})

/** Creates the product model of `p` through the API (each create checked): [path, resource, id, name] each. */
async function productModel(p: Loose): Promise<Array<[string, string, Ids]>> {
  const point = { dataPointName: uniq('pt'), dataPointID: 'temp', productIntID: p.id }
  const ptBody = { ...point, pointDataType: 1, dataTransType: 1 }
  const pt = await created('/data_points', 'data_point', ptBody, (b) =>
    named(b.id, 'temp', point.dataPointName),
  )
  const bodies: Array<[string, string, Body, string]> = [
    ['/data_streams', 'data_stream', { productID: p.productID, topic: 'data/a' }, 'streamName'],
    ['/metrics', 'metric', { dataPointIntID: pt.id, expressions: 'temp * 1.8 + 32' }, 'metricName'],
    [
      '/product_resources',
      'product_resource',
      { codeValue: 'SN-1', productIntID: p.id },
      'itemName',
    ],
    ['/app_templates', 'app_template', { templateType: 1, productID: p.productID }, 'templateName'],
  ]
  const made: Array<[string, string, Ids]> = [
    ['/data_points', 'data_point', named(pt.id, 'temp', point.dataPointName)],
  ]
  for (const [path, type, fields, nameField] of bodies) {
    const name = uniq(type)
    const extra =
      type === 'data_stream' ? { streamType: 1, streamDataType: 1, dataPoints: [pt.id] } : {}
    const body = { ...fields, ...extra, [nameField]: name }
    const r = await created(path, type, body, (b) => byID(b.id, name))
    made.push([path, type, byID(r.id, name)])
  }
  return made
}

main('the product model :: data points, streams, metrics, resources, app templates', async () => {
  const { p } = await productAndDevice()
  const made = await productModel(p)
  const edits: Record<string, Body> = {
    data_point: { detail: 'room' },
    data_stream: { detail: 'd' },
    metric: { remark: 'r' },
    product_resource: { codeValue: 'SN-2' },
    app_template: { topic: 'ctl/x' },
  }
  for (const [path, type, ids] of made)
    await put(`${path}/${ids.resourceIntID}`, edits[type], [
      row('update', type, ids, Object.keys(edits[type]!)),
    ])
  // the points last: the streams and metrics over them go first
  for (const [path, type, ids] of made.reverse())
    await del(`${path}?ids=${ids.resourceIntID}`, [row('delete', type, ids)])
})

main('commands :: to a device, its cancel (queued ones only) and to a group', async () => {
  const { p, d } = await productAndDevice()
  const cmd = { deviceID: d.deviceID, payload: 'x', ttl: 600 }
  const q = await post('/device_publish', cmd, [
    row('command', 'device', deviceIds(d), Object.keys(cmd)),
  ])
  await del(`/device_publish?taskIDs=${q.body.taskID}`, [
    row('cancel_command', 'device', deviceIds(d)),
  ])
  // the first is canceled already: only the queued one is canceled, and recorded
  const q2 = (await t.admin.post('/api/v1/device_publish', cmd)).body
  await del(`/device_publish?taskIDs=${q.body.taskID},${q2.taskID}`, [
    row('cancel_command', 'device', deviceIds(d)),
  ])
  await noRow('DELETE', `/device_publish?taskIDs=${q2.taskID}`, undefined, 204)
  const g = await newGroup(p.productID)
  await t.admin.post(`/api/v1/groups/${g.id}/devices`, { ids: [d.id] })
  const gcmd = { groupIntID: g.id, payload: 'all' }
  await post('/group_publish', gcmd, [
    row('command', 'group', named(g.id, g.groupID, g.groupName), Object.keys(gcmd)),
  ])
})

/** Creates, edits and deletes a schedule through `path` (body `body`), checking each row. */
async function scheduleRows(path: string, body: Body) {
  const idOf = (r: { headers: Headers }) => Number(r.headers.get('location')!.split('/').pop())
  const name = String(body.scheduleName)
  const r = await post(path, body, (r) => [
    row('create', 'schedule', byID(idOf(r), name), Object.keys(body)),
  ])
  const ids = byID(idOf(r), name)
  await put(`${path}/${idOf(r)}`, { enable: 0 }, [row('update', 'schedule', ids, ['enable'])])
  await del(`${path}?ids=${idOf(r)}`, [row('delete', 'schedule', ids)])
}

main('schedules :: of a device and of a group', async () => {
  const { p, d } = await productAndDevice()
  const every = { payload: 'hello', topic: 'inbox', scheduleType: 2, IntervalMinute: 5 }
  await scheduleRows('/device_schedule_publish', {
    ...every,
    deviceID: d.deviceID,
    scheduleName: uniq('ds'),
  })
  const g = await newGroup(p.productID)
  await scheduleRows('/group_schedule_publish', {
    ...every,
    groupIntID: g.id,
    scheduleName: uniq('gs'),
  })
})

/** The newest delivery of webhook `id`, once there is one. */
async function aDelivery(id: number): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const r = await t.admin.get(`/api/v1/webhooks/${id}/deliveries`)
    if (r.body.items?.[0]) return r.body.items[0].id
    await new Promise((res) => setTimeout(res, 25))
  }
  throw new Error('no delivery')
}

main(
  'webhooks :: create (its secret never recorded), update, a delivery retried, delete',
  async () => {
    const { d } = await productAndDevice()
    const body = { url: 'http://127.0.0.1:9/audit-hook', events: ['device.state'] }
    const hook = await created('/webhooks', 'webhook', body, (b) => byID(b.id, body.url))
    assert.match(hook.secret, /^[0-9a-f]{48}$/)
    secrets.push(hook.secret)
    const ids = byID(hook.id, body.url)
    await put(`/webhooks/${hook.id}`, { ...body, events: ['device.state', 'alert.raised'] }, [
      row('update', 'webhook', ids, ['url', 'events']),
    ])
    await t.admin.patch(`/api/v1/devices/${d.id}/state`, { desired: { on: 1 } })
    const delivery = await aDelivery(hook.id)
    await post(`/webhooks/${hook.id}/deliveries/${delivery}/retry`, undefined, [
      row('retry_delivery', 'webhook', ids),
    ])
    await del(`/webhooks?ids=${hook.id}`, [row('delete', 'webhook', ids)])
  },
)

main('alerts :: ack, handle (to the history), delete from the history', async () => {
  const { d } = await productAndDevice()
  const tenant = await t.db.one('SELECT tenant_id FROM users WHERE id = ?', [admin.userIntID])
  const [id] = await t.svc.deps.meta.alerts.raise([
    {
      tenantID: String(tenant!.tenant_id),
      alertName: 'Overheat',
      alertSeverity: 1,
      deviceIntID: d.id,
      deviceID: d.deviceID,
      deviceName: d.deviceName,
      time: Date.now(),
    },
  ])
  const ids = byID(id!, 'Overheat')
  await post(`/current_alerts/${id}/ack`, undefined, [row('ack', 'alert', ids)])
  // acked again: nothing changes, nothing is recorded
  await noRow('POST', `/current_alerts/${id}/ack`, undefined, 200)
  await del(`/current_alerts?ids=${id}`, [row('delete', 'alert', ids)])
  await del(`/history_alerts?ids=${id}`, [row('delete', 'history_alert', ids)])
})

main(
  'alert rules :: create, update, delete; a dry run (POST /alert_rules/test) records nothing',
  async () => {
    const { p, d } = await productAndDevice()
    const point = { dataPointName: uniq('t'), dataPointID: 'temp', productIntID: p.id }
    await t.admin.post('/api/v1/data_points', { ...point, pointDataType: 1, dataTransType: 1 })
    const body = {
      ruleName: uniq('rule'),
      productID: p.productID,
      condition: 'temp > 80',
      alertSeverity: 1,
    }
    const rule = await created('/alert_rules', 'alert_rule', body, (b) => byID(b.id, body.ruleName))
    const ids = byID(rule.id, body.ruleName)
    await put(`/alert_rules/${rule.id}`, { alertSeverity: 2 }, [
      row('update', 'alert_rule', ids, ['alertSeverity']),
    ])
    const fmt = (ms: number) => formatTime(ms, t.svc.deps.config.TIMEZONE)!
    const span = { startTime: fmt(Date.now() - 3600_000), endTime: fmt(Date.now()) }
    await post('/alert_rules/test', { ...body, deviceID: d.deviceID, ...span }, [])
    await del(`/alert_rules?ids=${rule.id}`, [row('delete', 'alert_rule', ids)])
  },
)

main('desired state :: of a device, of a group, of a product', async () => {
  const { p, d } = await productAndDevice()
  const g = await newGroup(p.productID)
  await patch(`/devices/${d.id}/state`, { desired: { mode: 'eco' }, version: 0 }, [
    row('state', 'device', deviceIds(d), ['desired', 'version']),
  ])
  await patch(`/groups/${g.id}/state`, { desired: { mode: 'night' } }, [
    row('state', 'group', named(g.id, g.groupID, g.groupName), ['desired']),
  ])
  await patch(`/products/${p.id}/state`, { desired: { mode: 'day' } }, [
    row('state', 'product', named(p.id, p.productID, p.productName), ['desired']),
  ])
})

/** A multipart POST of `form` to `path` as the admin, with the checker's headers. */
const multipart = (path: string, form: FormData) => async (headers: Record<string, string>) =>
  replyOf(
    await fetch(`${t.url}/api/v1${path}`, {
      method: 'POST',
      headers: { ...headers, authorization: t.admin.authorization! },
      body: form,
    }),
  )

/** Uploads a firmware package of `productID` (one create row; a multipart body names no JSON fields). */
async function uploadFirmware(productID: string, version: string) {
  const form = new FormData()
  form.append('productID', productID)
  form.append('version', version)
  form.append('file', new Blob([randomBytes(1000)]), 'fw.bin')
  const r = await audit.raw(admin, 'POST', '/firmware', multipart('/firmware', form), (r) => [
    row('create', 'firmware', named(r.body.id, r.body.firmwareID, version)),
  ])
  return r.body as { id: number; firmwareID: string }
}

main('firmware and rollouts :: upload, roll out, pause, resume, cancel, delete', async () => {
  const { p } = await productAndDevice()
  const fw = await uploadFirmware(p.productID, '9.9')
  const body = { firmwareID: fw.firmwareID, productWide: true, ratePerMinute: 1 }
  const ro = await created('/firmware_rollouts', 'firmware_rollout', body, (b) =>
    named(b.id, b.rolloutID, '9.9'),
  )
  for (const action of ['pause', 'resume', 'cancel'])
    await post(`/firmware_rollouts/${ro.id}/${action}`, undefined, [
      row(action, 'firmware_rollout', named(ro.id, ro.rolloutID, '9.9')),
    ])
  const other = await uploadFirmware(p.productID, '10.0')
  await del(`/firmware?ids=${other.id}`, [
    row('delete', 'firmware', named(other.id, other.firmwareID, '10.0')),
  ])
})

main('tasks :: a device import and a backup, recorded as the task each starts', async () => {
  const { p } = await productAndDevice()
  const form = new FormData()
  const csv = `deviceName,productID,deviceType,upLinkSystem,cloudProtocol,authType
imp-1,${p.productID},1,1,1,1\n`
  form.set('file', new Blob([csv], { type: 'text/csv' }), 'devices.csv')
  const task = (action: string, name: string) => (r: Loose) => [
    row(action, 'task', { resourceID: r.body.taskID, resourceName: name }),
  ]
  const imp = await audit.raw(
    admin,
    'POST',
    '/devices_import',
    multipart('/devices_import', form),
    task('import', 'devices_import'),
  )
  assert.is(imp.status, 202)
  assert.is((await post('/admin/backup', undefined, task('backup', 'backup'))).status, 202)
})

main(
  'users and applications :: create, role change, delete; no password or app token',
  async () => {
    const password = `pw-${randomBytes(8).toString('hex')}`
    secrets.push(password)
    const body = { username: uniq('u'), email: `${uniq('u')}@test.local`, password, role: 'viewer' }
    const u = await created('/users', 'user', body, (b) => byID(b.id, body.username))
    const ids = byID(u.id, body.username)
    await put(`/users/${u.id}`, { role: 'user' }, [row('update', 'user', ids, ['role'])])
    await del(`/users?ids=${u.id}`, [row('delete', 'user', ids)])
    const aBody = { appName: uniq('app'), role: 'user' }
    const app = await created('/applications', 'application', aBody, (b) =>
      named(b.id, b.appID, aBody.appName),
    )
    secrets.push(app.appToken)
    const aIds = named(app.id, app.appID, aBody.appName)
    await put(`/applications/${app.id}`, { role: 'admin' }, [
      row('update', 'application', aIds, ['role']),
    ])
    await del(`/applications?ids=${app.id}`, [row('delete', 'application', aIds)])
  },
)

main('callers :: a user and an application are named as who made the change', async () => {
  const user = await roleActor(t, 'user')
  const byUser = { productName: uniq('by-user'), cloudProtocol: 1 }
  await created(
    '/products',
    'product',
    byUser,
    (b) => named(b.id, b.productID, byUser.productName),
    user,
  )
  const { actor: app, token } = await appActor(t, t.admin, uniq('app'), 'user')
  secrets.push(token)
  const byApp = { productName: uniq('by-app'), cloudProtocol: 1 }
  await created(
    '/products',
    'product',
    byApp,
    (b) => named(b.id, b.productID, byApp.productName),
    app,
  )
})

main('own credentials :: a password change and a logout, recorded against the caller', async () => {
  const me = await roleActor(t, 'viewer')
  const self = byID(me.userIntID!, me.username)
  const password = `new-${randomBytes(8).toString('hex')}`
  secrets.push(password, 'user-password-1')
  await audit.write(me, 'PUT', '/users/me/password', { oldPassword: 'user-password-1', password }, [
    row('password', 'user', self, ['oldPassword', 'password']),
  ])
  await audit.write(me, 'POST', '/logout', undefined, [row('logout', 'user', self)])
  assert.is((await me.c.get('/api/v1/products')).status, 401, 'the token is revoked')
})

main(
  'a wrong old password :: 422, then 429 once locked; never a row, though the lock is written',
  async () => {
    const me = await roleActor(t, 'user')
    const wrong = { oldPassword: 'not-my-password', password: 'whatever-password-1' }
    for (let i = 0; i < 5; i++) await noRow('PUT', '/users/me/password', wrong, 422, me)
    await noRow('PUT', '/users/me/password', wrong, 429, me)
  },
)

main(
  'refused changes :: invalid bodies, unknown and foreign ids, taken names, a viewer',
  async () => {
    const { p, d } = await productAndDevice()
    const viewer = await roleActor(t, 'viewer')
    const theirs = await productAndDevice(await t.newTenant())
    await noRow('POST', '/products', {}, 422)
    await noRow('PUT', `/devices/${d.id}`, { blocked: 3 }, 422)
    await noRow('PUT', '/devices/999999', { deviceName: 'x' }, 404)
    await noRow('PUT', `/devices/${theirs.d.id}`, { deviceName: 'x' }, 404)
    await noRow('DELETE', `/devices?ids=${d.id},${theirs.d.id}`, undefined, 404)
    await noRow('POST', '/groups/999999/devices', { ids: [d.id] }, 404)
    await noRow('POST', '/device_publish', { deviceID: theirs.d.deviceID, payload: 'x' }, 404)
    await noRow('PATCH', `/products/${theirs.p.id}/state`, { desired: { a: 1 } }, 404)
    const pol = { name: uniq('dup'), topic: 'a', access: 0, allow: 0 }
    assert.is((await t.admin.post('/api/v1/policies', pol)).status, 201)
    await noRow('POST', '/policies', pol, 400)
    await noRow('POST', '/products', { productName: p.productName, cloudProtocol: 1 }, 400)
    await noRow('POST', '/products', { productName: uniq('v'), cloudProtocol: 1 }, 403, viewer)
    await noRow('DELETE', `/devices?ids=${d.id}`, undefined, 403, viewer)
    await noRow('POST', '/admin/backup', undefined, 403, viewer)
  },
)

main(
  'guarded changes :: a write that finds its record but changes nothing records nothing',
  async () => {
    const { p, d } = await productAndDevice()
    // the tenant's only admin may neither demote nor delete itself
    await noRow('PUT', `/users/${admin.userIntID}`, { role: 'user' }, 400)
    await noRow('DELETE', `/users?ids=${admin.userIntID}`, undefined, 400)
    const hook = (await t.admin.post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/guarded' }))
      .body
    secrets.push(hook.secret)
    await noRow('POST', `/webhooks/${hook.id}/deliveries/999999/retry`, undefined, 404)
    const every = { payload: 'x', topic: 'inbox', scheduleType: 2, IntervalMinute: 5 }
    const made = await t.admin.post('/api/v1/device_schedule_publish', {
      ...every,
      deviceID: d.deviceID,
      scheduleName: uniq('s'),
    })
    // a device's schedule is no group schedule
    const sid = made.headers.get('location')!.split('/').pop()
    await noRow('PUT', `/group_schedule_publish/${sid}`, { enable: 0 }, 404)
    const g = await newGroup(p.productID)
    await t.admin.post(`/api/v1/groups/${g.id}/devices`, { ids: [d.id] })
    const q = await productAndDevice()
    await noRow('PUT', `/groups/${g.id}`, { productID: q.p.productID }, 422)
    await t.admin.patch(`/api/v1/devices/${d.id}/state`, { desired: { a: 1 } })
    await noRow('PATCH', `/devices/${d.id}/state`, { desired: { a: 2 }, version: 0 }, 409)
    await noRow('DELETE', `/products?ids=${p.id}`, undefined, 400)
    await noRow('DELETE', `/groups?ids=${g.id}`, undefined, 400)
  },
)

main('sign-ins :: a login and a failed one are recorded, an unknown email nowhere', async () => {
  const me = await roleActor(t, 'user')
  const self = byID(me.userIntID!, me.username)
  const login =
    (password: string, email = me.email!) =>
    (headers: Record<string, string>) =>
      t.anon.post('/api/v1/login', { email, password }, headers)
  secrets.push('user-password-1', 'a-wrong-password-1')
  await audit.raw(me, 'POST', '/login', login('user-password-1'), [row('login', 'user', self)], 201)
  const failed = [row('login_failed', 'user', self)]
  await audit.raw(me, 'POST', '/login', login('a-wrong-password-1'), failed, 401)
  const count = async () => Number((await t.db.one('SELECT count(*) AS n FROM audit_logs'))!.n)
  const before = await count()
  const unknown = await login('a-wrong-password-1', `nobody-${uniq('x')}@test.local`)({})
  assert.is(unknown.status, 401)
  assert.is(await count(), before, 'an unknown email is recorded in no tenant')
})

/** A new tenant's admin as the audit log names it (made by signup: the one user of its tenant). */
async function tenantAdmin(): Promise<Actor> {
  const c = await t.newTenant()
  const u = await t.db.one('SELECT id, username, email FROM users WHERE tenant_id = ?', [
    c.tenantID,
  ])
  const [userIntID, username, email] = [Number(u!.id), String(u!.username), String(u!.email)]
  return { c, userIntID, username, email, role: 'admin' }
}

main('tenants :: each admin reads only its own tenant’s rows', async () => {
  const b = await tenantAdmin()
  const auditB = new AuditCheck(t, () => b.c)
  const body = { productName: uniq('b-prod'), cloudProtocol: 1 }
  const pb = await auditB.write(b, 'POST', '/products', body, (r) => [
    row(
      'create',
      'product',
      named(r.body.id, r.body.productID, body.productName),
      Object.keys(body),
    ),
  ])
  const pa = (await productAndDevice()).p
  const rowsB = (await auditB.page('?_limit=1000')).items
  assert.equal(
    rowsB.map((r) => [r.userIntID, r.action, r.resourceID]),
    [[b.userIntID, 'create', pb.body.productID]],
  )
  const rowsA = (await audit.page('?_limit=1000')).items
  assert.ok(rowsA.some((r) => r.resourceID === pa.productID))
  assert.not.ok(rowsA.some((r) => r.userIntID === b.userIntID))
  assert.is((await auditB.page(`?resourceID=${pa.productID}`)).meta.count, 0)
  assert.is((await audit.page(`?resourceID=${pb.body.productID}`)).meta.count, 0)
  assert.is((await audit.page(`?userIntID=${b.userIntID}`)).meta.count, 0)
})

main('roles :: users, viewers and non-admin applications get 403; no credentials 401', async () => {
  for (const role of ['user', 'viewer'] as const) {
    const r = await (await roleActor(t, role)).c.get('/api/v1/audit_logs')
    assert.is(r.status, 403, `${role}: ${r.text}`)
    assert.is(r.body.errorCode, 'PERMISSION_DENIED')
  }
  const { actor: app, token } = await appActor(t, t.admin, uniq('reader'), 'user')
  secrets.push(token)
  assert.is((await app.c.get('/api/v1/audit_logs')).status, 403)
  assert.is((await t.anon.get('/api/v1/audit_logs')).status, 401)
})

main('filters :: userIntID, action, resourceType, resourceID, resourceIntID', async () => {
  const user = await roleActor(t, 'user')
  const { p, d } = await productAndDevice(user.c)
  await user.c.put(`/api/v1/devices/${d.id}`, { blocked: 1 })
  await user.c.del(`/api/v1/devices?ids=${d.id}`)
  const actions = (rows: { items: Array<{ action: string; resourceType: string }> }) =>
    rows.items.map((r) => `${r.action} ${r.resourceType}`)
  const by = await audit.page(`?userIntID=${user.userIntID}&_limit=100`)
  assert.equal(actions(by), [
    'delete device',
    'block device',
    'create device',
    'create product',
    'login user',
  ])
  const dev = await audit.page(`?resourceID=${d.deviceID}`)
  assert.equal(actions(dev), ['delete device', 'block device', 'create device'])
  const devInt = await audit.page(`?resourceIntID=${d.id}&resourceType=device`)
  assert.equal(devInt.items, dev.items)
  const blocks = await audit.page('?action=block&_limit=1000')
  assert.ok(blocks.items.length >= 2 && blocks.items.every((r) => r.action === 'block'))
  const products = await audit.page('?resourceType=product&_limit=1000')
  assert.ok(products.items.some((r) => r.resourceIntID === p.id))
  assert.ok(products.items.every((r) => r.resourceType === 'product'))
  const mine = await audit.page(`?resourceType=device&action=delete&userIntID=${user.userIntID}`)
  assert.equal(
    mine.items.map((r) => r.resourceIntID),
    [d.id],
  )
  assert.is((await t.admin.get('/api/v1/audit_logs?userIntID=abc')).status, 400)
})

main('time range :: startTime and endTime bound the rows', async () => {
  const all = (await audit.page('?_limit=1000')).items
  assert.ok(all.length > 20, `${all.length} rows`)
  const old = all.slice(-3).map((r) => r.id)
  await t.db.run(`UPDATE audit_logs SET time = ? WHERE id IN (${old.join(',')})`, [
    Date.UTC(2020, 5, 1),
  ])
  const wire = (ms: number) => encodeURIComponent(formatTime(ms, t.svc.deps.config.TIMEZONE)!)
  const until2020 = await audit.page(`?endTime=${wire(Date.UTC(2020, 11, 31))}&_limit=1000`)
  assert.equal(until2020.items.map((r) => r.id).sort(), [...old].sort())
  const since2021 = await audit.page(`?startTime=${wire(Date.UTC(2021, 0, 1))}&_limit=1000`)
  assert.is(since2021.meta.count, all.length - 3)
  assert.not.ok(since2021.items.some((r) => old.includes(r.id)))
  const span = `startTime=${wire(Date.UTC(2020, 0, 1))}&endTime=${wire(Date.UTC(2020, 11, 31))}`
  assert.is((await audit.page(`?${span}`)).meta.count, 3)
  assert.is((await audit.page(`?endTime=${wire(Date.UTC(2019, 0, 1))}`)).meta.count, 0)
})

main('paging :: newest first; pages and cursors cut the same list', async () => {
  const count = (await audit.page('?_limit=1')).meta.count
  const six = (await audit.page('?_limit=6')).items.map((r) => r.id)
  assert.ok(
    six.every((id, i) => i === 0 || id < six[i - 1]!),
    'newest first',
  )
  const page2 = await audit.page('?_limit=3&_page=2')
  assert.equal(
    page2.items.map((r) => r.id),
    six.slice(3),
  )
  assert.is(page2.meta.count, count)
  const first = await audit.page('?_limit=3')
  const next = await audit.page(`?_limit=3&_after=${encodeURIComponent(String(first.meta.next))}`)
  assert.equal(
    next.items.map((r) => r.id),
    six.slice(3),
  )
})

main(
  'changes at once :: state patches and commands batched together, one row per request',
  async () => {
    const { p } = await productAndDevice()
    const devices: Loose[] = []
    for (let i = 0; i < 4; i++)
      devices.push((await t.admin.post('/api/v1/devices', mqttBody(p.productID))).body)
    // the state writer and the command store write the changes of one turn in one transaction
    await audit.together(
      devices.map((d, i) => ({
        who: admin,
        method: 'PATCH',
        path: `/devices/${d.id}/state`,
        body: { desired: { n: i } },
        expect: [row('state', 'device', deviceIds(d), ['desired'])],
      })),
    )
    await audit.together(
      devices.map((d) => ({
        who: admin,
        method: 'POST',
        path: '/device_publish',
        body: { deviceID: d.deviceID, payload: 'x', ttl: 60 },
        expect: [row('command', 'device', deviceIds(d), ['deviceID', 'payload', 'ttl'])],
      })),
    )
  },
)

main(
  'coverage :: every write route of the app declares what it records, and was recorded above',
  () => {
    const routes = auditedRoutes(t)
    assert.ok(routes.length > 80, `${routes.length} routes`)
    const undeclared = routes.filter((r) => {
      const [method, path] = r.split(' ') as [string, string]
      return routeAudit(method, path) === undefined
    })
    assert.equal(undeclared, [], 'say what they record in src/http/audit-routes.ts')
    assert.equal(
      routes.filter((r) => !audit.covered.has(r)),
      [],
    )
  },
)

/** Asserts that no secret of `list` is in `text`. */
function assertNoSecret(text: string, list: readonly string[], where: string) {
  for (const secret of list) {
    assert.ok(secret.length >= 8, secret)
    assert.not.ok(text.includes(secret), `${where} holds a secret: ${secret}`)
  }
}

main(
  'secrets :: no password, token, app token, webhook secret or private key in any row',
  async () => {
    assert.ok(secrets.length >= 10, `${secrets.length} secrets`)
    assertNoSecret((await t.admin.get('/api/v1/audit_logs?_limit=1000')).text, secrets, 'the list')
    assertNoSecret(JSON.stringify(await t.db.all('SELECT * FROM audit_logs')), secrets, 'a row')
  },
)

main.run()

// ---------------------------------------------------------------------------------------------------------------

let tb: TestService
let auditB: AuditCheck
let adminB: Actor
const variantB = serviceSuite(
  'audit log (Variant B)',
  async (svc) => {
    tb = svc
    auditB = new AuditCheck(tb, () => tb.admin)
    adminB = await adminActor(tb, ADMIN_EMAIL)
  },
  kits.B.env,
)

/** POST `path` with `body` to the Variant B service: one create row, named by `name` of the body. */
async function createdB(
  path: string,
  resourceType: string,
  body: Body,
  idField: string,
  name: string,
) {
  const r = await auditB.write(adminB, 'POST', path, body, (r) => [
    row(
      'create',
      resourceType,
      named(r.body.id, r.body[idField], String(body[name])),
      Object.keys(body),
    ),
  ])
  return r.body
}

variantB(
  'devices :: a terminal and a gateway created, updated, deleted together, a row each',
  async () => {
    const k = kits.B
    const p = await createdB('/products', 'product', k.productBody(), 'productID', 'productName')
    const made: Ids[] = []
    const tokens: string[] = []
    for (const deviceType of [0, 1]) {
      const body = k.deviceBody(p.productID, { deviceType })
      const d = await createdB('/devices', 'device', body, 'deviceID', 'deviceName')
      tokens.push(d.token)
      made.push(named(d.id, d.deviceID, String(body.deviceName)))
    }
    for (const ids of made)
      await auditB.write(adminB, 'PUT', `/devices/${ids.resourceIntID}`, { description: 'e' }, [
        row('update', 'device', ids, ['description']),
      ])
    await auditB.write(adminB, 'PUT', `/devices/${made[0]!.resourceIntID}`, { blocked: 1 }, [
      row('block', 'device', made[0]!, ['blocked']),
    ])
    const all = made.map((d) => d.resourceIntID).join(',')
    await auditB.write(adminB, 'DELETE', `/devices?ids=${all}`, undefined, [
      ...made.map((ids) => row('delete', 'device', ids)),
    ])
    assertNoSecret((await tb.admin.get('/api/v1/audit_logs?_limit=1000')).text, tokens, 'the list')
  },
)

variantB.run()
