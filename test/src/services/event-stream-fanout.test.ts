/**
 * The live stream under fan-out: clients of two tenants each get exactly their own events; a client that stops
 * reading is sent `overflow` with the number it missed and disconnected while a reading client gets every event,
 * and it resumes the outbox events it missed with Last-Event-ID; two nodes on one database: an event written
 * through node 1 reaches a client of node 2.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Client, startTestService, type TestService } from '../../_support/service.ts'
import { childAdmin } from '../../_support/child-service.ts'
import { sleep, until } from '../../ingest/_mqtt.ts'
import {
  basic,
  buildWorld,
  ingestTelemetry,
  type Credentials,
  type World,
} from '../routes/_ingest.ts'
import { mqttBody, newDevice, newProduct } from '../routes/devices-helpers.ts'
import {
  events,
  isTelemetry,
  ofType,
  openStream,
  stalledStream,
  type EventMessage,
  type OutboxData,
  type OverflowData,
  type Stream,
  type TelemetryData,
} from './_stream.ts'
import { withTwoNodes } from './_nodes.ts'
import { queueCommand } from './_commands.ts'

const test = suite('live event stream fan-out')

/** What a stream of every type carries: outbox events and telemetry. */
type Mixed = OutboxData | TelemetryData
const ingest = async (c: Client, d: Credentials, payload: object) => {
  const r = await ingestTelemetry(c, payload, { authorization: basic(d) })
  assert.is(r.status, 202, r.text)
}

test('two tenants, three clients :: each gets exactly its own events; types and deviceID filter', async () => {
  const t = await startTestService()
  try {
    const a = t.admin
    const b = await t.newTenant()
    const wa = await buildWorld(a, t)
    const wb = await buildWorld(b, t)
    const sa = await openStream<Mixed>(a)
    const sb = await openStream<Mixed>(b)
    const filtered = await openStream<TelemetryData>(
      a,
      `?types=telemetry&deviceID=${wa.other.deviceID}`,
    )
    await sleep(100)
    const tasksA = [await queueCommand(a, wa.device.deviceID)]
    const tasksB = [await queueCommand(b, wb.device.deviceID)]
    await ingest(a, wa.device, { temp: 1 })
    await ingest(a, wa.other, { temp: 2 })
    await ingest(b, wb.device, { temp: 3 })
    tasksA.push(await queueCommand(a, wa.other.deviceID))
    tasksB.push(await queueCommand(b, wb.device.deviceID))
    await until(
      async () => [events(sa).length, events(sb).length, events(filtered).length],
      (n) => n[0]! >= 4 && n[1]! >= 3 && n[2]! >= 1,
    )
    await sleep(800) // more reads of the outbox later: nothing else arrives
    for (const s of [sa, sb, filtered]) s.close()
    const summary = (s: Stream<Mixed>, w: World) =>
      events(s).map((e) =>
        isTelemetry(e)
          ? ['telemetry', e.data.deviceID, e.data.values.temp]
          : [e.event, e.data.tenantID === w.tenantID, e.data.data.taskID],
      )
    const sorted = (xs: unknown[][]) => [...xs].sort((x, y) => String(x).localeCompare(String(y)))
    assert.equal(
      sorted(summary(sa, wa)),
      sorted([
        ['command.status', true, tasksA[0]],
        ['command.status', true, tasksA[1]],
        ['telemetry', wa.device.deviceID, 1],
        ['telemetry', wa.other.deviceID, 2],
      ]),
    )
    assert.equal(
      sorted(summary(sb, wb)),
      sorted([
        ['command.status', true, tasksB[0]],
        ['command.status', true, tasksB[1]],
        ['telemetry', wb.device.deviceID, 3],
      ]),
    )
    assert.equal(summary(filtered, wa), [['telemetry', wa.other.deviceID, 2]])
  } finally {
    await t.close()
  }
})

test('a client stops reading :: overflow with the missed count, then disconnected; a reader gets every event; Last-Event-ID resumes the missed outbox events', async () => {
  // 512 KiB of queue; the stalled socket's buffers take ~4 MB more: 8 MB of telemetry overflows it
  const t: TestService = await startTestService({ STREAM_CLIENT_QUEUE_KB: '512' })
  try {
    const c = t.admin
    const w = await buildWorld(c, t)
    const reader = await openStream<Mixed>(c)
    const stalled = await stalledStream<Mixed | OverflowData>(c)
    assert.is(stalled.status, 200)
    await sleep(100)
    const tasks: string[] = []
    for (let i = 0; i < 10; i++) tasks.push(await queueCommand(c, w.device.deviceID))
    const big = 'x'.repeat(16 * 1024)
    const TELEMETRY = 512
    for (let i = 0; i < TELEMETRY; i += 8)
      await Promise.all(
        Array.from({ length: 8 }, (_, k) =>
          ingest(c, w.device, { temp: (i + k) % 100, name: big }),
        ),
      )
    for (let i = 0; i < 10; i++) tasks.push(await queueCommand(c, w.device.deviceID))
    const total = TELEMETRY + tasks.length
    await until(
      async () => events(reader).length,
      (n) => n >= total,
      30_000,
    )
    await sleep(800)
    // the reading client got every event, each once
    const got = events(reader)
    assert.is(got.filter((e) => e.event === 'telemetry').length, TELEMETRY)
    assert.equal(
      got.filter(ofType('command.status')).map((e) => e.data.data.taskID),
      tasks,
    )
    assert.is(got.length, total)

    stalled.resume()
    await until(
      async () => stalled.ended,
      (e) => e,
      20_000,
    )
    const mine = events(stalled)
    // the last block, asserted next to be the overflow
    const overflow = mine.at(-1)! as EventMessage<OverflowData>
    assert.is(overflow.event, 'overflow', JSON.stringify(mine.slice(-3)))
    assert.is(mine.filter((e) => e.event === 'overflow').length, 1)
    assert.ok(overflow.data.missed > 0, JSON.stringify(overflow.data))
    assert.is(mine.length - 1 + overflow.data.missed, total)
    const before = mine.filter(ofType('command.status'))
    const lastID = before.at(-1)?.id ?? '0'
    assert.is(String(overflow.data.lastEventID), lastID)
    assert.equal(
      before.map((e) => e.data.data.taskID),
      tasks.slice(0, before.length),
    )

    // resumed from the overflow's lastEventID: exactly the outbox events it missed
    const again = await openStream<OutboxData>(c, '?types=command.status', {
      'last-event-id': lastID,
    })
    await until(
      async () => events(again).length,
      (n) => n >= tasks.length - before.length,
    )
    await sleep(800)
    again.close()
    assert.equal(
      events(again).map((e) => e.data.data.taskID),
      tasks.slice(before.length),
    )
    reader.close()
  } finally {
    await t.close()
  }
})

test('a resume while events keep coming :: what it missed, then live, in order, none twice', async () => {
  const t = await startTestService()
  try {
    const c = t.admin
    const device = await newDevice(c, mqttBody((await newProduct(c)).productID))
    const tasks: string[] = []
    let done = false
    const producing = (async () => {
      for (let i = 0; i < 40; i++) tasks.push(await queueCommand(c, device.deviceID))
      done = true
    })()
    await until(
      async () => tasks.length,
      (n) => n >= 15,
    )
    // from the first event on: the catch-up reads the table while the reader holds the newer events
    const s = await openStream<OutboxData>(c, `?types=command.status&deviceID=${device.deviceID}`, {
      'last-event-id': '0',
    })
    await producing
    assert.ok(done)
    await until(
      async () => events(s).length,
      (n) => n >= tasks.length,
    )
    await sleep(800)
    s.close()
    assert.equal(
      events(s).map((e) => e.data.data.taskID),
      tasks,
    )
    const ids = events(s).map((e) => Number(e.id))
    assert.ok(
      ids.every((id, i) => i === 0 || id > ids[i - 1]!),
      ids.join(),
    )
  } finally {
    await t.close()
  }
})

test('two nodes on one metadata database :: an event written through node 1 reaches a client of node 2', () =>
  withTwoNodes('devicecloud-stream-nodes-', {}, async ({ a: one, b: two }) => {
    const onOne = await childAdmin(one.url)
    const onTwo = await childAdmin(two.url)
    const device = await newDevice(onOne, mqttBody((await newProduct(onOne)).productID))
    const s1 = await openStream<OutboxData>(onOne, '?types=command.status')
    const s2 = await openStream<OutboxData>(onTwo, '?types=command.status')
    await sleep(100)
    const tasks = [
      await queueCommand(onOne, device.deviceID),
      await queueCommand(onOne, device.deviceID),
    ]
    await until(
      async () => [events(s1).length, events(s2).length],
      (n) => n[0]! >= 2 && n[1]! >= 2,
      10_000,
    )
    await sleep(800)
    s1.close()
    s2.close()
    for (const s of [s1, s2])
      assert.equal(
        events(s).map((e) => [e.data.data.taskID, e.data.data.commandStatus]),
        tasks.map((id) => [id, 'queued']),
      )
    assert.equal(
      events(s2).map((e) => e.id),
      events(s1).map((e) => e.id),
    )
  }))

test.run()
