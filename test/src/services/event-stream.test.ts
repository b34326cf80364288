/**
 * The live event stream (Server-Sent Events) over the real service: real events (queued commands, MQTT
 * connections, HTTP ingest) filtered by type and deviceID, scoped to the tenant, and a resume with
 * Last-Event-ID after a reconnect that neither repeats nor misses an event.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { MqttClient } from 'mqtt'
import { Client, startTestService, type TestService } from '../../_support/service.ts'
import { connectDevice, devices, end, sleep, until } from '../../ingest/_mqtt.ts'
import { basic, buildWorld, ingestTelemetry, type Credentials } from '../routes/_ingest.ts'
import type { NewDevice } from '../routes/devices-helpers.ts'
import { events, openStream, type OutboxData, type TelemetryData } from './_stream.ts'
import { queueCommand } from './_commands.ts'

const test = suite('live event stream')
let t: TestService
let c: Client
let ds: [NewDevice, NewDevice, NewDevice, NewDevice]
const clients: MqttClient[] = []

test.before(async () => {
  t = await startTestService()
  c = t.admin
  ds = (await devices(t, 4)).devices
})
test.after(async () => {
  for (const m of clients) end(m)
  await t.close()
})

test('types and deviceID :: only that device: command.status in order', async () => {
  const s = await openStream<OutboxData>(c, `?types=command.status&deviceID=${ds[0].deviceID}`)
  assert.is(s.status, 200)
  await sleep(100)
  const mine = await queueCommand(c, ds[0].deviceID)
  await queueCommand(c, ds[1].deviceID)
  const m = await connectDevice(t, ds[0])
  clients.push(m)
  // connecting delivers the queued command: sent, then delivered (the PUBACK)
  await until(
    async () => events(s).length,
    (n) => n >= 3,
  )
  await sleep(1200) // a poll of the outbox later: still nothing else
  s.close()
  const got = events(s)
  assert.equal(
    got.map((e) => [e.event, e.data.data.taskID, e.data.data.commandStatus]),
    [
      ['command.status', mine, 'queued'],
      ['command.status', mine, 'sent'],
      ['command.status', mine, 'delivered'],
    ],
  )
  assert.match(got[0]!.id!, /^\d+$/)
  assert.equal(Object.keys(got[0]!.data), ['id', 'type', 'time', 'tenantID', 'data'])
  assert.is(got[0]!.data.id, Number(got[0]!.id))
  assert.is(got[0]!.data.data.deviceID, ds[0].deviceID)
  end(m)
})

test('device.online :: an MQTT connection arrives; another tenant and a bad type see nothing', async () => {
  const other = await t.newTenant()
  const foreign = await openStream(other)
  const viewer = await t.userWithRole('viewer')
  const s = await openStream<OutboxData>(viewer, '?types=device.online,device.offline')
  assert.is(s.status, 200)
  await sleep(100)
  const m = await connectDevice(t, ds[2])
  clients.push(m)
  await until(
    async () => events(s).length,
    (n) => n >= 1,
  )
  end(m)
  await until(
    async () => events(s).length,
    (n) => n >= 2,
  )
  s.close()
  foreign.close()
  const got = events(s).map((e) => [e.event, e.data.data.deviceID])
  assert.equal(got.slice(0, 2), [
    ['device.online', ds[2].deviceID],
    ['device.offline', ds[2].deviceID],
  ])
  assert.equal(events(foreign), [])
  const bad = await openStream(c, '?types=command.status,nope')
  assert.is(bad.status, 400)
  assert.is((await openStream(c, '', { 'last-event-id': 'x' })).status, 400)
  assert.is((await openStream(new Client(c.url, 'Bearer nope'))).status, 401)
})

test('telemetry :: an HTTP ingest arrives as {deviceID, time, values} of that device', async () => {
  const w = await buildWorld(c, t)
  const s = await openStream<TelemetryData>(c, `?types=telemetry&deviceID=${w.device.deviceID}`)
  await sleep(100)
  const post = (d: Credentials, payload: object) =>
    ingestTelemetry(c, payload, { authorization: basic(d) })
  assert.is((await post(w.other, { temp: 1 })).status, 202)
  const r = await post(w.device, { temp: 21.5, hum: 40 })
  assert.is(r.status, 202, r.text)
  await until(
    async () => events(s).length,
    (n) => n >= 1,
  )
  await sleep(300)
  s.close()
  const got = events(s)
  assert.is(got.length, 1, JSON.stringify(got))
  assert.is(got[0]!.event, 'telemetry')
  assert.is(got[0]!.id, undefined)
  assert.equal(got[0]!.data.deviceID, w.device.deviceID)
  assert.equal(got[0]!.data.values, { temp: 21.5, hum: 40 })
  assert.ok(Math.abs(got[0]!.data.time - Date.now()) < 10_000)
})

test('resume :: Last-Event-ID replays what was missed, then live; no duplicates', async () => {
  const q = `?types=command.status&deviceID=${ds[3].deviceID}`
  const first = await openStream<OutboxData>(c, q)
  await sleep(100)
  const tasks = [await queueCommand(c, ds[3].deviceID), await queueCommand(c, ds[3].deviceID)]
  await until(
    async () => events(first).length,
    (n) => n >= 2,
  )
  first.close()
  const seen = events(first)
  const last = seen.at(-1)!.id!
  tasks.push(await queueCommand(c, ds[3].deviceID), await queueCommand(c, ds[3].deviceID))
  const again = await openStream<OutboxData>(c, q, { 'last-event-id': last })
  await until(
    async () => events(again).length,
    (n) => n >= 2,
  )
  tasks.push(await queueCommand(c, ds[3].deviceID))
  await until(
    async () => events(again).length,
    (n) => n >= 3,
  )
  await sleep(1200)
  again.close()
  const all = [...seen, ...events(again)]
  assert.equal(
    all.map((e) => e.data.data.taskID),
    tasks,
  )
  const ids = all.map((e) => Number(e.id))
  assert.equal(
    ids,
    [...ids].sort((a, b) => a - b),
  )
  assert.is(new Set(ids).size, 5)
  // the query parameter works as the header does
  const byQuery = await openStream<OutboxData>(c, `${q}&lastEventId=${last}`)
  await until(
    async () => events(byQuery).length,
    (n) => n >= 3,
  )
  byQuery.close()
  assert.equal(
    events(byQuery).map((e) => e.data.data.taskID),
    tasks.slice(2),
  )
})

test('the service stops with a stream open :: the stream ends and close does not wait for it', async () => {
  const other = await startTestService()
  const s = await openStream(other.admin)
  assert.is(s.status, 200)
  const started = Date.now()
  await other.close()
  assert.ok(Date.now() - started < 2000, `close took ${Date.now() - started} ms`)
  assert.is(
    await until(
      async () => s.ended,
      (e) => e,
      1000,
    ),
    true,
  )
})

test.run()
