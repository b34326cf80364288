/**
 * Ingest benchmarks, embedded store, load generators in their own processes on the same 2 cores:
 * 1. MQTT QoS 1, 1,000 devices, 10 data points per message: stored data points/s (a PUBACK means committed),
 *    against the broker alone passing the same messages with no processing (aedes, no auth, same settings).
 * 2. The same with 10x the messages in flight: peak RSS stays bounded.
 * 3. HTTP ingest, 5,000 points per request: points/s, against a raw libSQL multi-row insert of the same rows.
 */
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { join } from 'node:path'
import { createClient } from '@libsql/client'
import { randomId } from '../src/kernel/secrets.ts'
import { mountpoint } from '../src/kernel/topics.ts'
import { mqttLoad, table } from './_support/runner.ts'
import { startBenchService } from './_support/service.ts'

const DEVICES = Number(process.env.BENCH_DEVICES ?? 1000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const POINTS = 10

const { svc, dir, tenantID, telemetryProduct, seedDevices, close } =
  await startBenchService('ingest')
const product = await telemetryProduct(POINTS)
const devices = Array.from({ length: DEVICES }, (_, i) => ({
  deviceID: `bench-${i}`,
  username: randomId(36),
  token: randomId(36),
}))
;(await seedDevices(product.id, devices)).close()
const topicOf = (deviceID: string) =>
  `${mountpoint({ cloudProtocol: 1, tenantID, productID: product.productID, deviceID })}telemetry`

// 1. the ceiling: the broker alone
const bare = spawn(
  process.execPath,
  ['--import', 'tsx', join(import.meta.dirname, '_support/bare-broker.ts')],
  { stdio: ['ignore', 'pipe', 'inherit'] },
)
const barePort: number = await new Promise((resolve) =>
  bare.stdout.once('data', (d) => resolve(JSON.parse(String(d)).port)),
)
const anonymous = devices.map((d) => ({ clientId: d.deviceID, topic: topicOf(d.deviceID) }))
const bareUrl = `mqtt://127.0.0.1:${barePort}`
const ceiling = await mqttLoad({
  url: bareUrl,
  devices: anonymous,
  inflight: 1,
  seconds: SECONDS,
  points: POINTS,
})
const ceilingBurst = await mqttLoad({
  url: bareUrl,
  devices: anonymous,
  inflight: 10,
  seconds: SECONDS,
  points: POINTS,
})
bare.kill()

// 2. the service, then a 10x burst, with peak RSS sampled
let peakRss = 0
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100)
const creds = devices.map((d) => ({
  clientId: d.deviceID,
  username: d.username,
  password: d.token,
  topic: topicOf(d.deviceID),
}))
const profiler = process.env.BENCH_PROFILE ? new Session() : undefined
if (profiler) {
  profiler.connect()
  await profiler.post('Profiler.enable')
  await profiler.post('Profiler.start')
}
const ours = await mqttLoad({
  url: `mqtt://127.0.0.1:${svc.deps.broker.port}`,
  devices: creds,
  inflight: 1,
  seconds: SECONDS,
  points: POINTS,
})
if (profiler)
  writeFileSync(
    process.env.BENCH_PROFILE!,
    JSON.stringify((await profiler.post('Profiler.stop')).profile),
  )
const rssSteady = peakRss
const burst = await mqttLoad({
  url: `mqtt://127.0.0.1:${svc.deps.broker.port}`,
  devices: creds,
  inflight: 10,
  seconds: SECONDS,
  points: POINTS,
})
clearInterval(sampler)

// the stored count of one device proves PUBACK = stored
const probe = await svc.deps.telemetry.readRaw({
  tenantID,
  deviceID: devices[0]!.deviceID,
  dataPointIDs: ['p0'],
  start: 0,
  end: Date.now() + 1000,
})

// 3. HTTP ingest, 5,000 points per request (500 messages of 10 points), 4 requests in flight: with a device's
// credentials, then as an API caller (the admin's token) whose every message names a deviceID: the same device's
// (the identity's cost alone), then each of the bench devices in turn (the values spread over 1,000 devices)
const basic = `Basic ${Buffer.from(`${devices[1]!.username}:${devices[1]!.token}`).toString('base64')}`
const login = await fetch(`${svc.url}/api/v1/login`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ email: 'b@b.io', password: 'bench-password' }), // startBenchService's admin
})
const bearer = `Bearer ${((await login.json()) as { token: string }).token}`
let t = Date.now() - 86_400_000
let named = 0
/** A body of 500 messages: the sender's own, or each naming the next of `deviceIDs`. */
const body = (deviceIDs?: readonly string[]) =>
  JSON.stringify({
    messages: Array.from({ length: 500 }, () => {
      t += 1000
      const data: Record<string, { time: number; value: number }> = {}
      for (let i = 0; i < POINTS; i++) data[`p${i}`] = { time: t, value: i + Math.random() }
      const payload = { data_type: 'event', stream_id: 'telemetry', data }
      if (!deviceIDs) return { topic: 'telemetry', payload }
      return { deviceID: deviceIDs[named++ % deviceIDs.length], topic: 'telemetry', payload }
    }),
  })
const HTTP_REQUESTS = 100

/** Posts HTTP_REQUESTS bodies (built before the clock starts: the load is not ours to pay), 4 in flight: points/s. */
async function httpIngest(authorization: string, deviceIDs?: readonly string[]) {
  const bodies = Array.from({ length: HTTP_REQUESTS }, () => body(deviceIDs))
  let sent = 0
  let errors = 0
  const h0 = performance.now()
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (sent < HTTP_REQUESTS) {
        const payload = bodies[sent++]!
        const r = await fetch(`${svc.url}/api/v1/ingest`, {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json' },
          body: payload,
        })
        const answer = (await r.json()) as { rejected?: unknown[] }
        if (r.status !== 202 || answer.rejected?.length) errors++
      }
    }),
  )
  return { rate: Math.round((HTTP_REQUESTS * 5000) / ((performance.now() - h0) / 1000)), errors }
}
if (profiler && process.env.BENCH_PROFILE_HTTP) await profiler.post('Profiler.start')
const http = await httpIngest(basic)
if (profiler && process.env.BENCH_PROFILE_HTTP)
  writeFileSync(
    process.env.BENCH_PROFILE_HTTP,
    JSON.stringify((await profiler.post('Profiler.stop')).profile),
  )
const httpSame = await httpIngest(bearer, [devices[1]!.deviceID])
const httpNamed = await httpIngest(
  bearer,
  devices.map((d) => d.deviceID),
)

// the raw insert ceiling: the same 500,000 rows as 500-row INSERTs in transactions on a fresh libSQL file
const raw = createClient({ url: `file:${join(dir, 'raw.db')}` })
await raw.execute('PRAGMA journal_mode = WAL')
await raw.execute('PRAGMA synchronous = NORMAL')
await raw.execute(
  'CREATE TABLE v (series INTEGER, time INTEGER, value REAL, PRIMARY KEY (series, time)) WITHOUT ROWID',
)
const r0 = performance.now()
for (let req = 0; req < HTTP_REQUESTS; req++) {
  const stmts = []
  for (let s = 0; s < 10; s++) {
    const rows = Array.from({ length: 500 }, (_, i) => [s, req * 500 + i, Math.random()])
    stmts.push({
      sql: `INSERT OR REPLACE INTO v VALUES ${rows.map(() => '(?, ?, ?)').join(',')}`,
      args: rows.flat(),
    })
  }
  await raw.batch(stmts, 'write')
}
const rawRate = Math.round((HTTP_REQUESTS * 5000) / ((performance.now() - r0) / 1000))
raw.close()

console.log(
  `${DEVICES} devices, ${POINTS} data points per message, QoS 1 with 1 message in flight per device (burst: 10), ${SECONDS} s per run\n`,
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
      'ceiling msg/s',
      'ratio',
    ],
    [
      [
        'broker alone (aedes, no auth, no processing), 1 in flight',
        ceiling.rate,
        ceiling.rate * POINTS,
        ceiling.p50,
        ceiling.p99,
        ceiling.errors,
        '',
        '',
      ],
      [
        'DeviceCloud, embedded store, 1 in flight',
        ours.rate,
        ours.rate * POINTS,
        ours.p50,
        ours.p99,
        ours.errors,
        ceiling.rate,
        `${Math.round((100 * ours.rate) / ceiling.rate)}%`,
      ],
      [
        'broker alone, 10 in flight',
        ceilingBurst.rate,
        ceilingBurst.rate * POINTS,
        ceilingBurst.p50,
        ceilingBurst.p99,
        ceilingBurst.errors,
        '',
        '',
      ],
      [
        'DeviceCloud, 10 in flight (10x burst)',
        burst.rate,
        burst.rate * POINTS,
        burst.p50,
        burst.p99,
        burst.errors,
        ceilingBurst.rate,
        `${Math.round((100 * burst.rate) / ceilingBurst.rate)}%`,
      ],
    ],
  ),
)
console.log(
  `\npeak RSS of the service process: ${Math.round(rssSteady / 2 ** 20)} MiB steady, ${Math.round(peakRss / 2 ** 20)} MiB with the burst`,
)
console.log(
  `device ${devices[0]!.deviceID}: ${probe.get('p0')?.time.length ?? 0} values of p0 stored`,
)
console.log(
  '\n' +
    table(
      ['HTTP ingest', 'points/s', 'errors', 'raw libSQL insert points/s', 'ratio'],
      [
        [
          `device credentials: ${HTTP_REQUESTS} requests x 5,000 points, 4 in flight`,
          http.rate,
          http.errors,
          rawRate,
          `${Math.round((100 * http.rate) / rawRate)}%`,
        ],
        [
          'API caller naming deviceID: the same device, the same bodies',
          httpSame.rate,
          httpSame.errors,
          rawRate,
          `${Math.round((100 * httpSame.rate) / rawRate)}%`,
        ],
        [
          `API caller naming deviceID: each of the ${DEVICES} devices in turn`,
          httpNamed.rate,
          httpNamed.errors,
          rawRate,
          `${Math.round((100 * httpNamed.rate) / rawRate)}%`,
        ],
      ],
    ),
)
await close()
process.exit(0)
