/**
 * Webhooks over the real service and a real HTTP receiver: the CRUD rules (secret shown once, link-local hosts
 * refused, roles, tenants), signed deliveries of real events, retries with backoff on an injected clock, the
 * 24 h give-up and a retry by hand.
 */
import * as assert from 'uvu/assert'
import { createHmac } from 'node:crypto'
import type { Webhook, WebhookCreated, WebhookDelivery } from '../../../src/schemas/webhooks.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import { until } from '../../ingest/_mqtt.ts'
import type { OutboxData } from './_stream.ts'
import { queueCommand } from './_commands.ts'
import {
  assertUrlsRefused,
  commandHook,
  deliveries,
  firstAttempt,
  hookSuite,
  type Refusal,
} from './_webhooks.ts'

type Hook = Wire<typeof WebhookCreated>
type Deliveries = Page<Wire<typeof WebhookDelivery>>

let offset = 0
const HOUR = 3600_000
const { test, w } = hookSuite('webhooks', {}, { now: () => Date.now() + offset })

const hmac = (secret: string, text: string) =>
  createHmac('sha256', secret).update(text).digest('hex')

test('create :: 201 with a secret once; list and detail never show it; events default to all', async () => {
  const r = await w.c.post<Hook>('/api/v1/webhooks', { url: `${w.rx.url}/crud` })
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
    'device.state',
    'firmware.rollout',
    'firmware.device',
  ])
  assert.is(r.body.enable, 1)
  const detail = await w.c.get<Wire<typeof Webhook>>(`/api/v1/webhooks/${r.body.id}`)
  assert.is(detail.status, 200)
  assert.not.ok('secret' in detail.body)
  const list = await w.c.get<Page<Wire<typeof Webhook>>>('/api/v1/webhooks')
  assert.ok(list.body.items.every((w) => !('secret' in w)))
  assert.is(list.body.meta.count, 1)
  const put = await w.c.put<Wire<typeof Webhook>>(`/api/v1/webhooks/${r.body.id}`, {
    url: `${w.rx.url}/crud2`,
    events: ['device.online'],
    enable: 0,
  })
  assert.is(put.status, 200, put.text)
  assert.equal(
    [put.body.url, put.body.events, put.body.enable],
    [`${w.rx.url}/crud2`, ['device.online'], 0],
  )
  assert.not.ok('secret' in put.body)
  assert.is((await w.c.del(`/api/v1/webhooks?ids=${r.body.id}`)).status, 204)
  assert.is((await w.c.get(`/api/v1/webhooks/${r.body.id}`)).status, 404)
})

test('bad urls :: 422 errors.url for link-local literals, other schemes; unknown event type', async () => {
  await assertUrlsRefused(w.c, [
    'http://169.254.169.254/latest/meta-data',
    'http://[fe80::1]/x',
    'https://[::ffff:169.254.1.1]/',
    'ftp://example.com/',
    'not a url',
  ])
  const r = await w.c.post<Refusal>('/api/v1/webhooks', { url: w.rx.url, events: ['nope'] })
  assert.is(r.status, 422)
  assert.ok(r.body.errors['events.0'], r.text)
})

test('roles and tenants :: viewers read only; another tenant sees 404 and its own empty list', async () => {
  const hook = (await w.c.post<Hook>('/api/v1/webhooks', { url: `${w.rx.url}/roles`, enable: 0 }))
    .body
  const viewer = await w.t.userWithRole('viewer')
  assert.is((await viewer.get('/api/v1/webhooks')).status, 200)
  assert.is((await viewer.post('/api/v1/webhooks', { url: w.rx.url })).status, 403)
  const user = await w.t.userWithRole('user')
  const mine = await user.post<Hook>('/api/v1/webhooks', { url: `${w.rx.url}/user`, enable: 0 })
  assert.is(mine.status, 201, mine.text)
  const other = await w.t.newTenant()
  assert.is((await other.get(`/api/v1/webhooks/${hook.id}`)).status, 404)
  assert.is((await other.get(`/api/v1/webhooks/${hook.id}/deliveries`)).status, 404)
  assert.is((await other.put(`/api/v1/webhooks/${hook.id}`, { url: w.rx.url })).status, 404)
  assert.is((await other.del(`/api/v1/webhooks?ids=${hook.id}`)).status, 404)
  assert.is((await other.get<Page<Wire<typeof Webhook>>>('/api/v1/webhooks')).body.meta.count, 0)
  await w.c.del(`/api/v1/webhooks?ids=${hook.id},${mine.body.id}`)
})

test('a delivery :: signed body {id,type,time,tenantID,data}; headers; succeeded after 1 attempt', async () => {
  const hook = await commandHook(w.c, `${w.rx.url}/signed`)
  const taskID = await queueCommand(w.c, w.ds[0].deviceID)
  const got = await until(
    async () => w.rx.got.filter((g) => g.path === '/signed'),
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
  assert.is(event.data.deviceID, w.ds[0].deviceID)
  const list = await until(
    () => deliveries(w.c, hook.id),
    (l) => l.items[0]?.status === 'succeeded',
  )
  assert.is(list.meta.count, 1)
  const d = list.items[0]!
  assert.equal(
    [d.status, d.attempts, d.responseCode, d.eventID, d.type, d.nextTryAt],
    ['succeeded', 1, 200, event.id, 'command.status', null],
  )
  assert.ok(typeof d.durationMs === 'number')
  await w.c.del(`/api/v1/webhooks?ids=${hook.id}`)
})

test('a failing receiver :: 500 twice then 200, 10 s then 20 s apart; 3 attempts counted', async () => {
  const hook = await commandHook(w.c, `${w.rx.url}/flaky`)
  w.rx.answers.push(500, 500)
  await queueCommand(w.c, w.ds[1].deviceID)
  const path = () => w.rx.got.filter((g) => g.path === '/flaky')
  await until(
    async () => path().length,
    (n) => n === 1,
  )
  let d = await firstAttempt(w.c, hook.id)
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
      () => deliveries(w.c, hook.id),
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
      () => deliveries(w.c, hook.id),
      (l) => l.items[0]?.status === 'succeeded',
    )
  ).items[0]!
  assert.equal([d.status, d.attempts, d.responseCode], ['succeeded', 3, 200])
  const ids = new Set(path().map((g) => g.headers['x-devicecloud-delivery']))
  assert.is(ids.size, 1, 'the same event id every time')
  await w.c.del(`/api/v1/webhooks?ids=${hook.id}`)
})

test('24 h of failures :: failed; a retry by hand sends it again', async () => {
  const hook = await commandHook(w.c, `${w.rx.url}/down`)
  w.rx.answers.push(503, 503)
  await queueCommand(w.c, w.ds[2].deviceID)
  const first = await firstAttempt(w.c, hook.id)
  // the day also expires the queued commands: their events are deliveries of their own
  const mine = () =>
    w.c.get<Deliveries>(`/api/v1/webhooks/${hook.id}/deliveries?eventID=${first.eventID}`)
  offset += 25 * HOUR
  const failed = (await until(mine, (l) => l.body.items[0]?.status === 'failed', 4000)).body
    .items[0]!
  assert.equal(
    [failed.status, failed.attempts, failed.responseCode, failed.nextTryAt],
    ['failed', 2, 503, null],
  )
  const other = await w.t.newTenant()
  assert.is(
    (await other.post(`/api/v1/webhooks/${hook.id}/deliveries/${failed.id}/retry`)).status,
    404,
  )
  const retry = await w.c.post<Wire<typeof WebhookDelivery>>(
    `/api/v1/webhooks/${hook.id}/deliveries/${failed.id}/retry`,
  )
  assert.is(retry.status, 200, retry.text)
  assert.is(retry.body.status, 'pending')
  const done = (await until(mine, (l) => l.body.items[0]?.status === 'succeeded')).body.items[0]!
  assert.equal([done.attempts, done.responseCode], [3, 200])
  await w.c.del(`/api/v1/webhooks?ids=${hook.id}`)
})

test('retention :: events older than EVENT_RETENTION_DAYS go with their delivery log', async () => {
  const hook = (await w.c.post<Hook>('/api/v1/webhooks', { url: `${w.rx.url}/kept` })).body
  await queueCommand(w.c, w.ds[3].deviceID)
  const before = await until(
    () => deliveries(w.c, hook.id),
    (l) => l.items.some((d) => d.status === 'succeeded'),
  )
  const eventIDs = before.items.map((d) => d.eventID)
  const stored = async () =>
    Number(
      (await w.t.db.one(
        `SELECT count(*) AS n FROM outbox_events WHERE id IN (${eventIDs.map(() => '?').join(',')})`,
        eventIDs,
      ))!.n,
    )
  assert.ok((await stored()) > 0)
  offset += 8 * 24 * HOUR // past the default 7 days; the hourly prune runs on the next pass
  const left = await until(stored, (n) => n === 0, 5000)
  assert.is(left, 0)
  // what the hook's log still lists are events of the new day (commands expiring), none of the old ones
  const after = await deliveries(w.c, hook.id)
  assert.ok(after.items.every((d) => !eventIDs.includes(d.eventID)))
  await w.c.del(`/api/v1/webhooks?ids=${hook.id}`)
})

test.run()
