/**
 * Live stream benchmark, embedded store, load generators in their own processes on the same 2 cores: MQTT ingest
 * at a set rate (100 devices, QoS 1, one message every 200 ms each: ~500 msg/s) while 0, 100 and 200 clients hold
 * `GET /api/v1/events/stream?types=telemetry`, 10% of them never reading. Per run: PUBACK p50/p99, the share of
 * the telemetry events the reading clients got (each counted against the groups the service stored), the service's
 * peak RSS and CPU, and each load generator's CPU.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { loadavg } from 'node:os'
import { createInterface } from 'node:readline'
import { randomId } from '../src/kernel/secrets.ts'
import { mountpoint } from '../src/kernel/topics.ts'
import { mqttLoad, table } from './_support/runner.ts'
import { startBenchService } from './_support/service.ts'

const DEVICES = 100
const INTERVAL_MS = 200
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15)
const POINTS = Number(process.env.BENCH_POINTS ?? 10)
/** The three runs asked for, then 200 clients for as long as a stalled socket takes to fill (~4 MB of buffers). */
const LONG_SECONDS = Number(process.env.BENCH_LONG_SECONDS ?? 60)
const RUNS = [
  { clients: 0, seconds: SECONDS },
  { clients: 100, seconds: SECONDS },
  { clients: 200, seconds: SECONDS },
  ...(LONG_SECONDS ? [{ clients: 200, seconds: LONG_SECONDS }] : []),
]

const { svc, tenantID, token, telemetryProduct, seedDevices, close } =
  await startBenchService('stream')
const product = await telemetryProduct(POINTS)
const devices = Array.from({ length: DEVICES }, (_, i) => ({
  deviceID: `st-${i}`,
  username: randomId(36),
  token: randomId(36),
}))
void (await seedDevices(product.id, devices)).close()
const load = devices.map((d) => ({
  clientId: d.deviceID,
  username: d.username,
  password: d.token,
  topic: `${mountpoint({ cloudProtocol: 1, tenantID, productID: product.productID, deviceID: d.deviceID })}telemetry`,
}))

// the telemetry events the service emits: one per device and time of each stored batch
let stored = 0
svc.deps.bus.on('telemetry.stored', (e) => {
  if (e.tenantID !== tenantID) return
  stored += new Set(e.values.map((v) => `${v.deviceID}\u0000${v.time}`)).size
})

interface ClientsResult {
  reading: number[]
  stalled: Array<{ overflow: boolean; missed: number; closed: boolean }>
  cpu: number
}

/** Starts the stream clients' process; resolves once every stream answered, with a function that stops it. */
function streamClients(n: number): Promise<() => Promise<ClientsResult>> {
  const stalled = Math.round(n / 10)
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(import.meta.dirname, '_support', 'sse-clients.ts'),
      JSON.stringify({ url: svc.url, token, reading: n - stalled, stalled }),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  )
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  return (async () => {
    const first = await lines.next()
    if (first.done || !(JSON.parse(first.value) as { ready?: boolean }).ready)
      throw new Error('stream clients failed')
    return async () => {
      child.stdin.write('stop\n')
      const last = await lines.next()
      if (last.done) throw new Error('stream clients ended without their figures')
      return JSON.parse(last.value) as ClientsResult
    }
  })()
}

const rows: Array<Array<string | number>> = []
for (const { clients: n, seconds } of RUNS) {
  const stop = n ? await streamClients(n) : undefined
  stored = 0
  global.gc?.()
  const rss0 = process.memoryUsage.rss()
  let peak = rss0
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 100)
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const r = await mqttLoad({
    url: `mqtt://127.0.0.1:${svc.deps.broker.port}`,
    devices: load,
    inflight: 1,
    seconds,
    points: POINTS,
    intervalMs: INTERVAL_MS,
  })
  await new Promise((res) => setTimeout(res, 2000)) // the last frames reach the reading clients
  const used = process.cpuUsage(cpu0)
  const serviceCpu = Math.round(
    (used.user + used.system) / 10_000 / ((performance.now() - t0) / 1000),
  )
  clearInterval(sampler)
  const c = stop ? await stop() : undefined
  const ratio = (k: number) => (k === stored ? '100%' : `${((100 * k) / stored).toFixed(2)}%`)
  const got = c?.reading ?? []
  rows.push([
    `${n} (${Math.round(n / 10)} not reading), ${seconds} s`,
    r.rate,
    r.p50,
    r.p99,
    r.errors,
    stored,
    got.length
      ? `${ratio(Math.min(...got))} / ${ratio(got.reduce((a, b) => a + b, 0) / got.length)}`
      : '',
    c ? `${c.stalled.filter((s) => s.overflow).length} of ${c.stalled.length}` : '',
    Math.round(rss0 / 2 ** 20),
    Math.round(peak / 2 ** 20),
    serviceCpu,
    r.cpu,
    c ? c.cpu : '',
    loadavg()[0]!.toFixed(1),
  ])
  await new Promise((res) => setTimeout(res, 1000)) // the closed streams are gone before the next run
}

console.log(
  `${DEVICES} devices, QoS 1, one message every ${INTERVAL_MS} ms each, ${POINTS} data points a message, 2 s of warm-up a run; clients subscribe to telemetry\n`,
)
console.log(
  table(
    [
      'stream clients',
      'messages/s',
      'PUBACK p50 ms',
      'p99 ms',
      'errors',
      'telemetry events',
      'reading clients got (min / mean)',
      'stalled told overflow',
      'RSS before MB',
      'RSS peak MB',
      'service CPU %',
      'MQTT load CPU %',
      'stream clients CPU %',
      'machine load (1 min)',
    ],
    rows,
  ),
)
await close()
process.exit(0)
