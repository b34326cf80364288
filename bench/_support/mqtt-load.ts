/**
 * MQTT load generator, run as its own process: `devices` MQTT.js clients (MQTT 3.1.1), each publishing QoS 1
 * messages to its own topic with at most `inflight` unacknowledged at a time, for `seconds` after a warm-up.
 * With `intervalMs`, each client publishes at most once per interval instead (an open loop at a set rate).
 * Prints one JSON line: {acked, seconds, rate, p50, p99, errors, connectMs, cpu, cpuUsPerMsg}. PUBACK latency in
 * ms; cpu is this process's CPU over the measured window, in % of one core, cpuUsPerMsg the same per acknowledged
 * message in µs.
 * With `marks`, it also prints `{"mark":"start"}` and `{"mark":"end"}` around the measured window.
 * argv: <json> = {url, devices: [{clientId, username, password, topic}], inflight, seconds, warmup, points,
 * intervalMs?, marks?}
 */
import mqtt from 'mqtt'
import { measuredWindow, printResult, type LoadOpts as Opts } from './mqtt-wire.ts'
import { argJson } from './runner.ts'

const o = argJson<Opts>(process.argv[2]!)
const latencies: number[] = []
let acked = 0
let errors = 0
let recording = false
let stopping = false

const t0 = performance.now()
const clients = await Promise.all(
  o.devices.map(
    (d) =>
      new Promise<mqtt.MqttClient>((resolve, reject) => {
        const c = mqtt.connect(o.url, {
          clientId: d.clientId,
          username: d.username,
          password: d.password,
          protocolVersion: 4,
          reconnectPeriod: 0,
          connectTimeout: 30_000,
          keepalive: 60,
        })
        c.once('connect', () => resolve(c))
        c.once('error', reject)
      }),
  ),
)
const connectMs = Math.round(performance.now() - t0)

function payload() {
  const p: Record<string, number> = {}
  for (let i = 0; i < o.points; i++) p[`p${i}`] = Math.round(Math.random() * 10_000) / 100
  return JSON.stringify(p)
}

function pump(c: mqtt.MqttClient, topic: string) {
  if (stopping) return
  const start = performance.now()
  c.publish(topic, payload(), { qos: 1 }, (err) => {
    if (err) errors++
    else if (recording) {
      acked++
      latencies.push(performance.now() - start)
    }
    const wait = o.intervalMs ? start + o.intervalMs - performance.now() : 0
    if (wait > 0) setTimeout(() => pump(c, topic), wait)
    else pump(c, topic)
  })
}

clients.forEach((c, i) => {
  for (let k = 0; k < o.inflight; k++) {
    const go = () => pump(c, o.devices[i]!.topic)
    if (o.intervalMs)
      setTimeout(go, Math.random() * o.intervalMs) // spread over the interval
    else go()
  }
})
const { seconds, used } = await measuredWindow(o, (on) => (recording = on))
stopping = true
latencies.sort((a, b) => a - b)
const pct = (p: number) =>
  Number(
    (latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0).toFixed(1),
  )
printResult({ acked, seconds, used, errors, connectMs, pct })
await Promise.all(clients.map((c) => c.endAsync(true).catch(() => {})))
process.exit(0)
