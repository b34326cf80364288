/**
 * Device state through the real embedded broker with MQTT.js devices: `state/delta` pushed on every change and
 * within a second of a (re)subscription or a resumed session, `state/reported` committed before its PUBACK,
 * `state/get` answered on `state/document`, refused reports recorded as rejected events, a group patch to two
 * devices of which one is offline, and an HTTP device's long poll and report.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { MqttClient } from 'mqtt'
import { startTestService, waitTask, type TestService } from '../_support/service.ts'
import { basic, eventsOf } from '../src/routes/_ingest.ts'
import { deltaWhere, stateInbox, type Doc } from '../src/services/_state.ts'
import { connectDevice, devices, end, fullTopic, sleep, until } from './_mqtt.ts'

const test = suite('device state over MQTT')
let t: TestService
const clients: MqttClient[] = []

test.before(async () => {
  t = await startTestService()
})
test.after(async () => {
  for (const m of clients) end(m)
  await t.close()
})

const statePath = (id: number) => `/api/v1/devices/${id}/state`
const getDoc = async (id: number) => (await t.admin.get<Doc>(statePath(id))).body

async function online(d: Parameters<typeof connectDevice>[1], opts: { clean?: boolean } = {}) {
  const m = await connectDevice(t, d, opts)
  clients.push(m)
  return { m, inbox: stateInbox(m) }
}

test('a change :: the subscribed device gets {desired, delta, version, desiredVersion} at once', async () => {
  const [d] = (await devices(t, 1)).devices
  const { m, inbox } = await online(d)
  await m.subscribeAsync('state/delta', { qos: 1 })
  const sent = Date.now()
  const r = await t.admin.patch<Doc>(statePath(d.id), { desired: { setpoint: 21 } })
  const got = await deltaWhere(inbox, (x) => x.desiredVersion === r.body.desiredVersion)
  assert.ok(got, 'delta received')
  assert.equal(
    {
      desired: got.desired,
      delta: got.delta,
      version: got.version,
      desiredVersion: got.desiredVersion,
    },
    { desired: { setpoint: 21 }, delta: { setpoint: 21 }, version: 1, desiredVersion: 1 },
  )
  assert.ok(got.at - sent < 1000, `${got.at - sent} ms after the patch was sent`)
})

test('state/reported :: committed by its PUBACK; the emptied delta is pushed; stateDelta back to 0', async () => {
  const [d] = (await devices(t, 1)).devices
  const { m, inbox } = await online(d)
  await m.subscribeAsync('state/delta', { qos: 1 })
  await t.admin.patch(statePath(d.id), { desired: { setpoint: 21, mode: 'eco' } })
  await deltaWhere(inbox, (x) => x.desiredVersion === 1)
  await m.publishAsync('state/reported', JSON.stringify({ setpoint: 21 }), { qos: 1 })
  // the PUBACK came: the report is stored
  const mid = await getDoc(d.id)
  assert.equal(mid.reported, { setpoint: 21 })
  assert.equal(mid.delta, { mode: 'eco' })
  await m.publishAsync(
    'state/reported',
    JSON.stringify({ reported: { mode: 'eco', fw: '1.2' }, clientToken: 'tok-1' }),
    { qos: 1 },
  )
  const doc = await getDoc(d.id)
  assert.equal(doc.reported, { setpoint: 21, mode: 'eco', fw: '1.2' })
  assert.equal(doc.delta, {})
  assert.equal([doc.version, doc.desiredVersion, doc.reportedVersion], [3, 1, 2])
  assert.is((await t.admin.get(`/api/v1/devices/${d.id}`)).body.stateDelta, 0)
  const empty = await deltaWhere(inbox, (x) => x.version === 3)
  assert.equal(empty?.delta, {}, 'the delta turned empty: pushed')
  assert.ok(
    await until(
      async () => inbox.documents.find((x) => x.clientToken === 'tok-1'),
      (x) => x !== undefined,
    ),
    'a report with a clientToken is answered on state/document',
  )
})

test('state/get :: the whole document on state/document with the clientToken; empty payload too', async () => {
  const [d] = (await devices(t, 1)).devices
  await t.admin.patch(statePath(d.id), { desired: { a: 1 } })
  const { m, inbox } = await online(d)
  await m.subscribeAsync('state/document', { qos: 1 })
  await m.publishAsync('state/get', JSON.stringify({ clientToken: 'abc' }), { qos: 1 })
  await m.publishAsync('state/get', '', { qos: 1 })
  await until(
    async () => inbox.documents.length,
    (n) => n >= 2,
  )
  const [first, second] = inbox.documents
  assert.is(first!.clientToken, 'abc')
  assert.equal(first!.desired, { a: 1 })
  assert.equal(first!.delta, { a: 1 })
  assert.is(first!.deviceID, d.deviceID)
  assert.not.ok('clientToken' in second!)
})

test('offline :: a device patched while away gets its delta within 1 s of subscribing', async () => {
  const [d, other] = (await devices(t, 2)).devices
  await t.admin.patch(statePath(d.id), { desired: { mode: 'away' } })
  await t.admin.patch(statePath(other.id), { desired: { mode: 'other' } })
  const { m, inbox } = await online(d)
  const subscribed = Date.now()
  await m.subscribeAsync('state/delta', { qos: 1 })
  const got = await deltaWhere(inbox, () => true, 1000)
  assert.ok(got, 'pushed without being asked')
  assert.ok(got.at - subscribed <= 1000, `${got.at - subscribed} ms`)
  assert.equal(got.delta, { mode: 'away' }, 'its own delta, not another device’s')
  // a device whose delta is empty gets nothing on subscribing
  const [calm] = (await devices(t, 1)).devices
  const q = await online(calm)
  await q.m.subscribeAsync('state/delta', { qos: 1 })
  await sleep(500)
  assert.is(q.inbox.deltas.length, 0)
})

test('resumed session :: a kept subscription gets the pending delta within 1 s of connecting', async () => {
  const [d] = (await devices(t, 1)).devices
  const first = await online(d, { clean: false })
  await first.m.subscribeAsync('state/delta', { qos: 1 })
  await first.m.endAsync()
  await t.admin.patch(statePath(d.id), { desired: { fan: 3 } })
  const started = Date.now()
  const again = await online(d, { clean: false })
  const got = await deltaWhere(again.inbox, (x) => x.delta.fan === 3, 1500)
  assert.ok(got, 'pushed on the resumed session')
  assert.ok(got.at - started <= 1500, `${got.at - started} ms`)
})

test('full topic form :: a device subscribed by its full topic receives the full topic', async () => {
  const [d] = (await devices(t, 1)).devices
  const full = await fullTopic(t, d, 'state/delta')
  const m = await connectDevice(t, d)
  clients.push(m)
  const topics: string[] = []
  m.on('message', (topic) => topics.push(topic))
  await m.subscribeAsync(full, { qos: 1 })
  await t.admin.patch(statePath(d.id), { desired: { x: 1 } })
  await until(
    async () => topics.length,
    (n) => n > 0,
  )
  assert.equal(topics, [full])
})

test('refused reports :: not JSON, a $ key, over 16 KiB: rejected events with the reason; nothing changes', async () => {
  const [d] = (await devices(t, 1)).devices
  const { m } = await online(d)
  await m.publishAsync('state/reported', '{not json', { qos: 1 })
  await m.publishAsync('state/reported', JSON.stringify({ $x: 1 }), { qos: 1 })
  await m.publishAsync('state/reported', JSON.stringify({ big: 'x'.repeat(17000) }), { qos: 1 })
  await m.publishAsync('state/delta', JSON.stringify({ forged: 1 }), { qos: 1 })
  await m.publishAsync('state/reported', JSON.stringify({ huge: 'y'.repeat(70_000) }), { qos: 1 })
  const events = await eventsOf(t.admin, d.deviceID)
  const reasons = events.map((e) => `${e.topic} ${e.status} ${e.reason}`).sort()
  assert.is(reasons.length, 5, reasons.join('\n'))
  assert.match(reasons.join('\n'), /state\/reported 0 .*not JSON/)
  assert.match(reasons.join('\n'), /state\/reported 0 .*\$x/)
  assert.match(reasons.join('\n'), /state\/reported 0 .*over the limit/)
  assert.match(reasons.join('\n'), /state\/delta 0 .*reserved/)
  assert.match(
    reasons.join('\n'),
    /state\/reported 0 70\d{3} bytes: a state message holds at most 65536/,
  )
  const doc = await getDoc(d.id)
  assert.is(doc.version, 0)
})

test('group patch :: two members, one offline: a task; each gets its delta (the offline one on return)', async () => {
  const { product, devices: ds } = await devices(t, 3)
  const [on, off, outside] = ds
  const g = await t.admin.post('/api/v1/groups', {
    productID: product.productID,
    groupName: `g-${Date.now()}`,
  })
  await t.admin.post(`/api/v1/groups/${g.body.id}/devices`, { ids: [on.id, off.id] })
  const live = await online(on)
  await live.m.subscribeAsync('state/delta', { qos: 1 })
  const r = await t.admin.patch(`/api/v1/groups/${g.body.id}/state`, { desired: { mode: 'night' } })
  assert.is(r.status, 202, r.text)
  assert.match(r.body.statusUrl, /^\/task_status\//)
  const task = await waitTask(t.admin, r.body.statusUrl)
  assert.is(task.status, 3, JSON.stringify(task))
  assert.equal(task.result, { total: 2, changed: 2, unchanged: 0, failed: 0 })
  assert.ok(await deltaWhere(live.inbox, (x) => x.delta.mode === 'night'))
  assert.equal((await getDoc(outside.id)).desired, {}, 'a device outside the group is untouched')
  const back = await online(off)
  const at = Date.now()
  await back.m.subscribeAsync('state/delta', { qos: 1 })
  const got = await deltaWhere(back.inbox, (x) => x.delta.mode === 'night', 1000)
  assert.ok(got && got.at - at <= 1000)
  // the same patch again changes nothing
  const again = await t.admin.patch(`/api/v1/groups/${g.body.id}/state`, {
    desired: { mode: 'night' },
  })
  const task2 = await waitTask(t.admin, again.body.statusUrl)
  assert.equal(task2.result, { total: 2, changed: 0, unchanged: 2, failed: 0 })
  const list = await t.admin.get(`/api/v1/devices?stateDelta=1&productID=${product.productID}`)
  assert.equal(
    list.body.items.map((x: { deviceID: string }) => x.deviceID).sort(),
    [on.deviceID, off.deviceID].sort(),
  )
})

test('product patch :: every device of the product; another product untouched', async () => {
  const { product, devices: ds } = await devices(t, 2)
  const [elsewhere] = (await devices(t, 1)).devices
  const r = await t.admin.patch(`/api/v1/products/${product.id}/state`, { desired: { tz: 'UTC' } })
  assert.is(r.status, 202, r.text)
  const task = await waitTask(t.admin, r.body.statusUrl)
  assert.equal(task.result, { total: 2, changed: 2, unchanged: 0, failed: 0 })
  for (const d of ds) assert.equal((await getDoc(d.id)).desired, { tz: 'UTC' })
  assert.equal((await getDoc(elsewhere.id)).desired, {})
  const bad = await t.admin.patch(`/api/v1/products/${product.id}/state`, { desired: { $a: 1 } })
  assert.is(bad.status, 422)
})

test('HTTP device :: long poll answers on a newer desiredVersion; POST reports; an API caller is refused', async () => {
  const [d] = (await devices(t, 1)).devices
  const auth = { authorization: basic(d) }
  const now = await t.anon.get<Doc>('/api/v1/ingest/state', auth)
  assert.is(now.status, 200, now.text)
  assert.is(now.body.desiredVersion, 0)
  const started = Date.now()
  const waiting = t.anon.get<Doc>('/api/v1/ingest/state?wait=10&after=0', auth)
  await sleep(300)
  await t.admin.patch(statePath(d.id), { desired: { valve: 'open' } })
  const woke = await waiting
  assert.is(woke.status, 200)
  assert.equal(woke.body.desired, { valve: 'open' })
  assert.ok(Date.now() - started < 3000, 'answered at the change, not at the end of the wait')
  const timedOut = Date.now()
  const idle = await t.anon.get<Doc>('/api/v1/ingest/state?wait=1&after=1', auth)
  assert.ok(Date.now() - timedOut >= 900)
  assert.is(idle.body.desiredVersion, 1)
  const rep = await t.anon.post<Doc>('/api/v1/ingest/state', { reported: { valve: 'open' } }, auth)
  assert.is(rep.status, 200, rep.text)
  assert.equal(rep.body.delta, {})
  assert.is((await t.anon.get('/api/v1/ingest/state', { authorization: 'Basic eDp5' })).status, 401)
  assert.is((await t.admin.get('/api/v1/ingest/state')).status, 403)
  assert.is((await t.anon.get('/api/v1/ingest/state?wait=31', auth)).status, 400)
  const big = await t.anon.post(
    '/api/v1/ingest/state',
    { reported: { a: 'x'.repeat(17000) } },
    auth,
  )
  assert.is(big.status, 413)
})

test('HTTP ingest :: 1,200 reports of one device in one request, applied in order, none lost', async () => {
  const [d] = (await devices(t, 1)).devices
  const messages = Array.from({ length: 1200 }, (_, n) => ({
    topic: 'state/reported',
    payload: { n },
  }))
  const r = await t.anon.post('/api/v1/ingest', { messages }, { authorization: basic(d) })
  assert.is(r.status, 202, r.text)
  assert.equal(r.body.rejected, [])
  const doc = await getDoc(d.id)
  assert.equal([doc.reported, doc.reportedVersion, doc.version], [{ n: 1199 }, 1200, 1200])
  const versions = await t.db.all(
    "SELECT json_extract(data, '$.reportedVersion') AS v FROM outbox_events WHERE type = 'device.state' AND device_id = ? ORDER BY id",
    [d.deviceID],
  )
  assert.equal(
    versions.map((x) => Number(x.v)),
    Array.from({ length: 1200 }, (_, i) => i + 1),
    'one event a report, in order',
  )
})

test.run()
