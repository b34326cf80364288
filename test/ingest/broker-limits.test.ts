import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { connect as netConnect, type Socket } from 'node:net'
import type { MqttClient } from 'mqtt'
import type { TestService } from '../_support/service.ts'
import { mqttBody, newDevice, newProduct } from '../src/routes/devices-helpers.ts'
import { PacketMeter, throttledLog } from '../../ingest/broker/limits.ts'
import {
  connect,
  connectDevice,
  credentials,
  devices,
  end,
  mqttUrl,
  oneDevice,
  until,
  wsUrl,
  type DeviceCredentials,
} from './_mqtt.ts'
import { logCollector, withService } from './_service.ts'

const KiB = 1024
const MiB = 1024 * KiB

/** A fixed header: the type byte and the remaining-length varint. */
function header(type: number, remaining: number): Buffer {
  const bytes = [type]
  do {
    let b = remaining % 128
    remaining = Math.floor(remaining / 128)
    if (remaining > 0) b |= 0x80
    bytes.push(b)
  } while (remaining > 0)
  return Buffer.from(bytes)
}

const str = (s: string) => {
  const b = Buffer.from(s)
  return Buffer.concat([Buffer.from([b.length >> 8, b.length & 0xff]), b])
}

/** An MQTT 3.1.1 CONNECT with username and password. */
function connectPacket(clientId: string, username: string, password: string): Buffer {
  const body = Buffer.concat([
    str('MQTT'),
    Buffer.from([4, 0xc2, 0, 60]),
    str(clientId),
    str(username),
    str(password),
  ])
  return Buffer.concat([header(0x10, body.length), body])
}

/** A QoS 0 PUBLISH of `size` payload bytes. */
function publishPacket(topic: string, size: number): Buffer {
  const body = Buffer.concat([str(topic), Buffer.alloc(size, 0x61)])
  return Buffer.concat([header(0x30, body.length), body])
}

interface Raw {
  socket: Socket
  closed: Promise<void>
  isClosed: () => boolean
  received: Buffer[]
}

async function raw(port: number): Promise<Raw> {
  const socket = netConnect(port, '127.0.0.1')
  socket.on('error', () => {})
  const received: Buffer[] = []
  socket.on('data', (d) => received.push(d))
  let done = false
  const closed = new Promise<void>((r) => socket.once('close', () => ((done = true), r())))
  await new Promise<void>((r, j) => {
    socket.once('connect', () => r())
    socket.once('close', () => j(new Error('closed before connect')))
  })
  return { socket, closed, isClosed: () => done, received }
}

/** Writes `total` bytes in 64 KiB chunks (waiting for drain) until done or the socket closes; bytes written. */
async function flood(r: Raw, total: number): Promise<number> {
  const chunk = Buffer.alloc(64 * KiB, 0x61)
  let sent = 0
  while (sent < total && !r.isClosed()) {
    if (!r.socket.write(chunk))
      await Promise.race([new Promise((d) => r.socket.once('drain', d)), r.closed])
    sent += chunk.length
  }
  return sent
}

const closedSoon = (r: Raw, ms = 3000) =>
  Promise.race([r.closed.then(() => true), new Promise<boolean>((d) => setTimeout(d, ms, false))])

const meter = suite('PacketMeter: packet boundaries, size and pre-CONNECT limits')

meter('packets split anywhere :: followed, none refused under the limits', () => {
  const m = new PacketMeter(1 * MiB, 64 * KiB)
  const stream = Buffer.concat([
    connectPacket('d', 'u', 'p'),
    header(0xc0, 0),
    publishPacket('t', 1000),
    publishPacket('t', 200),
  ])
  for (let i = 0; i < stream.length; i += 7) assert.is(m.take(stream.subarray(i, i + 7)), undefined)
  m.connected()
  const big = publishPacket('t', 900 * KiB)
  for (let i = 0; i < big.length; i += 4096) assert.is(m.take(big.subarray(i, i + 4096)), undefined)
})

meter('a declared size over the limit :: refused at its header, before the body', () => {
  const m = new PacketMeter(1 * MiB, 64 * KiB)
  m.connected()
  assert.is(m.take(header(0x30, 1 * MiB)), 'packet too large')
  assert.is(m.take(Buffer.alloc(10)), 'packet too large', 'refused for good')
  const exact = new PacketMeter(1 * MiB, 64 * KiB)
  exact.connected()
  assert.is(exact.take(header(0x30, 1 * MiB - 4)), undefined, 'header (4 bytes) + body = 1 MiB')
})

meter(
  'before CONNACK :: a packet over 64 KiB or 64 KiB in all refused; after, the packet limit only',
  () => {
    assert.is(
      new PacketMeter(MiB, 64 * KiB).take(header(0x10, 268_435_455)),
      'too much data before CONNECT',
    )
    const m = new PacketMeter(MiB, 64 * KiB)
    assert.is(m.take(connectPacket('d', 'u', 'p')), undefined)
    let verdict
    for (let i = 0; i < 10 && !verdict; i++) verdict = m.take(publishPacket('t', 10 * KiB))
    assert.is(verdict, 'too much data before CONNECT')
    const after = new PacketMeter(MiB, 64 * KiB)
    after.take(connectPacket('d', 'u', 'p'))
    after.connected()
    for (let i = 0; i < 20; i++) assert.is(after.take(publishPacket('t', 10 * KiB)), undefined)
  },
)

meter('a remaining length of more than 4 bytes :: refused', () => {
  const m = new PacketMeter(MiB, 64 * KiB)
  assert.is(m.take(Buffer.from([0x10, 0xff, 0xff, 0xff, 0xff, 0x01])), 'malformed packet length')
})

meter('throttledLog :: one line per key per window, the next one counts what was left out', () => {
  let now = 0
  const lines: Array<Record<string, unknown>> = []
  const log = throttledLog(
    (f) => void lines.push(f),
    10_000,
    () => now,
  )
  for (let i = 0; i < 100; i++) log('a', { n: i }, 'm')
  log('b', { n: 0 }, 'm')
  now = 10_000
  log('a', { n: 100 }, 'm')
  assert.equal(lines, [{ n: 0 }, { n: 0 }, { n: 100, suppressed: 99 }])
})

meter.run()

let t: TestService
const logs = logCollector()
const limits = suite('broker limits: packet size, pre-CONNECT bytes (MQTT_MAX_PACKET_BYTES 1 MiB)')
withService(
  limits,
  (s) => (t = s),
  { LOG_LEVEL: 'info', MQTTS_PORT: '0' },
  { logDestination: logs.destination },
)

limits(
  'a CONNECT declaring 268 MB, then 5 MB of data :: closed before the data is taken, logged once',
  async () => {
    const r = await raw(t.svc.deps.broker.port!)
    r.socket.write(header(0x10, 268_435_455))
    const sent = await flood(r, 5 * MiB)
    assert.ok(await closedSoon(r), 'the connection is closed')
    assert.ok(sent < 5 * MiB, `closed before 5 MB could be sent (${sent} bytes written)`)
    const lines = await until(
      async () => logs.records().filter((l) => l.msg === 'connection closed'),
      (l) => l.length > 0,
    )
    assert.equal(
      lines.map((l) => [l.level, l.component, l.reason, l.clientIP]),
      [['info', 'broker', 'too much data before CONNECT', '127.0.0.1']],
    )
  },
)

limits(
  'a valid CONNECT with 70 KiB pipelined before the CONNACK :: closed; the same CONNECT alone :: accepted',
  async () => {
    const d = await oneDevice(t)
    const hello = connectPacket(d.deviceID, d.deviceUsername, d.token)
    const greedy = await raw(t.svc.deps.broker.port!)
    const extra = Array.from({ length: 7 }, () => publishPacket('telemetry', 10 * KiB))
    greedy.socket.write(Buffer.concat([hello, ...extra]))
    assert.ok(await closedSoon(greedy), 'closed')
    const polite = await raw(t.svc.deps.broker.port!)
    polite.socket.write(hello)
    await until(
      async () => Buffer.concat(polite.received),
      (b) => b.length >= 4,
    )
    assert.equal([...Buffer.concat(polite.received)], [0x20, 2, 0, 0], 'CONNACK 0')
    polite.socket.write(Buffer.concat(extra))
    assert.not.ok(await closedSoon(polite, 300), 'after the CONNACK 70 KiB are fine')
    polite.socket.destroy()
  },
)

/** Publishes QoS 1; resolves with the error, if any, or 'closed' when the connection went first. */
function publish(c: MqttClient, topic: string, payload: Buffer): Promise<string | undefined> {
  return new Promise((resolve) => {
    c.once('close', () => resolve('closed'))
    c.publish(topic, payload, { qos: 1 }, (e) => resolve(e?.message))
  })
}

for (const [name, url] of [
  ['TCP', mqttUrl],
  ['WebSocket', wsUrl],
  ['TLS', (x: TestService) => `mqtts://127.0.0.1:${x.svc.deps.broker.tlsPort}`],
] as const)
  limits(
    `${name}: a 500 KB payload :: acknowledged; a 2 MiB one :: connection closed; a second tenant’s device unaffected`,
    async () => {
      const {
        devices: [a, b],
      } = await devices(t, 2)
      const other = await t.newTenant()
      const foreign = await newDevice(other, mqttBody((await newProduct(other)).productID))
      // the TLS listener's default certificate is self-signed
      const opts = (d: DeviceCredentials) => ({ ...credentials(d), rejectUnauthorized: false })
      const ca = await connect(url(t), opts(a))
      const cb = await connect(url(t), opts(b))
      const cf = await connect(url(t), opts(foreign))
      assert.ok(ca.connack && cb.connack && cf.connack, 'all connected')
      assert.is(await publish(ca.client, 'telemetry', Buffer.alloc(500_000, 0x61)), undefined)
      assert.ok(ca.client.connected)
      assert.is(await publish(cb.client, 'telemetry', Buffer.alloc(2 * MiB, 0x61)), 'closed')
      assert.is(await publish(cf.client, 'telemetry', Buffer.alloc(500_000, 0x61)), undefined)
      for (const c of [ca, cb, cf]) end(c.client)
    },
  )

limits.run()

let capped: TestService
const cap = suite('broker limits: MQTT_MAX_CONNECTIONS=3')
withService(cap, (s) => (capped = s), { MQTT_MAX_CONNECTIONS: '3' })

cap('a 4th connection :: closed at accept; after one closes, a new one is accepted', async () => {
  const {
    devices: [a, b, c, d],
  } = await devices(capped, 4)
  const held = [
    await connectDevice(capped, a),
    await connectDevice(capped, b),
    (await connect(wsUrl(capped), credentials(c))).client,
  ]
  assert.ok(held[2]!.connected, 'the WebSocket listener counts as well')
  const fourth = await connect(mqttUrl(capped), credentials(d), 1500)
  assert.is(fourth.connack, undefined, 'refused')
  end(fourth.client)
  const ws = await connect(wsUrl(capped), credentials(d), 1500)
  assert.is(ws.connack, undefined, 'refused on the WebSocket listener too')
  end(ws.client)
  end(held.shift())
  const again = await until(
    () => connect(mqttUrl(capped), credentials(d), 1500),
    (r) => {
      if (!r.connack) end(r.client)
      return r.connack !== undefined
    },
  )
  assert.ok(again.connack, 'accepted once one closed')
  for (const c of [...held, again.client]) end(c)
})

cap.run()
