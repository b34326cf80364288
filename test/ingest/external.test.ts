import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect as tcpConnect, type Socket } from 'node:net'
import { freePort } from '../_support/ports.ts'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import mqtt, { type MqttClient } from 'mqtt'
import { connectAcking } from '../../ingest/external/acks.ts'
import type { ExternalBrokerHandle } from '../../ingest/external/client.ts'
import { DeviceDirectory } from '../../ingest/identity.ts'
import type { DeviceWrite } from '../../src/schemas/devices.ts'
import { startTestService, type TestService } from '../_support/service.ts'
import type { Wire } from '../_support/wire.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Polls `fn` every 20 ms until it returns truthy, at most `ms`. */
async function until<T>(fn: () => Promise<T> | T, ms = 5000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v || Date.now() > end) return v
    await sleep(20)
  }
}

/** A real Mosquitto on 127.0.0.1 with a generated config; anonymous clients allowed. */
async function startMosquitto() {
  const dir = mkdtempSync(join(tmpdir(), 'mosquitto-'))
  const port = await freePort()
  writeFileSync(
    join(dir, 'mosquitto.conf'),
    `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\n`,
  )
  const proc: ChildProcess = spawn('mosquitto', ['-c', join(dir, 'mosquitto.conf')], {
    stdio: 'ignore',
  })
  const up = await until(
    () =>
      new Promise<boolean>((r) =>
        tcpConnect(port, '127.0.0.1')
          .once('connect', function (this: Socket) {
            this.end()
            r(true)
          })
          .once('error', () => r(false)),
      ),
    5000,
  )
  if (!up) throw new Error('mosquitto did not start (is the mosquitto package installed?)')
  return {
    url: `mqtt://127.0.0.1:${port}`,
    stop() {
      proc.kill('SIGKILL')
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

function client(url: string, opts: mqtt.IClientOptions = {}): Promise<MqttClient> {
  return new Promise((resolve, reject) => {
    const c = mqtt.connect(url, { reconnectPeriod: 0, ...opts })
    c.once('connect', () => resolve(c))
    c.once('error', reject)
  })
}
const publish = (c: MqttClient, topic: string, payload: string, qos: 0 | 1 = 1) =>
  new Promise<void>((resolve, reject) =>
    c.publish(topic, payload, { qos }, (e) => (e ? reject(e) : resolve())),
  )

let broker: Awaited<ReturnType<typeof startMosquitto>>

// ---------------------------------------------------------------- deferred PUBACKs
const acks = suite('connectAcking against Mosquitto')
acks.before(async () => {
  broker = await startMosquitto()
})
acks.after(() => broker.stop())

acks(
  'a message held by its handler :: no PUBACK (receiveMaximum 1 keeps the next one back) until it resolves',
  async () => {
    const seen: string[] = []
    const release: Array<() => void> = []
    const svc = connectAcking(
      broker.url,
      { clientId: 'acking-1', properties: { receiveMaximum: 1 }, reconnectPeriod: 0 },
      async (_t, p) => {
        seen.push(p.toString())
        await new Promise<void>((r) => release.push(r))
        return 0
      },
    )
    await new Promise((r) => svc.once('connect', r))
    await new Promise((r) => svc.subscribe('$share/g1//+/+/+/+/#', { qos: 1 }, r))
    const dev = await client(broker.url)
    await publish(dev, '/mqtt/t/p/d/telemetry', 'm1')
    await publish(dev, '/mqtt/t/p/d/telemetry', 'm2')
    await until(() => seen.length === 1, 2000)
    await sleep(300)
    assert.equal(seen, ['m1'], 'm2 waits for the PUBACK of m1')
    release.shift()!()
    assert.ok(await until(() => seen.length === 2, 2000), 'm2 arrives once m1 is acknowledged')
    release.shift()!()
    dev.end(true)
    await new Promise((r) => svc.end(false, {}, () => r(null)))
  },
)

acks(
  'several held messages :: handled concurrently (up to receiveMaximum), not one per PUBACK',
  async () => {
    const seen: string[] = []
    const release: Array<() => void> = []
    const svc = connectAcking(
      broker.url,
      { clientId: 'acking-2', properties: { receiveMaximum: 10 }, reconnectPeriod: 0 },
      async (_t, p) => {
        seen.push(p.toString())
        await new Promise<void>((r) => release.push(r))
        return 0
      },
    )
    await new Promise((r) => svc.once('connect', r))
    await new Promise((r) => svc.subscribe('/+/+/+/+/#', { qos: 1 }, r))
    const dev = await client(broker.url)
    for (let i = 0; i < 5; i++) await publish(dev, '/mqtt/t/p/d/x', `c${i}`)
    assert.ok(
      await until(() => seen.length === 5, 2000),
      `all 5 in flight at once, saw ${seen.length}`,
    )
    for (const r of release.splice(0)) r()
    dev.end(true)
    await new Promise((r) => svc.end(false, {}, () => r(null)))
  },
)

// ---------------------------------------------------------------- the service in external mode
const ext = suite('external broker mode (MQTT_URL) against Mosquitto')
let t: TestService
let t2: TestService
let dev: Wire<typeof DeviceWrite>
let devStream: string
/** The service's log lines (JSON), read by the "dropped and logged" case. */
const logLines: string[] = []
ext.before(async () => {
  broker = await startMosquitto()
  t = await startTestService(
    { MQTT_URL: broker.url, LOG_LEVEL: 'warn' },
    { logDestination: { write: (line) => void logLines.push(line) } },
  )
  const product = (await t.admin.post('/api/v1/products', { productName: 'Ext', cloudProtocol: 1 }))
    .body
  const r = await t.admin.post('/api/v1/devices', {
    productID: product.productID,
    deviceName: 'ext-dev',
    deviceType: 1,
    upLinkSystem: 1,
    cloudProtocol: 1,
    authType: 1,
  })
  assert.is(r.status, 201, r.text)
  dev = r.body
  devStream = `/mqtt/${dev.tenantID}/${dev.productID}/${dev.deviceID}/`
})
ext.after(async () => {
  await t2?.close()
  await t.close()
  broker.stop()
})

/** An event's row as stored (a type, not an interface: a database row is a record of its columns). */
type EventRow = {
  topic: string
  payload: string
  ip: string | null
}

const eventsOf = async (svc: TestService, deviceIntID: number) =>
  (await svc.db.all('SELECT topic, payload, ip FROM events WHERE device_int_id = ? ORDER BY id', [
    deviceIntID,
  ])) as EventRow[]

ext('no embedded broker :: port and wsPort null, handle has a stable client id', async () => {
  const b = t.svc.deps.broker as ExternalBrokerHandle
  assert.is(b.port, null)
  assert.is(b.wsPort, null)
  assert.match(b.clientId, /^devicecloud-.+-\d+/)
})

ext(
  'a device publishes QoS 1 to its full topic :: stored as an event with topic and raw payload',
  async () => {
    const d = await client(broker.url, { clientId: dev.deviceID })
    await publish(d, `${devStream}telemetry`, '{"temp":21.5}')
    await publish(d, `${devStream}telemetry`, 'not json {', 0)
    const rows = await until(async () =>
      (await eventsOf(t, dev.id)).length >= 2 ? eventsOf(t, dev.id) : undefined,
    )
    d.end(true)
    assert.ok(rows, 'events stored')
    // messages are handled concurrently: their events may be committed in either order
    const stored = rows
      .map((r) => [r.topic, r.payload, r.ip])
      .sort((a, b) => (String(a[1]) < String(b[1]) ? -1 : 1))
    assert.equal(stored, [
      ['telemetry', 'not json {', null],
      ['telemetry', '{"temp":21.5}', null],
    ])
    const api = await t.admin.get(`/api/v1/devices/${dev.id}/events`)
    assert.is(api.status, 200)
    assert.is(api.body.meta.count, 2)
  },
)

ext(
  'unknown device, mismatched tenant, non-mountpoint topic :: dropped and logged, nothing stored',
  async () => {
    const from = logLines.length
    const warnings = () =>
      logLines
        .slice(from)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.level === 'warn' && l.component === 'mqtt-external')
        .map((l) => String(l.msg))
    const b = t.svc.deps.broker as ExternalBrokerHandle
    const before = { ...b.stats }
    const count = (await eventsOf(t, dev.id)).length
    const d = await client(broker.url)
    await publish(d, `/mqtt/${dev.tenantID}/${dev.productID}/no-such-device/telemetry`, '{"a":1}')
    await publish(d, `/mqtt/other-tenant/${dev.productID}/${dev.deviceID}/telemetry`, '{"a":2}')
    await publish(d, `/coap/${dev.tenantID}/${dev.productID}/${dev.deviceID}/telemetry`, '{"a":3}')
    await publish(d, `/mqtt/${dev.tenantID}/${dev.productID}/${dev.deviceID}`, '{"a":4}')
    assert.ok(
      await until(() => b.stats.dropped - before.dropped === 4, 3000),
      `dropped ${b.stats.dropped - before.dropped}`,
    )
    d.end(true)
    assert.is(b.stats.submitted, before.submitted)
    assert.is((await eventsOf(t, dev.id)).length, count)
    const w = warnings()
    assert.is(w.length, 4)
    // messages are handled concurrently: an unknown device is found by a lookup, a foreign mountpoint at once,
    // so their warnings may come in either order
    assert.ok(
      w.some((l) => l.includes('no-such-device') && l.includes('unknown device')),
      w.join('\n'),
    )
    assert.ok(
      w.some((l) => l.includes('other-tenant') && l.includes('not its mountpoint')),
      w.join('\n'),
    )
  },
)

ext(
  'publish to a device :: reaches it on its full topic, true; not ingested back as an uplink',
  async () => {
    const identity = await new DeviceDirectory(t.svc.deps.meta.ingest, t.svc.deps.bus).byDeviceID(
      dev.deviceID,
    )
    const d = await client(broker.url, { clientId: dev.deviceID, protocolVersion: 5 })
    await new Promise((r) => d.subscribe([`${devStream}inbox`, `${devStream}ctrl`], { qos: 1 }, r))
    const got: Array<[string, string]> = []
    d.on('message', (topic, payload) => got.push([topic, payload.toString()]))
    const b = t.svc.deps.broker
    const count = (await eventsOf(t, dev.id)).length
    assert.is(
      await b.publish(identity!, 'inbox', Buffer.from('{"data_type":"request","task_id":"t1"}'), {
        timeoutMs: 3000,
      }),
      true,
    )
    assert.is(await b.publish(identity!, 'ctrl', Buffer.from('{"x":1}'), { timeoutMs: 3000 }), true)
    assert.ok(await until(() => got.length === 2, 3000))
    assert.equal(got, [
      [`${devStream}inbox`, '{"data_type":"request","task_id":"t1"}'],
      [`${devStream}ctrl`, '{"x":1}'],
    ])
    await sleep(200)
    assert.is((await eventsOf(t, dev.id)).length, count, 'commands are not uplinks')
    d.end(true)
  },
)

ext(
  'device_publish through the external broker :: sent (no PUBACK seen), delivered and answered by the response',
  async () => {
    const d = await client(broker.url, { clientId: dev.deviceID })
    const got: unknown[] = []
    d.on('message', (_topic, payload) => got.push(JSON.parse(payload.toString())))
    await new Promise((r) => d.subscribe(`${devStream}inbox`, { qos: 1 }, r))
    const r = await t.admin.post('/api/v1/device_publish', {
      deviceID: dev.deviceID,
      payload: '{"x":2}',
      timeout: 10,
      wait: 1,
    })
    assert.is(r.status, 201, r.text)
    assert.equal([r.body.commandStatus, r.body.publishStatus], ['sent', 1])
    assert.ok(await until(() => got.length === 1, 3000))
    assert.equal(got[0], { data_type: 'request', task_id: r.body.taskID, data: { x: 2 } })
    const response = { data_type: 'response', result: { task_id: r.body.taskID, code: 200 } }
    await publish(d, `${devStream}telemetry`, JSON.stringify(response))
    const log = await until(async () => {
      const l = (await t.admin.get(`/api/v1/device_control_logs?taskID=${r.body.taskID}`)).body
        .items[0]
      return l?.commandStatus === 'succeeded' ? l : undefined
    }, 5000)
    d.end(true)
    assert.ok(log, 'the response made it succeeded')
    assert.is(log.publishStatus, 2)
    assert.ok(log.deliveredAt && log.respondedAt)
  },
)

ext('two nodes in one share group :: split the messages, each stored once', async () => {
  t2 = await startTestService({
    MQTT_URL: broker.url,
    DATABASE_URL: `file:${t.dir}/devicecloud.db`,
  })
  const [b1, b2] = [
    t.svc.deps.broker as ExternalBrokerHandle,
    t2.svc.deps.broker as ExternalBrokerHandle,
  ]
  assert.is.not(b1.clientId, b2.clientId)
  const [s1, s2] = [b1.stats.submitted, b2.stats.submitted]
  const count = (await eventsOf(t, dev.id)).length
  const d = await client(broker.url, { clientId: dev.deviceID })
  const N = 40
  for (let i = 0; i < N; i++) await publish(d, `${devStream}telemetry`, `{"n":${i}}`)
  const done = await until(() => b1.stats.submitted - s1 + b2.stats.submitted - s2 === N, 10_000)
  d.end(true)
  assert.ok(done, 'all submitted')
  const [n1, n2] = [b1.stats.submitted - s1, b2.stats.submitted - s2]
  assert.ok(n1 > 0 && n2 > 0, `both nodes got messages: ${n1} + ${n2}`)
  // `submitted` counts messages handed to a pipeline, not committed ones: wait for their rows
  const rows = await until(async () => {
    const r = (await eventsOf(t, dev.id)).slice(count)
    return r.length >= N ? r : undefined
  }, 5000)
  assert.is(rows?.length, N)
  assert.equal(
    rows!.map((r) => JSON.parse(r.payload).n).sort((a: number, b: number) => a - b),
    [...Array(N).keys()],
  )
})

/** Collects what `c` receives on topics ending in `suffix`, parsed, with when each arrived. */
function received(c: MqttClient, suffix: string) {
  const got: Array<Record<string, unknown> & { at: number; retain: boolean }> = []
  c.on('message', (topic, payload, packet) => {
    if (topic.endsWith(suffix))
      got.push({ ...JSON.parse(payload.toString()), at: Date.now(), retain: packet.retain })
  })
  return got
}

ext(
  'device state :: a delta patched while offline waits retained; reports and gets go through',
  async () => {
    const state = `/api/v1/devices/${dev.id}/state`
    const patched = await t.admin.patch(state, { desired: { lamp: 'on' } })
    assert.is(patched.status, 200, patched.text)
    await sleep(300) // the service publishes just after its answer: let the broker keep it before the device comes
    const d = await client(broker.url, { clientId: `${dev.deviceID}` })
    const deltas = received(d, 'state/delta')
    const documents = received(d, 'state/document')
    const at = Date.now()
    await new Promise((r) => d.subscribe(`${devStream}state/delta`, { qos: 1 }, r))
    await new Promise((r) => d.subscribe(`${devStream}state/document`, { qos: 1 }, r))
    assert.ok(await until(() => deltas.length > 0, 1000), 'the retained delta came on subscribing')
    assert.ok(deltas[0]!.at - at <= 1000)
    assert.equal(deltas[0]!.delta, { lamp: 'on' })
    assert.ok(deltas[0]!.retain, `kept by the broker: ${JSON.stringify(deltas)}`)
    await publish(d, `${devStream}state/reported`, '{"lamp":"on"}')
    const reported = await until(async () => {
      const doc = (await t.admin.get(state)).body
      return Object.keys(doc.delta).length === 0 && doc.reported.lamp === 'on' ? doc : undefined
    })
    assert.ok(reported, 'the report was stored')
    assert.ok(
      await until(() => deltas.some((x) => JSON.stringify(x.delta) === '{}')),
      'the emptied delta',
    )
    await publish(d, `${devStream}state/get`, '{"clientToken":"ext-1"}')
    assert.ok(await until(() => documents.some((x) => x.clientToken === 'ext-1')))
    d.end(true)
  },
)

ext(
  'device state, two nodes :: a patch on either node reaches the device once per change',
  async () => {
    assert.ok(t2, 'the two-node case ran first')
    const state = `/api/v1/devices/${dev.id}/state`
    const d = await client(broker.url, { clientId: `${dev.deviceID}` })
    const deltas = received(d, 'state/delta')
    await new Promise((r) => d.subscribe(`${devStream}state/delta`, { qos: 1 }, r))
    await until(() => deltas.length > 0, 1000) // the retained one of the last case
    const before = deltas.length
    const r = await t2.admin.patch(state, { desired: { lamp: 'off' } })
    assert.is(r.status, 200, r.text)
    assert.ok(await until(() => deltas.some((x) => x.desiredVersion === r.body.desiredVersion)))
    await sleep(800) // the other node follows nothing through a shared broker: no second copy
    const fresh = deltas.slice(before).filter((x) => x.desiredVersion === r.body.desiredVersion)
    assert.is(fresh.length, 1)
    d.end(true)
  },
)

acks.run()
ext.run()
