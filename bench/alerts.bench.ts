/**
 * Alerts and webhooks benchmark, embedded store, load generators in their own processes on the same 2 cores:
 * 1. durable MQTT ingest (1,000 devices, QoS 1, one message in flight each, 10 data points a message) of a product
 *    with 100 alert rules, as a ratio of the same load on a product without rules (the rules are evaluated on every
 *    uplink and never match here, so the figure is the evaluation cost). Each product has its own devices, and the
 *    two runs take turns for BENCH_ROUNDS rounds (default 3): this machine's speed drifts within minutes, so each
 *    ratio pairs two runs next to each other, and the median is given. The load is the ingest bench's raw-socket
 *    generator (it costs less CPU a message than the broker it loads);
 * 2. latency from an uplink's PUBACK to its alert being current (the committed raise), 200 samples;
 * 3. webhook deliveries/s to a local receiver.
 * Beside each ingest run: the service's CPU and CPU µs per uplink over the generator's measured window; the CPU
 * ratio (µs per uplink without rules over with) is the throughput ratio the service would reach on a core of its own.
 * BENCH_PROFILE=<file> writes a CPU profile (.cpuprofile) of the service's thread during the first run with rules.
 */
import { writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { Session } from 'node:inspector/promises'
import mqtt from 'mqtt'
import { procCpuUs } from './_support/proc-cpu.ts'
import { mqttRawLoad, table, type MqttLoadOpts } from './_support/runner.ts'
import { startBenchService } from './_support/service.ts'

const DEVICES = Number(process.env.BENCH_DEVICES ?? 1000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
const POINTS = 10
const RULES = 100

const { svc, api, sendingDevices, close } = await startBenchService('alerts')

const plain = await sendingDevices(DEVICES, POINTS, 'none')
// one device more: the probe of part 2
const ruled = await sendingDevices(DEVICES + 1, POINTS, 'al')
// 100 rules, each reading two points (values are 10-100: these conditions never hold)
for (let i = 0; i < RULES; i++) {
  const r = await api('POST', '/api/v1/alert_rules', {
    ruleName: `rule ${i}`,
    productID: ruled.product.productID,
    condition: `p${i % POINTS} > ${200 + i} and p${(i + 1) % POINTS} >= 0`,
    alertSeverity: 3,
  })
  if (!r.id) throw new Error(`rule create failed: ${JSON.stringify(r)}`)
}

/** One load run, and the service's CPU (this process, every thread) over the generator's measured window. */
async function run(devices: MqttLoadOpts['devices']) {
  let c0 = 0
  let c1 = 0
  const r = await mqttRawLoad(
    {
      url: `mqtt://127.0.0.1:${svc.deps.broker.port}`,
      devices,
      inflight: 1,
      seconds: SECONDS,
      points: POINTS,
      // new values (10.00-99.99) in every message, as devices send: a rule is evaluated on values it has not seen
      freshValues: true,
    },
    (mark) => (mark === 'start' ? (c0 = procCpuUs(process.pid)) : (c1 = procCpuUs(process.pid))),
  )
  return {
    ...r,
    /** The service's CPU, % of one core (2 cores: up to 200). */
    serviceCpu: Math.round((c1 - c0) / 10_000 / r.seconds),
    /** The service's CPU µs per uplink. */
    usPerUplink: r.acked ? Math.round((c1 - c0) / r.acked) : 0,
  }
}

// 1. without rules and with 100 rules, taking turns; BENCH_PROFILE: a CPU profile of the first run with rules
const profiler = process.env.BENCH_PROFILE ? new Session() : undefined
const rounds: Array<{
  without: Awaited<ReturnType<typeof run>>
  withRules: Awaited<ReturnType<typeof run>>
}> = []
for (let i = 0; i < ROUNDS; i++) {
  const without = await run(plain.creds)
  if (profiler && i === 0) {
    profiler.connect()
    await profiler.post('Profiler.enable')
    await profiler.post('Profiler.start')
  }
  const withRules = await run(ruled.creds.slice(0, DEVICES))
  if (profiler && i === 0)
    writeFileSync(
      process.env.BENCH_PROFILE!,
      JSON.stringify((await profiler.post('Profiler.stop')).profile),
    )
  rounds.push({ without, withRules })
}

// 2. PUBACK → alert current: one device sends a value its own rule matches, 200 times (each raise is committed
// before alert.raised is emitted; the PUBACK and the event are timed in this process)
await api('POST', '/api/v1/alert_rules', {
  ruleName: 'trigger',
  productID: ruled.product.productID,
  condition: 'p0 > 1000000',
  alertSeverity: 1,
})
const probe = ruled.devices[DEVICES]!
const probeTopic = ruled.creds[DEVICES]!.topic
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
  await client.publishAsync(probeTopic, payload, { qos: 1 })
  const acked = performance.now()
  const at = await raised
  latencies.push(Math.max(0, at - acked))
  fromSend.push(at - sent)
  // a value that clears it, so the next sample raises again
  await client.publishAsync(probeTopic, JSON.stringify({ p0: 1 }), { qos: 1 })
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
        deviceID: ruled.devices[(i + k) % DEVICES]!.deviceID,
        payload: 'x',
      }),
    ),
  )
await Promise.race([done, new Promise((r) => setTimeout(r, 120_000))])
const webhookSeconds = (performance.now() - w0) / 1000
receiver.close()

console.log(
  `${DEVICES} devices a product, QoS 1, 1 in flight, ${POINTS} data points a message, ${SECONDS} s per run; ${RULES} rules; raw-socket generator\n`,
)
const row = (name: string, r: Awaited<ReturnType<typeof run>>, ratio = '', cpuRatio = '') => [
  name,
  r.rate,
  r.rate * POINTS,
  r.p50,
  r.p99,
  r.errors,
  ratio,
  r.serviceCpu,
  r.usPerUplink,
  cpuRatio,
  r.cpuUsPerMsg,
]
const pctOf = (x: number) => `${Math.round(100 * x)}%`
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
      'generator µs/msg',
    ],
    rounds.flatMap(({ without, withRules }, i) => [
      row(`round ${i + 1}: no alert rules`, without),
      row(
        `round ${i + 1}: ${RULES} alert rules`,
        withRules,
        pctOf(withRules.rate / without.rate),
        pctOf(without.usPerUplink / withRules.usPerUplink),
      ),
    ]),
  ),
)
/** Each round's ratio, and their median. */
const ratios = (of: (r: (typeof rounds)[number]) => number) => {
  const all = rounds.map(of)
  const median = [...all].sort((a, b) => a - b)[Math.floor(all.length / 2)]!
  return `${all.map(pctOf).join(' / ')} (median ${pctOf(median)})`
}
console.log(
  `\n${RULES} rules against none, round by round: messages/s ${ratios((r) => r.withRules.rate / r.without.rate)}; CPU ${ratios((r) => r.without.usPerUplink / r.withRules.usPerUplink)}`,
)
console.log(
  `\nPUBACK → alert current (200 samples, 0 = current before the device had its PUBACK): p50 ${pct(0.5).toFixed(1)} ms, p99 ${pct(0.99).toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms; from the PUBLISH: p50 ${pct(0.5, fromSend).toFixed(1)} ms, p99 ${pct(0.99, fromSend).toFixed(1)} ms`,
)
console.log(
  `webhook deliveries: ${received} in ${webhookSeconds.toFixed(2)} s = ${Math.round(received / webhookSeconds)}/s (from the first POST of 2,000 commands; each command one event)`,
)
await close()
process.exit(0)
