/**
 * Webhooks over the real service and a real HTTP receiver: the CRUD rules (secret shown once, link-local hosts
 * refused, roles, tenants), signed deliveries of real events, retries with backoff on an injected clock, the
 * 24 h give-up and a retry by hand.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHmac } from 'node:crypto'
import type { PublishAnswer } from '../../../src/schemas/commands.ts'
import type { Webhook, WebhookCreated, WebhookDelivery } from '../../../src/schemas/webhooks.ts'
import { Client, startTestService, type TestService } from '../../_support/service.ts'
import type { ErrorBody, Page, Wire } from '../../_support/wire.ts'
import { devices, until } from '../../ingest/_mqtt.ts'
import type { NewDevice } from '../routes/devices-helpers.ts'
import { startReceiver, type Receiver } from './_receiver.ts'
import type { OutboxData } from './_stream.ts'

type Hook = Wire<typeof WebhookCreated>
type Deliveries = Page<Wire<typeof WebhookDelivery>>
type Refusal = ErrorBody & { errors: Record<string, string> }

const test = suite('webhooks')
let t: TestService
let c: Client
let rx: Receiver
let ds: [NewDevice, NewDevice, NewDevice, NewDevice]
let offset = 0
const HOUR = 3600_000

test.before(async () => {
  t = await startTestService({}, { now: () => Date.now() + offset })
  c = t.admin
  rx = await startReceiver()
  ds = (await devices(t, 4)).devices
})
test.after(async () => {
  await t.close()
  await rx.close()
})

/** A queued command to an offline device: one `command.status` event. */
const queueCommand = async (d: NewDevice) => {
  const r = await c.post<Wire<typeof PublishAnswer>>('/api/v1/device_publish', {
    deviceID: d.deviceID,
    payload: 'x',
    ttl: 600,
  })
  assert.is(r.status, 201, r.text)
  return r.body.taskID
}
const deliveries = async (id: number) =>
  (await c.get<Deliveries>(`/api/v1/webhooks/${id}/deliveries`)).body
const hmac = (secret: string, text: string) =>
  createHmac('sha256', secret).update(text).digest('hex')

test('create :: 201 with a secret once; list and detail never show it; events default to all', async () => {
  const r = await c.post<Hook>('/api/v1/webhooks', { url: `${rx.url}/crud` })
  assert.is(r.status, 201, r.text)
  assert.equal(Object.keys(r.body).sort(), [
    'createAt',
    'enable',
    'events',
    'id',
    'secret',
    'updateAt',
    'url',
  ])
  assert.match(r.body.secret, /^[0-9a-f]{48}$/)
  assert.equal(r.body.events, [
    'alert.raised',
    'alert.cleared',
    'alert.acked',
    'command.status',
    'device.online',
    'device.offline',
  ])
  assert.is(r.body.enable, 1)
  const detail = await c.get<Wire<typeof Webhook>>(`/api/v1/webhooks/${r.body.id}`)
  assert.is(detail.status, 200)
  assert.not.ok('secret' in detail.body)
  const list = await c.get<Page<Wire<typeof Webhook>>>('/api/v1/webhooks')
  assert.ok(list.body.items.every((w) => !('secret' in w)))
  assert.is(list.body.meta.count, 1)
  const put = await c.put<Wire<typeof Webhook>>(`/api/v1/webhooks/${r.body.id}`, {
    url: `${rx.url}/crud2`,
    events: ['device.online'],
    enable: 0,
  })
  assert.is(put.status, 200, put.text)
  assert.equal(
    [put.body.url, put.body.events, put.body.enable],
    [`${rx.url}/crud2`, ['device.online'], 0],
  )
  assert.not.ok('secret' in put.body)
  assert.is((await c.del(`/api/v1/webhooks?ids=${r.body.id}`)).status, 204)
  assert.is((await c.get(`/api/v1/webhooks/${r.body.id}`)).status, 404)
})

test('bad urls :: 422 errors.url for link-local literals, other schemes; unknown event type', async () => {
  for (const url of [
    'http://169.254.169.254/latest/meta-data',
    'http://[fe80::1]/x',
    'https://[::ffff:169.254.1.1]/',
    'ftp://example.com/',
    'not a url',
  ]) {
    const r = await c.post<Refusal>('/api/v1/webhooks', { url })
    assert.is(r.status, 422, `${url}: ${r.text}`)
    assert.equal(Object.keys(r.body.errors), ['url'], url)
  }
  const r = await c.post<Refusal>('/api/v1/webhooks', { url: rx.url, events: ['nope'] })
  assert.is(r.status, 422)
  assert.ok(r.body.errors['events.0'], r.text)
})

test('roles and tenants :: viewers read only; another tenant sees 404 and its own empty list', async () => {
  const hook = (await c.post<Hook>('/api/v1/webhooks', { url: `${rx.url}/roles`, enable: 0 })).body
  const viewer = await t.userWithRole('viewer')
  assert.is((await viewer.get('/api/v1/webhooks')).status, 200)
  assert.is((await viewer.post('/api/v1/webhooks', { url: rx.url })).status, 403)
  const user = await t.userWithRole('user')
  const mine = await user.post<Hook>('/api/v1/webhooks', { url: `${rx.url}/user`, enable: 0 })
  assert.is(mine.status, 201, mine.text)
  const other = await t.newTenant()
  assert.is((await other.get(`/api/v1/webhooks/${hook.id}`)).status, 404)
  assert.is((await other.get(`/api/v1/webhooks/${hook.id}/deliveries`)).status, 404)
  assert.is((await other.put(`/api/v1/webhooks/${hook.id}`, { url: rx.url })).status, 404)
  assert.is((await other.del(`/api/v1/webhooks?ids=${hook.id}`)).status, 404)
  assert.is((await other.get<Page<Wire<typeof Webhook>>>('/api/v1/webhooks')).body.meta.count, 0)
  await c.del(`/api/v1/webhooks?ids=${hook.id},${mine.body.id}`)
})

test('a delivery :: signed body {id,type,time,tenantID,data}; headers; succeeded after 1 attempt', async () => {
  const hook = (
    await c.post<Hook>('/api/v1/webhooks', { url: `${rx.url}/signed`, events: ['command.status'] })
  ).body
  const taskID = await queueCommand(ds[0])
  const got = await until(
    async () => rx.got.filter((g) => g.path === '/signed'),
    (g) => g.length > 0,
  )
  assert.is(got.length, 1)
  const { headers, body } = got[0]!
  const ts = String(headers['x-devicecloud-timestamp'])
  assert.is(headers['x-devicecloud-signature'], `sha256=${hmac(hook.secret, `${ts}.${body}`)}`)
  assert.ok(Math.abs(Number(ts) - Date.now() / 1000) < 5)
  assert.is(headers['x-devicecloud-event'], 'command.status')
  const event = JSON.parse(body) as OutboxData
  assert.equal(Object.keys(event), ['id', 'type', 'time', 'tenantID', 'data'])
  assert.is(String(event.id), headers['x-devicecloud-delivery'])
  assert.is(event.type, 'command.status')
  assert.is(event.data.taskID, taskID)
  assert.is(event.data.commandStatus, 'queued')
  assert.is(event.data.deviceID, ds[0].deviceID)
  const list = await until(
    () => deliveries(hook.id),
    (l) => l.items[0]?.status === 'succeeded',
  )
  assert.is(list.meta.count, 1)
  const d = list.items[0]!
  assert.equal(
    [d.status, d.attempts, d.responseCode, d.eventID, d.type, d.nextTryAt],
    ['succeeded', 1, 200, event.id, 'command.status', null],
  )
  assert.ok(typeof d.durationMs === 'number')
  await c.del(`/api/v1/webhooks?ids=${hook.id}`)
})

test('a failing receiver :: 500 twice then 200, 10 s then 20 s apart; 3 attempts counted', async () => {
  const hook = (
    await c.post<Hook>('/api/v1/webhooks', { url: `${rx.url}/flaky`, events: ['command.status'] })
  ).body
  rx.answers.push(500, 500)
  await queueCommand(ds[1])
  const path = () => rx.got.filter((g) => g.path === '/flaky')
  await until(
    async () => path().length,
    (n) => n === 1,
  )
  let d = (
    await until(
      () => deliveries(hook.id),
      (l) => l.items[0]?.attempts === 1,
    )
  ).items[0]!
  assert.equal([d.status, d.attempts, d.responseCode], ['pending', 1, 500])
  await new Promise((r) => setTimeout(r, 800))
  assert.is(path().length, 1, 'not before 10 s')
  offset += 10_500
  await until(
    async () => path().length,
    (n) => n === 2,
  )
  d = (
    await until(
      () => deliveries(hook.id),
      (l) => l.items[0]?.attempts === 2,
    )
  ).items[0]!
  assert.equal([d.status, d.attempts, d.responseCode], ['pending', 2, 500])
  offset += 10_500
  await new Promise((r) => setTimeout(r, 800))
  assert.is(path().length, 2, 'the second wait is 20 s')
  offset += 10_000
  d = (
    await until(
      () => deliveries(hook.id),
      (l) => l.items[0]?.status === 'succeeded',
    )
  ).items[0]!
  assert.equal([d.status, d.attempts, d.responseCode], ['succeeded', 3, 200])
  const ids = new Set(path().map((g) => g.headers['x-devicecloud-delivery']))
  assert.is(ids.size, 1, 'the same event id every time')
  await c.del(`/api/v1/webhooks?ids=${hook.id}`)
})

test('24 h of failures :: failed; a retry by hand sends it again', async () => {
  const hook = (
    await c.post<Hook>('/api/v1/webhooks', { url: `${rx.url}/down`, events: ['command.status'] })
  ).body
  rx.answers.push(503, 503)
  await queueCommand(ds[2])
  const first = (
    await until(
      () => deliveries(hook.id),
      (l) => l.items[0]?.attempts === 1,
    )
  ).items[0]!
  // the day also expires the queued commands: their events are deliveries of their own
  const mine = () =>
    c.get<Deliveries>(`/api/v1/webhooks/${hook.id}/deliveries?eventID=${first.eventID}`)
  offset += 25 * HOUR
  const failed = (await until(mine, (l) => l.body.items[0]?.status === 'failed', 4000)).body
    .items[0]!
  assert.equal(
    [failed.status, failed.attempts, failed.responseCode, failed.nextTryAt],
    ['failed', 2, 503, null],
  )
  const other = await t.newTenant()
  assert.is(
    (await other.post(`/api/v1/webhooks/${hook.id}/deliveries/${failed.id}/retry`)).status,
    404,
  )
  const retry = await c.post<Wire<typeof WebhookDelivery>>(
    `/api/v1/webhooks/${hook.id}/deliveries/${failed.id}/retry`,
  )
  assert.is(retry.status, 200, retry.text)
  assert.is(retry.body.status, 'pending')
  const done = (await until(mine, (l) => l.body.items[0]?.status === 'succeeded')).body.items[0]!
  assert.equal([done.attempts, done.responseCode], [3, 200])
  await c.del(`/api/v1/webhooks?ids=${hook.id}`)
})

test('retention :: events older than EVENT_RETENTION_DAYS go with their delivery log', async () => {
  const hook = (await c.post<Hook>('/api/v1/webhooks', { url: `${rx.url}/kept` })).body
  await queueCommand(ds[3])
  const before = await until(
    () => deliveries(hook.id),
    (l) => l.items.some((d) => d.status === 'succeeded'),
  )
  const eventIDs = before.items.map((d) => d.eventID)
  const stored = async () =>
    Number(
      (await t.db.one(
        `SELECT count(*) AS n FROM outbox_events WHERE id IN (${eventIDs.map(() => '?').join(',')})`,
        eventIDs,
      ))!.n,
    )
  assert.ok((await stored()) > 0)
  offset += 8 * 24 * HOUR // past the default 7 days; the hourly prune runs on the next pass
  const left = await until(stored, (n) => n === 0, 5000)
  assert.is(left, 0)
  // what the hook's log still lists are events of the new day (commands expiring), none of the old ones
  const after = await deliveries(hook.id)
  assert.ok(after.items.every((d) => !eventIDs.includes(d.eventID)))
  await c.del(`/api/v1/webhooks?ids=${hook.id}`)
})

test.run()
