/**
 * Alerts and webhooks benchmark, embedded store, load generators in their own processes on the same 2 cores:
 * 1. durable MQTT ingest (1,000 devices, QoS 1, 10 data points a message) with 100 alert rules on the product,
 *    as a ratio of the same run without rules (the rules are evaluated on every uplink and never match here, so
 *    the figure is the evaluation cost);
 * 2. latency from an uplink's PUBACK to its alert being current (the committed raise), 200 samples;
 * 3. webhook deliveries/s to a local receiver.
 * Beside each ingest run: the service's CPU and CPU µs per uplink; the CPU ratio (µs per uplink without rules over
 * with) is the throughput ratio the service would reach on a core of its own.
 * BENCH_PROFILE=<file> writes a CPU profile (.cpuprofile) of the service's thread during the run with rules.
 */
import { writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { Session } from 'node:inspector/promises'
import { randomId } from '../src/kernel/secrets.ts'
import { mountpoint } from '../src/kernel/topics.ts'
import mqtt from 'mqtt'
import { mqttLoad, table } from './_support/runner.ts'
import { startBenchService } from './_support/service.ts'

const DEVICES = Number(process.env.BENCH_DEVICES ?? 1000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const POINTS = 10
const RULES = 100

const { svc, tenantID, api, telemetryProduct, seedDevices, close } =
  await startBenchService('alerts')
const product = await telemetryProduct(POINTS)
const devices = Array.from({ length: DEVICES + 1 }, (_, i) => ({
  deviceID: `al-${i}`,
  username: randomId(36),
  token: randomId(36),
}))
;(await seedDevices(product.id, devices)).close()
const topicOf = (deviceID: string) =>
  `${mountpoint({ cloudProtocol: 1, tenantID, productID: product.productID, deviceID })}telemetry`
const load = devices.slice(0, DEVICES).map((d) => ({
  clientId: d.deviceID,
  username: d.username,
  password: d.token,
  topic: topicOf(d.deviceID),
}))
/**
 * One load run, and the service's CPU (this process, every thread) per committed uplink over SECONDS from 1 s
 * after the first uplink (within the load's warm-up and measured window): steadier than messages/s on a
 * shared machine, where the service does not always get its core.
 */
async function run() {
  let uplinks = 0
  let window: { n: number; cpu: NodeJS.CpuUsage; t: number } | undefined
  let used: { uplinks: number; cpuMs: number; seconds: number } | undefined
  const onStored = () => {
    if (++uplinks === 1)
      setTimeout(() => {
        window = { n: uplinks, cpu: process.cpuUsage(), t: performance.now() }
        setTimeout(() => {
          const cpu = process.cpuUsage(window!.cpu)
          used = {
            uplinks: uplinks - window!.n,
            cpuMs: (cpu.user + cpu.system) / 1000,
            seconds: (performance.now() - window!.t) / 1000,
          }
        }, SECONDS * 1000)
      }, 1000)
  }
  svc.deps.bus.on('telemetry.stored', onStored)
  const r = await mqttLoad({
    url: `mqtt://127.0.0.1:${svc.deps.broker.port}`,
    devices: load,
    inflight: 1,
    seconds: SECONDS,
    points: POINTS,
  })
  svc.deps.bus.off('telemetry.stored', onStored)
  if (!used) throw new Error('the load ended before the CPU window')
  return {
    ...r,
    /** The service's CPU, % of one core (2 cores: up to 200). */
    serviceCpu: Math.round(used.cpuMs / used.seconds / 10),
    /** The service's CPU µs per uplink. */
    usPerUplink: Math.round((used.cpuMs * 1000) / used.uplinks),
  }
}

// 1. ingest without rules, then with 100 rules (values are 0..100: these conditions never hold)
const without = await run()
for (let i = 0; i < RULES; i++) {
  const r = await api('POST', '/api/v1/alert_rules', {
    ruleName: `rule ${i}`,
    productID: product.productID,
    condition: `p${i % POINTS} > ${200 + i} and p${(i + 1) % POINTS} >= 0`,
    alertSeverity: 3,
  })
  if (!r.id) throw new Error(`rule create failed: ${JSON.stringify(r)}`)
}
// BENCH_PROFILE=<file>: a CPU profile of the service's thread during the run with rules
const profiler = process.env.BENCH_PROFILE ? new Session() : undefined
if (profiler) {
  profiler.connect()
  await profiler.post('Profiler.enable')
  await profiler.post('Profiler.start')
}
const withRules = await run()
if (profiler)
  writeFileSync(
    process.env.BENCH_PROFILE!,
    JSON.stringify((await profiler.post('Profiler.stop')).profile),
  )

// 2. PUBACK → alert current: one device sends a value its own rule matches, 200 times (each raise is committed
// before alert.raised is emitted; the PUBACK and the event are timed in this process)
await api('POST', '/api/v1/alert_rules', {
  ruleName: 'trigger',
  productID: product.productID,
  condition: 'p0 > 1000000',
  alertSeverity: 1,
})
const probe = devices[DEVICES]!
const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${svc.deps.broker.port}`, {
  clientId: probe.deviceID,
  username: probe.username,
  password: probe.token,
  protocolVersion: 4,
})
const latencies: number[] = []
const fromSend: number[] = []
for (let i = 0; i < 200; i++) {
  const raised = new Promise<number>((resolve) => {
    const on = (e: { deviceID: string | null; alertName: string }) => {
      if (e.deviceID !== probe.deviceID || e.alertName !== 'trigger') return
      svc.deps.bus.off('alert.raised', on)
      resolve(performance.now())
    }
    svc.deps.bus.on('alert.raised', on)
  })
  const payload = JSON.stringify({ p0: i % 2 ? 2_000_000 : 2_000_001 + i })
  const sent = performance.now()
  await client.publishAsync(topicOf(probe.deviceID), payload, { qos: 1 })
  const acked = performance.now()
  const at = await raised
  latencies.push(Math.max(0, at - acked))
  fromSend.push(at - sent)
  // a value that clears it, so the next sample raises again
  await client.publishAsync(topicOf(probe.deviceID), JSON.stringify({ p0: 1 }), { qos: 1 })
  await new Promise((r) => setTimeout(r, 20))
}
await client.endAsync()
latencies.sort((a, b) => a - b)
fromSend.sort((a, b) => a - b)
const pct = (p: number, l = latencies) => l[Math.min(l.length - 1, Math.floor(l.length * p))]!

// 3. webhook deliveries/s: a local receiver answering 204; 2,000 command.status events (commands to offline
// devices without ttl are unsent at once: one event each)
let received = 0
let allIn: () => void = () => {}
const receiver = createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    received++
    res.writeHead(204).end()
    if (received >= 2000) allIn()
  })
})
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
const port = (receiver.address() as { port: number }).port
await api('POST', '/api/v1/webhooks', {
  url: `http://127.0.0.1:${port}/hook`,
  events: ['command.status'],
})
const w0 = performance.now()
const done = new Promise<void>((r) => (allIn = r))
for (let i = 0; i < 2000; i += 100)
  await Promise.all(
    Array.from({ length: 100 }, (_, k) =>
      api('POST', '/api/v1/device_publish', {
        deviceID: devices[(i + k) % DEVICES]!.deviceID,
        payload: 'x',
      }),
    ),
  )
await Promise.race([done, new Promise((r) => setTimeout(r, 120_000))])
const webhookSeconds = (performance.now() - w0) / 1000
receiver.close()

console.log(
  `${DEVICES} devices, QoS 1, 1 in flight, ${POINTS} data points a message, ${SECONDS} s per run; ${RULES} rules\n`,
)
console.log(
  table(
    [
      'run',
      'messages/s',
      'data points/s',
      'PUBACK p50 ms',
      'p99 ms',
      'errors',
      'ratio',
      'service CPU %',
      'CPU µs/uplink',
      'CPU ratio',
    ],
    [
      [
        'no alert rules',
        without.rate,
        without.rate * POINTS,
        without.p50,
        without.p99,
        without.errors,
        '',
        without.serviceCpu,
        without.usPerUplink,
        '',
      ],
      [
        `${RULES} alert rules`,
        withRules.rate,
        withRules.rate * POINTS,
        withRules.p50,
        withRules.p99,
        withRules.errors,
        `${Math.round((100 * withRules.rate) / without.rate)}%`,
        withRules.serviceCpu,
        withRules.usPerUplink,
        `${Math.round((100 * without.usPerUplink) / withRules.usPerUplink)}%`,
      ],
    ],
  ),
)
console.log(
  `\nPUBACK → alert current (200 samples, 0 = current before the device had its PUBACK): p50 ${pct(0.5).toFixed(1)} ms, p99 ${pct(0.99).toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms; from the PUBLISH: p50 ${pct(0.5, fromSend).toFixed(1)} ms, p99 ${pct(0.99, fromSend).toFixed(1)} ms`,
)
console.log(
  `webhook deliveries: ${received} in ${webhookSeconds.toFixed(2)} s = ${Math.round(received / webhookSeconds)}/s (from the first POST of 2,000 commands; each command one event)`,
)
await close()
process.exit(0)
