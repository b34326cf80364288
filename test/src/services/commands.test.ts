/**
 * Commands to one device over the real embedded broker with real MQTT clients: delivery and PUBACK, responses,
 * offline with and without ttl, timeouts, cancel, idempotency, bad input, HTTP polling.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createConnection } from 'node:net'
import mqttPacket from 'mqtt-packet'
import type { IClientOptions, MqttClient } from 'mqtt'
import type { PolledCommands, PublishAnswer } from '../../../src/schemas/commands.ts'
import type { ControlLog, GatewayControlLog } from '../../../src/schemas/logs.ts'
import { Client, startTestService, type TestService } from '../../_support/service.ts'
import type { ErrorBody, Page, Wire } from '../../_support/wire.ts'
import { connectDevice, end, sleep, until } from '../../ingest/_mqtt.ts'
import { basic } from '../routes/_ingest.ts'
import { kitDevices, kitProduct, kits, variants, type DeviceRecord } from '../routes/_variant.ts'
import { assertRefusal } from '../../_support/asserts.ts'
import { events, openStream, type OutboxData } from './_stream.ts'

/** A command as the device gets it on `inbox`. */
interface Request {
  data_type: string
  task_id: string
  data: unknown
}

type Answer = Wire<typeof PublishAnswer>
type Log = Wire<typeof ControlLog>
type Refusal = ErrorBody & { errors: Record<string, string> }

for (const v of variants) {
  const k = kits[v]
  const test = suite(`commands to a device (Variant ${v})`)
  let t: TestService
  let c: Client
  let ds: DeviceRecord[]
  const clients: MqttClient[] = []

  test.before(async () => {
    t = await startTestService({ ...k.env, COMMAND_TIMEOUT: '2' })
    c = t.admin
    ds = (await kitDevices(k, c, 15)).devices
  })
  test.after(async () => {
    for (const m of clients) end(m)
    await t.close()
  })

  /** Connects a device and collects what it receives. */
  async function online(d: DeviceRecord, opts: IClientOptions = {}) {
    const m = await connectDevice(t, d, opts)
    clients.push(m)
    const got: Array<{ topic: string; body: Request }> = []
    m.on('message', (topic, payload) =>
      got.push({ topic, body: JSON.parse(payload.toString()) as Request }),
    )
    await sleep(100) // the server-side inbox subscription is made after CONNACK
    return { m, got }
  }

  /** Connects a device on a raw socket that reads everything and acknowledges nothing (no PUBACK). */
  async function silentDevice(d: DeviceRecord) {
    const socket = createConnection(t.svc.deps.broker.port!, '127.0.0.1')
    await new Promise((r) => socket.once('connect', r))
    socket.write(
      mqttPacket.generate({
        cmd: 'connect',
        protocolId: 'MQTT',
        protocolVersion: 4,
        clean: true,
        keepalive: 60,
        clientId: d.deviceID,
        username: d.deviceUsername,
        password: Buffer.from(d.token),
      }),
    )
    socket.on('data', () => {})
    await sleep(300) // CONNACK, then the server-side inbox subscription
    return socket
  }

  /** The device of a command: Variant A also takes its record id, Variant B only its deviceID. */
  const target = (d: { id: number; deviceID: string }) =>
    k.v === 'A' ? { deviceIntID: d.id } : { deviceID: d.deviceID }

  /** Publishes; `T`: the body expected, the answer unless the test expects a refusal. */
  const publish = <T = Answer>(body: object, headers?: Record<string, string>) =>
    c.post<T>('/api/v1/device_publish', body, headers)
  const logOf = async (taskID: string) =>
    (await c.get<Page<Log>>(`/api/v1/device_control_logs?taskID=${taskID}`)).body.items[0]!
  /** Waits until every command of `taskIDs` shows `status` in its control log, and checks that each does. */
  async function reach(taskIDs: string[], status: string) {
    for (const id of taskIDs) {
      const log = await until(
        () => logOf(id),
        (l) => l.commandStatus === status,
      )
      assert.is(log.commandStatus, status, id)
    }
  }

  test('online device :: gets the request envelope on inbox, PUBACK makes it delivered', async () => {
    const d = ds[0]!
    const { got } = await online(d)
    const r = await publish({ deviceID: d.deviceID, payload: '{"led":"on"}', wait: 5 })
    assert.is(r.status, 201, r.text)
    assert.equal(Object.keys(r.body).sort(), [
      'commandStatus',
      'commandStatusLabel',
      'publishStatus',
      'publishStatusLabel',
      'statusReason',
      'taskID',
    ])
    assert.is(r.body.commandStatus, 'delivered')
    assert.is(r.body.statusReason, null)
    assert.is(r.body.publishStatus, 2)
    await until(
      async () => got.length,
      (n) => n > 0,
    )
    assert.equal(got[0], {
      topic: 'inbox',
      body: { data_type: 'request', task_id: r.body.taskID, data: { led: 'on' } },
    })
    const log = await logOf(r.body.taskID)
    assert.is(log.deviceID, d.deviceID)
    assert.is(log.commandStatus, 'delivered')
    assert.is(log.qos, 1)
    assert.ok(log.sentAt && log.deliveredAt, JSON.stringify(log))
  })

  test('a response message :: succeeded with code and payload; >= 400 failed', async () => {
    const d = ds[1]!
    const { m, got } = await online(d)
    for (const [code, status, publishStatus] of [
      [200, 'succeeded', 2],
      [500, 'failed', 0],
    ] as const) {
      const r = await publish({ ...target(d), payload: 'reboot', wait: 5 })
      assert.is(r.body.commandStatus, 'delivered')
      const response = { data_type: 'response', result: { task_id: r.body.taskID, code } }
      m.publish('telemetry', JSON.stringify(response), { qos: 1 })
      const log = await until(
        () => logOf(r.body.taskID),
        (l) => l.commandStatus !== 'delivered',
      )
      assert.is(log.commandStatus, status)
      assert.is(log.publishStatus, publishStatus)
      assert.is(log.responseCode, code)
      assert.equal(JSON.parse(log.responsePayload!), response)
      assert.ok(log.respondedAt)
      assert.is(log.statusReason, null)
    }
    assert.is(got.length, 2)
  })

  test('offline without ttl :: unsent, publishStatus 0; with ttl :: queued, then delivered in order on connect', async () => {
    const d = ds[2]!
    const unsent = await publish({ deviceID: d.deviceID, payload: 'x' })
    assert.is(unsent.status, 201)
    assert.equal(
      [unsent.body.commandStatus, unsent.body.publishStatus, unsent.body.statusReason],
      ['unsent', 0, 'device offline, no ttl'],
    )
    const q1 = await publish({ deviceID: d.deviceID, payload: 'first', ttl: 60 })
    const q2 = await publish({ deviceID: d.deviceID, payload: 'second', ttl: 60 })
    assert.equal(
      [q1.body.commandStatus, q1.body.publishStatus, q1.body.statusReason],
      ['queued', 1, null],
    )
    const { got } = await online(d)
    await until(
      async () => got.length,
      (n) => n >= 2,
    )
    assert.equal(
      got.map((g) => g.body.data),
      ['first', 'second'],
    )
    const log = await until(
      () => logOf(q2.body.taskID),
      (l) => l.commandStatus === 'delivered',
    )
    assert.equal([log.commandStatus, log.statusReason], ['delivered', null])
    const refused = await logOf(unsent.body.taskID)
    assert.equal(
      [refused.commandStatus, refused.commandStatusLabel, refused.statusReason],
      ['unsent', '未下发', 'device offline, no ttl'],
    )
  })

  test('queued command canceled :: canceled, never delivered; a delivered one stays', async () => {
    const d = ds[3]!
    const q = await publish({ deviceID: d.deviceID, payload: 'never', ttl: 60 })
    const del = await c.del(`/api/v1/device_publish?taskIDs=${q.body.taskID},no-such-task`)
    assert.is(del.status, 204)
    const canceled = await logOf(q.body.taskID)
    assert.equal(
      [canceled.commandStatus, canceled.statusReason],
      ['canceled', `canceled by ${canceled.publishUser}`],
    )
    assert.ok(canceled.publishUser)
    const { got } = await online(d)
    const done = await publish({ deviceID: d.deviceID, payload: 'now', wait: 5 })
    assert.is((await c.del(`/api/v1/device_publish?taskIDs=${done.body.taskID}`)).status, 204)
    const kept = await logOf(done.body.taskID)
    assert.equal([kept.commandStatus, kept.statusReason], ['delivered', null])
    assert.equal(
      got.map((g) => g.body.data),
      ['now'],
    )
  })

  test('a device that never acknowledges :: timed_out after its timeout, publishStatus 0, with its reason; a late answer clears it', async () => {
    const d = ds[4]!
    const socket = await silentDevice(d)
    const r = await publish({ deviceID: d.deviceID, payload: 'hello?', timeout: 1, wait: 4 })
    socket.destroy()
    assert.is(r.body.commandStatus, 'timed_out')
    assert.is(r.body.publishStatus, 0)
    assert.is(r.body.statusReason, 'no acknowledgement within the timeout')
    const log = await logOf(r.body.taskID)
    assert.equal(
      [log.commandStatus, log.statusReason],
      ['timed_out', 'no acknowledgement within the timeout'],
    )
    // a late answer (here over HTTP): it reached the device after all, the reason is gone
    const late = await new Client(t.url, basic(d)).post('/api/v1/ingest', {
      topic: 'telemetry',
      payload: { data_type: 'response', result: { task_id: r.body.taskID, code: 200 } },
    })
    assert.is(late.status, 202, late.text)
    const answered = await until(
      () => logOf(r.body.taskID),
      (l) => l.commandStatus === 'succeeded',
    )
    assert.equal([answered.commandStatus, answered.statusReason], ['succeeded', null])
  })

  test('commands in flight to two devices :: the one that acknowledges gets them delivered; the one that goes away unacknowledged gets its own again, in order, when it returns', async () => {
    const [acking, silent] = [ds[12]!, ds[13]!]
    const { got } = await online(acking)
    const socket = await silentDevice(silent)
    const sent = []
    for (const i of [0, 1, 2]) {
      sent.push(await publish({ deviceID: acking.deviceID, payload: `a${i}` }))
      sent.push(
        await publish({ deviceID: silent.deviceID, payload: `s${i}`, ttl: 60, timeout: 30 }),
      )
    }
    assert.ok(
      sent.every((r) => r.status === 201),
      JSON.stringify(sent.map((r) => r.status)),
    )
    const toSilent = sent.filter((_, i) => i % 2 === 1).map((r) => r.body.taskID)
    const toAcking = sent.filter((_, i) => i % 2 === 0).map((r) => r.body.taskID)
    await reach(toAcking, 'delivered')
    for (const id of toSilent) assert.is((await logOf(id)).commandStatus, 'sent')
    socket.destroy() // gone before any PUBACK: within their ttl they wait for the device again
    await reach(toSilent, 'queued')
    const back = await online(silent)
    await until(
      async () => back.got.length,
      (n) => n >= 3,
    )
    assert.equal(
      back.got.map((g) => g.body.data),
      ['s0', 's1', 's2'],
    )
    await reach(toSilent, 'delivered')
    assert.equal(got.map((g) => g.body.data).sort(), ['a0', 'a1', 'a2'])
  })

  test('idempotency key :: the retry answers the first answer and sends nothing new', async () => {
    const d = ds[5]!
    const { got } = await online(d)
    const key = { 'Idempotency-Key': `k-${Date.now()}` }
    const a = await publish({ deviceID: d.deviceID, payload: 'once', wait: 5 }, key)
    const b = await publish({ deviceID: d.deviceID, payload: 'once', wait: 5 }, key)
    assert.is(b.status, 201)
    assert.equal(b.body, a.body)
    await sleep(200)
    assert.is(got.length, 1)
    const bad = await publish({ deviceID: d.deviceID, payload: 'x' }, { 'Idempotency-Key': '' })
    assert.is(bad.status, 400, bad.text)
  })

  test('bad input :: 404 unknown or foreign device, 422 blocked / missing fields / bad values', async () => {
    const other = await t.newTenant()
    const foreign = await other.post('/api/v1/device_publish', {
      deviceID: ds[0]!.deviceID,
      payload: 'x',
    })
    assert.is(foreign.status, 404, foreign.text)
    assert.is((await publish({ deviceID: 'nobody-here', payload: 'x' })).status, 404)
    if (k.v === 'A') {
      const mismatch = await publish({
        deviceID: ds[0]!.deviceID,
        deviceIntID: ds[1]!.id,
        payload: 'x',
      })
      assert.is(mismatch.status, 404)
    }
    const d = ds[6]!
    const blocked = await c.put(`/api/v1/devices/${d.id}`, { blocked: 1 })
    assert.is(blocked.status, 200, blocked.text)
    const r = await publish<Refusal>({ deviceID: d.deviceID, payload: 'x' })
    assert.is(r.status, 422)
    assert.ok(r.body.errors.deviceID)
    const bad = await publish<Refusal>({ payload: 'x', qos: 2, timeout: 0, ttl: -1, wait: 61 })
    assertRefusal(bad, 422, ['deviceID', 'qos', 'timeout', 'ttl', 'wait'])
    assert.is((await publish({ deviceID: ds[0]!.deviceID })).status, 422)
    const wild = await publish<Refusal>({ deviceID: ds[0]!.deviceID, payload: 'x', topic: 'a/#' })
    assert.is(wild.status, 422)
    assert.ok(wild.body.errors.topic)
    const viewer = await t.userWithRole('viewer')
    assert.is(
      (await viewer.post('/api/v1/device_publish', { deviceID: ds[0]!.deviceID, payload: 'x' }))
        .status,
      403,
    )
  })

  test('HTTP device :: polls its queued commands (delivered), long poll wakes on a new one, answers by ingest', async () => {
    const d = ds[7]!
    const dev = new Client(t.url, basic(d))
    const q = await publish({ deviceID: d.deviceID, payload: '{"a":1}', ttl: 60 })
    const first = await dev.get<Wire<typeof PolledCommands>>('/api/v1/ingest/commands')
    assert.is(first.status, 200, first.text)
    assert.equal(first.body, {
      items: [{ taskID: q.body.taskID, topic: 'inbox', payload: '{"a":1}' }],
    })
    assert.is((await logOf(q.body.taskID)).commandStatus, 'delivered')
    assert.equal((await dev.get('/api/v1/ingest/commands')).body, { items: [] })
    const started = Date.now()
    const waiting = dev.get<Wire<typeof PolledCommands>>('/api/v1/ingest/commands?wait=5')
    await sleep(300)
    const q2 = await publish({ deviceID: d.deviceID, payload: 'late', ttl: 60 })
    const woke = await waiting
    assert.ok(Date.now() - started < 3000)
    assert.equal(
      woke.body.items.map((i) => i.taskID),
      [q2.body.taskID],
    )
    const answer = await dev.post('/api/v1/ingest', {
      topic: 'telemetry',
      payload: { data_type: 'response', result: { task_id: q2.body.taskID, code: 204 } },
    })
    assert.is(answer.status, 202, answer.text)
    const log = await until(
      () => logOf(q2.body.taskID),
      (l) => l.commandStatus === 'succeeded',
    )
    assert.is(log.responseCode, 204)
    assert.is((await c.get('/api/v1/ingest/commands')).status, 403)
    assert.is((await new Client(t.url).get('/api/v1/ingest/commands')).status, 401)
    assert.is((await dev.get('/api/v1/ingest/commands?wait=31')).status, 400)
  })

  test('ttl running out while queued :: expired', async () => {
    const d = ds[8]!
    const q = await publish({ deviceID: d.deviceID, payload: 'short', ttl: 1 })
    const log = await until(
      () => logOf(q.body.taskID),
      (l) => l.commandStatus === 'expired',
      4000,
    )
    assert.is(log.commandStatus, 'expired')
    assert.is(log.publishStatus, 0)
    assert.is(log.statusReason, 'ttl ran out')
  })

  test('QoS 0 :: no receipt needed (publishStatus 3), the device gets it', async () => {
    const d = ds[9]!
    const { got } = await online(d)
    const r = await publish({ deviceID: d.deviceID, payload: 'fire-and-forget', qos: 0, wait: 2 })
    assert.is(r.body.publishStatus, 3)
    await until(
      async () => got.length,
      (n) => n > 0,
    )
    assert.is(got[0]!.body.data, 'fire-and-forget')
  })

  test('MQTT 5 device :: delivered; control logs filter by commandStatus and taskID', async () => {
    const d = ds[10]!
    const { got } = await online(d, { protocolVersion: 5 })
    const r = await publish({ deviceID: d.deviceID, payload: 'v5', wait: 5 })
    assert.is(r.body.commandStatus, 'delivered')
    await until(
      async () => got.length,
      (n) => n > 0,
    )
    assert.equal(got[0], {
      topic: 'inbox',
      body: { data_type: 'request', task_id: r.body.taskID, data: 'v5' },
    })
    const unsent = await publish({ deviceID: ds[11]!.deviceID, payload: 'nobody' })
    const filtered = await c.get<Page<Log>>(
      `/api/v1/device_control_logs?commandStatus=unsent&deviceID=${ds[11]!.deviceID}`,
    )
    assert.equal(
      filtered.body.items.map((l) => l.taskID),
      [unsent.body.taskID],
    )
    const en = await c
      .english()
      .get<Page<Log>>(`/api/v1/device_control_logs?taskID=${r.body.taskID}`)
    assert.equal(
      [en.body.items[0]!.commandStatusLabel, en.body.items[0]!.publishStatusLabel],
      ['Delivered', 'Sent successfully'],
    )
    const byDevice = await c.get<Page<Log>>(
      `/api/v1/devices/${d.id}/control_logs?commandStatus=delivered`,
    )
    assert.is(byDevice.body.meta.count, 1)
  })

  test('command.status events :: carry statusReason on the stream (unsent, canceled), null while moving', async () => {
    const d = ds[14]!
    const s = await openStream<OutboxData>(c, `?types=command.status&deviceID=${d.deviceID}`)
    assert.is(s.status, 200)
    await sleep(100)
    const unsent = await publish({ ...target(d), payload: 'nobody home' })
    const queued = await publish({ ...target(d), payload: 'later', ttl: 60 })
    assert.is((await c.del(`/api/v1/device_publish?taskIDs=${queued.body.taskID}`)).status, 204)
    await until(
      async () => events(s).length,
      (n) => n >= 3,
    )
    s.close()
    const by = (await logOf(queued.body.taskID)).publishUser
    assert.equal(
      events(s).map((e) => [
        e.data.data.taskID,
        e.data.data.commandStatus,
        e.data.data.statusReason,
      ]),
      [
        [unsent.body.taskID, 'unsent', 'device offline, no ttl'],
        [queued.body.taskID, 'queued', null],
        [queued.body.taskID, 'canceled', `canceled by ${by}`],
      ],
    )
  })

  test('a gateway :: its control log carries the command with a structured payload', async () => {
    const product = await kitProduct(k, c)
    // Variant A: a gateway resource; Variant B: a device of deviceType 1
    const gw = { body: await k.newGateway(c, product.productID) }
    const r = await publish({ ...target(gw.body), payload: { func: 1, channel: [] }, ttl: 60 })
    assert.is(r.status, 201, r.text)
    assert.is(r.body.commandStatus, 'queued')
    const logs = (
      await c.get<Page<Wire<typeof GatewayControlLog>>>(
        `/api/v1/gateways/${gw.body.id}/control_logs?commandStatus=queued`,
      )
    ).body
    assert.is(logs.meta.count, 1)
    assert.equal(logs.items[0]!.payload, { func: 1, channel: [] })
    assert.equal([logs.items[0]!.taskID, logs.items[0]!.commandStatus], [r.body.taskID, 'queued'])
  })

  test.run()
}
