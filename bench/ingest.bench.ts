/**
 * Ingest benchmarks, embedded store, load generators in their own processes on the same 2 cores:
 * 1. MQTT QoS 1, 1,000 devices, 10 data points per message: stored data points/s (a PUBACK means committed),
 *    against the broker alone passing the same messages with no processing (aedes, no auth, same settings).
 *    The load comes from bench/mqttload (Go, paho.mqtt.golang clients: a load not written in JavaScript, built by
 *    go-load.ts when its sources change), or with BENCH_GENERATOR=raw, or when Go is missing (a note says so),
 *    from mqtt-raw-load.ts (pre-encoded packets on raw sockets); then from mqtt-load.ts (MQTT.js, the earlier
 *    figures; BENCH_MQTTJS=0 skips it).
 *    Each row has the generator's CPU and the target's over the generator's measured window.
 * 2. The same with 10x the messages in flight: peak RSS stays bounded.
 *    The broker alone and the service take turns, 1 then 10 in flight, for BENCH_ROUNDS rounds (default 3): this
 *    machine's speed drifts by minutes, so each ratio pairs two runs next to each other, and the median is given.
 * 3. HTTP ingest, 5,000 points per request: points/s, against a raw libSQL multi-row insert of the same rows.
 */
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { join } from 'node:path'
import { createClient } from '@libsql/client'
import { randomId } from '../src/kernel/secrets.ts'
import { mountpoint } from '../src/kernel/topics.ts'
import { GoLoadUnavailable, goLoadBinary } from './_support/go-load.ts'
import { procCpuUs, threadCpuUs, threadIds, threadName, threadsCpuUs } from './_support/proc-cpu.ts'
import {
  mqttGoLoad,
  mqttLoad,
  mqttRawLoad,
  table,
  type GoLoadResult,
  type MqttLoadOpts,
  type MqttLoadResult,
} from './_support/runner.ts'
import { startBenchService } from './_support/service.ts'

const DEVICES = Number(process.env.BENCH_DEVICES ?? 1000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const POINTS = 10
const MQTTJS = process.env.BENCH_MQTTJS !== '0'
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))

type Generator = 'go' | 'raw' | 'mqtt.js'
/** The rounds' load generator: the Go one (built now if its sources changed) unless asked for raw or Go is missing. */
function roundsGenerator(): 'go' | 'raw' {
  if (process.env.BENCH_GENERATOR === 'raw') return 'raw'
  try {
    goLoadBinary()
    return 'go'
  } catch (err) {
    if (!(err instanceof GoLoadUnavailable)) throw err
    console.log(`NOTE: ${err.message}`)
    console.log('NOTE: the rounds use the raw-socket generator (mqtt-raw-load.ts) instead\n')
    return 'raw'
  }
}
const GENERATOR = roundsGenerator()
const LABEL = { go: 'Go paho', raw: 'raw sockets' }[GENERATOR]

// the threads of this process before the service starts: its main thread and V8's own (garbage collection,
// compilation); the service's store, reader, telemetry and checkpointer threads come after
const ownThreads = new Set(threadIds(process.pid))
const { svc, dir, tenantID, telemetryProduct, seedDevices, close } =
  await startBenchService('ingest')
const product = await telemetryProduct(POINTS)
const devices = Array.from({ length: DEVICES }, (_, i) => ({
  deviceID: `bench-${i}`,
  username: randomId(36),
  token: randomId(36),
}))
void (await seedDevices(product.id, devices)).close()
const topicOf = (deviceID: string) =>
  `${mountpoint({ cloudProtocol: 1, tenantID, productID: product.productID, deviceID })}telemetry`

/** A load run's figures with its target's CPU over the generator's measured window. */
interface Run extends MqttLoadResult {
  /** The target's CPU, % of one core (all its threads). */
  targetCpu: number
  /** The target's CPU per acknowledged message, µs. */
  targetUsPerMsg: number
  /** The CPU of the target's main thread (the one that runs the broker) per acknowledged message, µs. */
  mainUsPerMsg: number
  /** For the service (this process): where the rest of its CPU went, µs per acknowledged message. */
  threads?: ThreadSplit
  /** Go generator: PUBLISHes sent over the whole run that got no PUBACK (0 unless something failed). */
  unacked?: number
}

/** The service's CPU a message beside its main thread's: V8's threads, and the threads the service started. */
interface ThreadSplit {
  v8: number
  service: number
  /** The threads the service started, by name (db-writer, tsdb, db-checkpointer ...: summed), most first. */
  byName: [string, number][]
}

function splitThreads(
  before: Map<number, number>,
  after: Map<number, number>,
  acked: number,
): ThreadSplit {
  let v8 = 0
  let service = 0
  const byName = new Map<string, number>()
  for (const [tid, us] of after) {
    if (tid === process.pid) continue
    const used = us - (before.get(tid) ?? 0)
    if (ownThreads.has(tid)) v8 += used
    else {
      service += used
      // a checkpointer (or reader) may have run as several threads one after another: one figure by name
      const name = threadName(process.pid, tid) || 'ended'
      byName.set(name, (byName.get(name) ?? 0) + used)
    }
  }
  const per = (us: number) => (acked ? Number((us / acked).toFixed(1)) : 0)
  return {
    v8: per(v8),
    service: per(service),
    byName: [...byName]
      .sort((a, b) => b[1] - a[1])
      .filter(([, us]) => per(us) >= 0.5)
      .map(([name, us]) => [name, per(us)]),
  }
}

/**
 * Runs one generator (Go, raw sockets or MQTT.js) and reads the target's CPU (`pid`: all its threads, then its main
 * thread) when the generator's measured window starts and ends.
 */
async function run(
  generator: Generator,
  opts: Omit<MqttLoadOpts, 'seconds' | 'points'>,
  pid: number,
): Promise<Run> {
  let c0 = 0
  let c1 = 0
  let m0 = 0
  let m1 = 0
  let t0 = new Map<number, number>()
  let t1 = new Map<number, number>()
  const self = pid === process.pid
  const window = (mark: 'start' | 'end') => {
    if (mark === 'start') [c0, m0] = [procCpuUs(pid), threadCpuUs(pid)]
    else [c1, m1] = [procCpuUs(pid), threadCpuUs(pid)]
    if (self) mark === 'start' ? (t0 = threadsCpuUs(pid)) : (t1 = threadsCpuUs(pid))
  }
  const full = { ...opts, seconds: SECONDS, points: POINTS }
  const load = { go: mqttGoLoad, raw: mqttRawLoad, 'mqtt.js': mqttLoad }[generator]
  const r: MqttLoadResult & Partial<GoLoadResult> = await load(full, window)
  return {
    ...r,
    unacked: r.published === undefined ? undefined : r.published - (r.ackedTotal ?? 0),
    targetCpu: Math.round((c1 - c0) / 10_000 / r.seconds),
    targetUsPerMsg: r.acked ? Number(((c1 - c0) / r.acked).toFixed(1)) : 0,
    mainUsPerMsg: r.acked ? Number(((m1 - m0) / r.acked).toFixed(1)) : 0,
    threads: self ? splitThreads(t0, t1, r.acked) : undefined,
  }
}

// 1. the ceiling, the broker alone, and 2. the service (this process, all its threads), taking turns: a round is the
// broker alone then the service at 1 in flight, then both at 10 (a 10x burst); peak RSS is sampled throughout
const bare = spawn(
  process.execPath,
  ['--import', 'tsx', join(import.meta.dirname, '_support/bare-broker.ts')],
  { stdio: ['ignore', 'pipe', 'inherit'] },
)
const barePort: number = await new Promise((resolve) =>
  bare.stdout.once('data', (d) => resolve((JSON.parse(String(d)) as { port: number }).port)),
)
const anonymous = devices.map((d) => ({ clientId: d.deviceID, topic: topicOf(d.deviceID) }))
const bareUrl = `mqtt://127.0.0.1:${barePort}`
let peakRss = 0
let rssSteady = 0
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 100)
const creds = devices.map((d) => ({
  clientId: d.deviceID,
  username: d.username,
  password: d.token,
  topic: topicOf(d.deviceID),
}))
const svcUrl = `mqtt://127.0.0.1:${svc.deps.broker.port}`
const profiler = process.env.BENCH_PROFILE ? new Session() : undefined

/** One round: the broker alone and the service next to each other, at 1 and at 10 in flight. */
interface Round {
  ceiling: Run
  ours: Run
  ceilingBurst: Run
  burst: Run
}
const rounds: Round[] = []
for (let i = 0; i < ROUNDS; i++) {
  const ceiling = await run(GENERATOR, { url: bareUrl, devices: anonymous, inflight: 1 }, bare.pid!)
  if (profiler && i === 0) {
    profiler.connect()
    await profiler.post('Profiler.enable')
    await profiler.post('Profiler.start')
  }
  const ours = await run(GENERATOR, { url: svcUrl, devices: creds, inflight: 1 }, process.pid)
  if (profiler && i === 0)
    writeFileSync(
      process.env.BENCH_PROFILE!,
      JSON.stringify((await profiler.post('Profiler.stop')).profile),
    )
  if (i === 0) rssSteady = peakRss // before any burst
  const ceilingBurst = await run(
    GENERATOR,
    { url: bareUrl, devices: anonymous, inflight: 10 },
    bare.pid!,
  )
  const burst = await run(GENERATOR, { url: svcUrl, devices: creds, inflight: 10 }, process.pid)
  rounds.push({ ceiling, ours, ceilingBurst, burst })
}
const js = MQTTJS
  ? {
      ceiling: await run('mqtt.js', { url: bareUrl, devices: anonymous, inflight: 1 }, bare.pid!),
      ceilingBurst: await run(
        'mqtt.js',
        { url: bareUrl, devices: anonymous, inflight: 10 },
        bare.pid!,
      ),
      ours: await run('mqtt.js', { url: svcUrl, devices: creds, inflight: 1 }, process.pid),
      burst: await run('mqtt.js', { url: svcUrl, devices: creds, inflight: 10 }, process.pid),
    }
  : undefined
bare.kill()
clearInterval(sampler)
// every committed uplink goes to the alert engine too: it must keep up, not drop (its queue is bounded)
const alerts = svc.deps.services.alertEngine.backlog()

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
const BODY_MESSAGES = 500
/** A body of BODY_MESSAGES messages: the sender's own, or each naming the next of `deviceIDs`. */
const body = (deviceIDs?: readonly string[]) =>
  JSON.stringify({
    messages: Array.from({ length: BODY_MESSAGES }, () => {
      t += 1000
      const data: Record<string, { time: number; value: number }> = {}
      for (let i = 0; i < POINTS; i++) data[`p${i}`] = { time: t, value: i + Math.random() }
      const payload = { data_type: 'event', stream_id: 'telemetry', data }
      if (!deviceIDs) return { topic: 'telemetry', payload }
      return { deviceID: deviceIDs[named++ % deviceIDs.length], topic: 'telemetry', payload }
    }),
  })
const HTTP_REQUESTS = 100
/** Device and caller take turns: this many runs each (HTTP_REQUESTS in all), so machine drift hits both alike. */
const HTTP_ROUNDS = 10

interface HttpRun {
  /** Points stored a second over all its runs. */
  rate: number
  errors: number
  /** CPU of this process (the service and its HTTP client) per message, µs. */
  usPerMsg: number
}

/** Posts `bodies` (built before the clock starts: the load is not ours to pay), 4 in flight. */
async function httpPost(authorization: string, bodies: readonly string[]) {
  let sent = 0
  let errors = 0
  const c0 = procCpuUs(process.pid)
  const h0 = performance.now()
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (sent < bodies.length) {
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
  return { ms: performance.now() - h0, cpuUs: procCpuUs(process.pid) - c0, errors }
}

/**
 * HTTP_REQUESTS bodies of each sender in `senders` (authorization, and the devices its messages name, if any),
 * the senders taking turns over HTTP_ROUNDS rounds (the first of a round alternating). A run's bodies are built
 * just before it (outside its clock), so every message is newer than all sent before it, whoever sent it: values
 * older than a series' latest cost the latest-values cache and the alert engine nothing, which made the first
 * sender's later runs cheaper when all bodies were built up front.
 */
async function httpIngest(
  senders: ReadonlyArray<[string, (readonly string[])?]>,
): Promise<HttpRun[]> {
  const sums = senders.map(() => ({ ms: 0, cpuUs: 0, errors: 0 }))
  const per = Math.ceil(HTTP_REQUESTS / HTTP_ROUNDS)
  const messages = per * HTTP_ROUNDS * BODY_MESSAGES
  for (let round = 0; round < HTTP_ROUNDS; round++) {
    const order = senders.map((_, i) => i)
    if (round % 2) order.reverse()
    for (const i of order) {
      const [authorization, ids] = senders[i]!
      const bodies = Array.from({ length: per }, () => body(ids))
      const r = await httpPost(authorization, bodies)
      sums[i]!.ms += r.ms
      sums[i]!.cpuUs += r.cpuUs
      sums[i]!.errors += r.errors
    }
  }
  return sums.map((t) => ({
    rate: Math.round((messages * POINTS) / (t.ms / 1000)),
    errors: t.errors,
    usPerMsg: t.cpuUs / messages,
  }))
}
if (profiler && process.env.BENCH_PROFILE_HTTP) await profiler.post('Profiler.start')
const [http, httpSame] = (await httpIngest([[basic], [bearer, [devices[1]!.deviceID]]])) as [
  HttpRun,
  HttpRun,
]
if (profiler && process.env.BENCH_PROFILE_HTTP)
  writeFileSync(
    process.env.BENCH_PROFILE_HTTP,
    JSON.stringify((await profiler.post('Profiler.stop')).profile),
  )
const [httpNamed] = (await httpIngest([[bearer, devices.map((d) => d.deviceID)]])) as [HttpRun]

/**
 * The raw insert ceiling: the same 500,000 rows as 500-row INSERTs in transactions on a fresh libSQL file, one
 * statement per data point a request; `spread` gives each message's values the series of the next of the bench
 * devices (10 points each: 10,000 series), as the bodies naming each device in turn do.
 */
async function rawInsert(file: string, spread: boolean): Promise<number> {
  const raw = createClient({ url: `file:${join(dir, file)}` })
  await raw.execute('PRAGMA journal_mode = WAL')
  await raw.execute('PRAGMA synchronous = NORMAL')
  await raw.execute(
    'CREATE TABLE v (series INTEGER, time INTEGER, value REAL, PRIMARY KEY (series, time)) WITHOUT ROWID',
  )
  const r0 = performance.now()
  for (let req = 0; req < HTTP_REQUESTS; req++) {
    const stmts = []
    for (let s = 0; s < POINTS; s++) {
      const rows = Array.from({ length: 500 }, (_, i) => {
        const m = req * 500 + i
        return [spread ? (m % DEVICES) * POINTS + s : s, m, Math.random()]
      })
      stmts.push({
        sql: `INSERT OR REPLACE INTO v VALUES ${rows.map(() => '(?, ?, ?)').join(',')}`,
        args: rows.flat(),
      })
    }
    await raw.batch(stmts, 'write')
  }
  const rate = Math.round((HTTP_REQUESTS * 5000) / ((performance.now() - r0) / 1000))
  raw.close()
  return rate
}
const rawRate = await rawInsert('raw.db', false)
const rawSpread = await rawInsert('raw-spread.db', true)

console.log(
  `${DEVICES} devices, ${POINTS} data points per message, QoS 1 with 1 message in flight per device (burst: 10), ${SECONDS} s per run\n`,
)
const pctOf = (a: number, b: number) => `${Math.round((100 * a) / b)}%`
const row = (label: string, generator: string, r: Run, ceil?: Run) => [
  label,
  generator,
  r.rate,
  r.rate * POINTS,
  r.p50,
  r.p99,
  r.errors,
  `${r.targetCpu}%`,
  r.targetUsPerMsg,
  r.mainUsPerMsg,
  `${r.cpu}%`,
  r.cpuUsPerMsg,
  ceil ? ceil.rate : '',
  ceil ? pctOf(r.rate, ceil.rate) : '',
]
const rows = (generator: string, r: Round, n = '') => [
  row(`${n}broker alone (aedes, no auth, no processing), 1 in flight`, generator, r.ceiling),
  row(`${n}DeviceCloud, embedded store, 1 in flight`, generator, r.ours, r.ceiling),
  row(`${n}broker alone, 10 in flight`, generator, r.ceilingBurst),
  row(`${n}DeviceCloud, 10 in flight (10x burst)`, generator, r.burst, r.ceilingBurst),
]
console.log(
  table(
    [
      'run',
      'load generator',
      'messages/s',
      'data points/s',
      'PUBACK p50 ms',
      'p99 ms',
      'errors',
      'target CPU',
      'target µs/msg',
      'target main thread µs/msg',
      'generator CPU',
      'generator µs/msg',
      'ceiling msg/s',
      'ratio',
    ],
    [
      ...rounds.flatMap((r, i) => rows(LABEL, r, ROUNDS > 1 ? `round ${i + 1}: ` : '')),
      ...(js ? rows('MQTT.js', js) : []),
    ],
  ),
)
const split = (label: string, r: Run) => [
  label,
  r.targetUsPerMsg,
  r.mainUsPerMsg,
  r.threads?.v8 ?? '',
  r.threads?.service ?? '',
  r.threads?.byName.map(([name, us]) => `${name} ${us}`).join(', ') ?? '',
]
console.log(
  `\nwhere the service's CPU goes, µs a message (${LABEL}; \`/proc/<pid>/task/<tid>/stat\`)\n` +
    table(
      [
        'run',
        'all threads',
        'main thread (broker, pipeline, HTTP)',
        "V8's threads (GC, compiler)",
        'threads the service started (stores, readers, checkpointers)',
        'of them, by thread name',
      ],
      rounds.flatMap((r, i) => {
        const n = ROUNDS > 1 ? `round ${i + 1}, ` : ''
        return [split(`${n}1 in flight`, r.ours), split(`${n}10 in flight`, r.burst)]
      }),
    ),
)
/** The ratios of the rounds (service over the broker alone next to it), and their median. */
const ratios = (pick: (r: Round) => [Run, Run]) => {
  const all = rounds.map((r) => pick(r)).map(([o, c]) => o.rate / c.rate)
  const median = [...all].sort((a, b) => a - b)[Math.floor(all.length / 2)]!
  return `${all.map((x) => `${Math.round(100 * x)}%`).join(' / ')} (median ${Math.round(100 * median)}%)`
}
console.log(
  `\nratio to the broker alone, round by round: 1 in flight ${ratios((r) => [r.ours, r.ceiling])}; 10 in flight ${ratios((r) => [r.burst, r.ceilingBurst])}`,
)
const gen = (pick: (r: Round) => Run, f: (r: Run) => number) =>
  rounds.map((r) => f(pick(r))).join(' / ')
const cheaper = rounds.every((r) =>
  [r.ceiling, r.ceilingBurst].every((x) => x.cpuUsPerMsg < x.targetUsPerMsg),
)
console.log(
  `${LABEL} generator ${gen(
    (r) => r.ceiling,
    (x) => x.cpuUsPerMsg,
  )} and ${gen(
    (r) => r.ceilingBurst,
    (x) => x.cpuUsPerMsg,
  )} µs of CPU a message against aedes alone's ${gen(
    (r) => r.ceiling,
    (x) => x.targetUsPerMsg,
  )} and ${gen(
    (r) => r.ceilingBurst,
    (x) => x.targetUsPerMsg,
  )} (1 and 10 in flight, each round): ${cheaper ? 'cheaper than the broker it loads' : 'NOT cheaper than the broker: the ceiling is the generator'}`,
)
if (GENERATOR === 'go') {
  const runs = rounds.flatMap((r) => [r.ceiling, r.ours, r.ceilingBurst, r.burst])
  const unacked = runs.reduce((n, r) => n + (r.unacked ?? 0), 0)
  console.log(
    unacked
      ? `Go generator: ${unacked} PUBLISHes got no PUBACK over the runs`
      : 'Go generator: every PUBLISH of every run got its PUBACK',
  )
}
console.log(
  `peak RSS of the service process: ${Math.round(rssSteady / 2 ** 20)} MiB steady, ${Math.round(peakRss / 2 ** 20)} MiB with the burst`,
)
console.log(
  `device ${devices[0]!.deviceID}: ${probe.get('p0')?.time.length ?? 0} values of p0 stored`,
)
console.log(
  `alert engine: ${alerts.dropped} values dropped from evaluation (queue full) over the MQTT runs, ${alerts.queued} waiting at their end`,
)
console.log(
  '\n' +
    table(
      [
        'HTTP ingest',
        'points/s',
        'errors',
        'raw libSQL insert points/s',
        'ratio',
        'service + client µs/msg',
      ],
      [
        [
          `device credentials: ${HTTP_REQUESTS} requests x 5,000 points, 4 in flight`,
          http.rate,
          http.errors,
          rawRate,
          `${Math.round((100 * http.rate) / rawRate)}%`,
          http.usPerMsg.toFixed(1),
        ],
        [
          `API caller naming deviceID: the same device, the same bodies (turns with the row above, ${HTTP_ROUNDS} rounds)`,
          httpSame.rate,
          httpSame.errors,
          rawRate,
          `${Math.round((100 * httpSame.rate) / rawRate)}%`,
          httpSame.usPerMsg.toFixed(1),
        ],
        [
          `API caller naming deviceID: each of the ${DEVICES} devices in turn`,
          httpNamed.rate,
          httpNamed.errors,
          `${rawSpread} (the same ${DEVICES * POINTS} series)`,
          `${Math.round((100 * httpNamed.rate) / rawSpread)}%`,
          httpNamed.usPerMsg.toFixed(1),
        ],
      ],
    ),
)
await close()
process.exit(0)
