/**
 * Command load generator, its own process: connects `devices` raw-socket MQTT 3.1.1 clients (mqtt-wire.ts; the
 * service subscribes each to its inbox), then (1) publishes to the whole group once and times until every member
 * received its command, (2) sends `rate` device publishes a second for `seconds` (open loop, to random connected
 * devices) and measures each from the start of its POST to the device's receipt. Prints one JSON line.
 * argv: <json | @file> = {mqtt, api, token, groupID, devices: [{clientId, username, password}], rate, seconds}
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { connect, type Socket } from 'node:net'
import { connackOk, connectPacket, frames } from './mqtt-wire.ts'
import { argJson } from './runner.ts'

interface Opts {
  mqtt: string
  api: string
  token: string
  groupID: string
  devices: Array<{ clientId: string; username: string; password: string }>
  rate: number
  seconds: number
}

const o = argJson<Opts>(process.argv[2]!)
const received = new Map<string, number>()
let onReceipt: (() => void) | undefined

/**
 * One device on a raw socket: a pre-encoded CONNECT, CONNACK checked; each incoming PUBLISH (QoS 0 or 1) has its
 * payload's task_id recorded at receipt and a QoS 1 one is answered with its PUBACK. MQTT.js would spend more CPU
 * on 10,000 clients than the service spends on the commands.
 */
function open(d: Opts['devices'][number]): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const url = new URL(o.mqtt)
    const sock = connect({ host: url.hostname, port: Number(url.port || 1883), noDelay: true })
    let carry: Buffer | null = null
    let connected = false
    const timer = setTimeout(() => reject(new Error(`${d.clientId}: no CONNACK in 60 s`)), 60_000)
    sock.on('data', (chunk: Buffer) => {
      carry = frames(carry, chunk, (type, buf, start, end) => {
        if (!connected && type === 0x20) {
          connected = true
          clearTimeout(timer)
          if (connackOk(buf, start, end - start)) resolve(sock)
          else reject(new Error(`${d.clientId}: connection refused`))
          return
        }
        if (type >> 4 !== 3) return // PINGRESP, SUBACK: nothing to do
        const qos = (type >> 1) & 3
        const topicEnd = start + 2 + buf.readUInt16BE(start)
        const payloadAt = qos ? topicEnd + 2 : topicEnd
        if (qos === 1) sock.write(Buffer.from([0x40, 2, buf[topicEnd]!, buf[topicEnd + 1]!]))
        const { task_id } = JSON.parse(buf.toString('utf8', payloadAt, end)) as { task_id: string }
        if (!received.has(task_id)) received.set(task_id, performance.now())
        onReceipt?.()
      })
    })
    sock.on('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    sock.write(connectPacket(d, KEEPALIVE_S))
  })
}

const KEEPALIVE_S = 300
const t0 = performance.now()
const clients: Socket[] = []
for (let i = 0; i < o.devices.length; i += 500)
  clients.push(...(await Promise.all(o.devices.slice(i, i + 500).map(open))))
const ping = Buffer.from([0xc0, 0x00]) // PINGREQ, so a long run stays inside the keep-alive
setInterval(() => clients.forEach((c) => c.write(ping)), (KEEPALIVE_S / 2) * 1000).unref()
const connectMs = Math.round(performance.now() - t0)
await new Promise((r) => setTimeout(r, 2000)) // the service subscribes each device to its inbox after CONNACK

const post = async (path: string, body: unknown) => {
  const r = await fetch(o.api + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${o.token}` },
    body: JSON.stringify(body),
  })
  return { status: r.status, body: (await r.json()) as Record<string, unknown> }
}

// 1. group publish to every device
const before = received.size
const g0 = performance.now()
const group = await post('/api/v1/group_publish', { groupID: o.groupID, payload: '{"cmd":"all"}' })
const answeredMs = performance.now() - g0
const all = o.devices.length
await new Promise<void>((resolve) => {
  const timer = setTimeout(resolve, 120_000)
  onReceipt = () => {
    if (received.size - before >= all) {
      clearTimeout(timer)
      resolve()
    }
  }
  onReceipt()
})
onReceipt = undefined
const groupMs = performance.now() - g0
const groupReceived = received.size - before

// 2. device publishes, open loop at `rate`/s: 2 s of warm-up (not counted), then `seconds` measured
const loop = monitorEventLoopDelay({ resolution: 10 })
const sends: Array<{ start: number; taskID?: string; status?: number; answered?: number }> = []
let p0 = 0
let total = 0
for (const [seconds, measured] of [
  [2, false],
  [o.seconds, true],
] as const) {
  if (measured) {
    await new Promise((r) => setTimeout(r, 1000))
    sends.length = 0
    loop.enable()
  }
  p0 = performance.now()
  total = o.rate * seconds
  await openLoop()
}

function openLoop() {
  return new Promise<void>((resolve) => {
    let i = 0
    const tick = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - p0) / 1000) * o.rate))
      for (; i < due; i++) {
        const s: { start: number; taskID?: string; status?: number; answered?: number } = {
          start: performance.now(),
        }
        sends.push(s)
        const d = o.devices[Math.floor(Math.random() * o.devices.length)]!
        void post('/api/v1/device_publish', { deviceID: d.clientId, payload: '{"cmd":"one"}' })
          .then((r) => {
            s.status = r.status
            s.taskID = r.body.taskID as string
            s.answered = performance.now()
          })
          .catch(() => (s.status = 0))
      }
      if (i >= total) {
        clearInterval(tick)
        resolve()
      }
    }, 5)
  })
}
const sendSeconds = (performance.now() - p0) / 1000
loop.disable()
await new Promise((r) => setTimeout(r, 3000)) // the last ones arrive
/** Each received command: when it was sent (ms into the measured window), its answer and its receipt (ms). */
const done = sends
  .filter((s) => s.taskID && received.has(s.taskID))
  .map((s) => ({
    at: s.start - p0,
    answer: s.answered! - s.start,
    receipt: received.get(s.taskID!)! - s.start,
  }))
/** The `p` percentile of ascending `xs`, to 0.1 ms (0 when empty). */
const percentile = (xs: number[], p: number) =>
  Number((xs[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0).toFixed(1))
const latencies = done.map((d) => d.receipt).sort((a, b) => a - b)
const pct = (p: number) => percentile(latencies, p)

/** The p99 of each 5 s of the measured sends (by when they were sent): where the slow ones were. */
const SLICE_MS = 5000
const slices: number[] = []
for (let from = 0; from < o.seconds * 1000; from += SLICE_MS) {
  const ms = done
    .filter((d) => d.at >= from && d.at < from + SLICE_MS)
    .map((d) => d.receipt)
    .sort((a, b) => a - b)
  if (ms.length) slices.push(percentile(ms, 0.99))
}
const slowest = [...done]
  .sort((a, b) => b.receipt - a.receipt)
  .slice(0, 5)
  .map((d) => ({
    at: Math.round(d.at),
    answer: Math.round(d.answer),
    receipt: Math.round(d.receipt),
  }))
console.log(
  JSON.stringify({
    slowest,
    devices: all,
    loop: {
      p99: Number((loop.percentile(99) / 1e6).toFixed(1)),
      max: Number((loop.max / 1e6).toFixed(1)),
    },
    connectMs,
    group: {
      status: group.status,
      answeredMs: Math.round(answeredMs),
      receivedMs: Math.round(groupMs),
      received: groupReceived,
      perSecond: Math.round(groupReceived / (groupMs / 1000)),
    },
    single: {
      sent: sends.length,
      errors: sends.filter((s) => s.status !== 201).length,
      statuses: Object.fromEntries(
        [...new Set(sends.map((s) => String(s.status)))].map((k) => [
          k,
          sends.filter((s) => String(s.status) === k).length,
        ]),
      ),
      received: latencies.length,
      rate: Math.round(sends.length / sendSeconds),
      p50: pct(0.5),
      p99: pct(0.99),
      slices,
      max: Number((latencies.at(-1) ?? 0).toFixed(1)),
    },
  }),
)
const bye = Buffer.from([0xe0, 0x00]) // DISCONNECT
for (const c of clients) c.end(bye)
process.exit(0)
