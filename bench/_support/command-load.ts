/**
 * Command load generator, its own process: connects `devices` MQTT.js clients (3.1.1; the service subscribes each
 * to its inbox), then (1) publishes to the whole group once and times until every member received its command,
 * (2) sends `rate` device publishes a second for `seconds` (open loop, to random connected devices) and measures
 * each from the start of its POST to the device's receipt. Prints one JSON line.
 * argv: <json | @file> = {mqtt, api, token, groupID, devices: [{clientId, username, password}], rate, seconds}
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'
import mqtt from 'mqtt'
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

const t0 = performance.now()
const clients: mqtt.MqttClient[] = []
for (let i = 0; i < o.devices.length; i += 500)
  clients.push(
    ...(await Promise.all(
      o.devices.slice(i, i + 500).map(
        (d) =>
          new Promise<mqtt.MqttClient>((resolve, reject) => {
            const c = mqtt.connect(o.mqtt, {
              clientId: d.clientId,
              username: d.username,
              password: d.password,
              protocolVersion: 4,
              reconnectPeriod: 0,
              connectTimeout: 60_000,
              keepalive: 300,
            })
            c.on('message', (_topic, payload) => {
              const { task_id } = JSON.parse(payload.toString()) as { task_id: string }
              if (!received.has(task_id)) received.set(task_id, performance.now())
              onReceipt?.()
            })
            c.once('connect', () => resolve(c))
            c.once('error', reject)
          }),
      ),
    )),
  )
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
const latencies = sends
  .filter((s) => s.taskID && received.has(s.taskID))
  .map((s) => received.get(s.taskID!)! - s.start)
  .sort((a, b) => a - b)
const pct = (p: number) =>
  Number(
    (latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0).toFixed(1),
  )

const slowest = sends
  .filter((s) => s.taskID && received.has(s.taskID))
  .map((s) => ({
    at: Math.round(s.start - p0),
    answer: Math.round(s.answered! - s.start),
    receipt: Math.round(received.get(s.taskID!)! - s.start),
  }))
  .sort((a, b) => b.receipt - a.receipt)
  .slice(0, 5)
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
      max: Number((latencies.at(-1) ?? 0).toFixed(1)),
    },
  }),
)
await Promise.all(clients.map((c) => c.endAsync(true).catch(() => {})))
process.exit(0)
