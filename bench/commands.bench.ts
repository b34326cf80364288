/**
 * Commands benchmark, embedded broker and store. 10,000 devices connected from one load process (raw-socket MQTT
 * clients, on the same 2 cores) in one group:
 * 1. a group publish (needAck 1): time from the POST to the last device's receipt, and commands/s;
 * 2. device publishes at 1,000/s (open loop, random devices): latency from the POST to the device's receipt.
 */
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { join } from 'node:path'
import { childJson, table } from './_support/runner.ts'
import { recordCollections } from './_support/collections.ts'
import { startBenchService } from './_support/service.ts'

const DEVICES = Number(process.env.BENCH_DEVICES ?? 10_000)
const RATE = Number(process.env.BENCH_RATE ?? 1000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30)

const bench = await startBenchService('commands')
const { svc, token, api, close } = bench
const product = await api('POST', '/api/v1/products', { productName: 'bench', cloudProtocol: 1 })
const { group, devices } = await bench.groupOfDevices(product, DEVICES, 'cmd')

const profiler = process.env.BENCH_PROFILE ? new Session() : undefined
if (profiler) {
  profiler.connect()
  await profiler.post('Profiler.enable')
}
/** A module of the maintainer's own, counting SQL statements (BENCH_SQLSTATS=<path>): enable(), then dump(). */
interface SqlStats {
  enable(): void
  dump(): string
}
const sqlStats = process.env.BENCH_SQLSTATS
  ? ((await import(process.env.BENCH_SQLSTATS)) as SqlStats)
  : undefined
// the service's event loop and CPU, per phase: connects and the group publish, then the device publishes (from the
// first one stored, warm-up included)
const loop = monitorEventLoopDelay({ resolution: 10 })
loop.enable()
const phases: Array<{
  name: string
  at: number
  cpu: NodeJS.CpuUsage
  commands: number
  ms?: number
  p99?: number
  max?: number
}> = [
  {
    name: 'connects and group publish',
    at: performance.now(),
    cpu: process.cpuUsage(),
    commands: 0,
  },
]
let ended = false
const endPhase = () => {
  const p = phases.at(-1)!
  p.p99 = loop.percentile(99) / 1e6
  p.max = loop.max / 1e6
  p.cpu = process.cpuUsage(p.cpu)
  p.ms = performance.now() - p.at
  loop.reset()
}
const stalls: Array<[number, number]> = []
const collections = recordCollections()
const window = monitorEventLoopDelay({ resolution: 10 })
window.enable()
const sampler = setInterval(() => {
  if (phases.length === 2 && !ended && window.max > 50e6)
    stalls.push([Math.round(performance.now() - phases[1]!.at), Math.round(window.max / 1e6)])
  window.reset()
}, 250)
// the device publishes end 2 s after the last one is sent (the load pauses 1 s after its
// warm-up; it disconnects its devices 3 s after the last)
let quiet: NodeJS.Timeout | undefined
const onStatus = (e: {
  deviceIntID: number | null
  parentID: number | null
  commandStatus: string
}) => {
  if (e.deviceIntID === null || e.commandStatus !== 'sent' || ended) return
  if (e.parentID !== null) return // group members: the first phase's CPU is mostly connects
  if (phases.length === 1) {
    endPhase()
    phases.push({
      name: 'device publishes',
      at: performance.now(),
      cpu: process.cpuUsage(),
      commands: 0,
    })
    sqlStats?.enable()
    // BENCH_PROFILE: a CPU profile of the service during the device publishes
    if (profiler) void profiler.post('Profiler.start')
  }
  phases[1]!.commands++
  clearTimeout(quiet)
  quiet = setTimeout(() => {
    ended = true
    endPhase()
  }, 2000)
}
svc.deps.bus.on('command.status', onStatus)
/** What _support/command-load.ts prints: the load process's figures. */
interface CommandLoad {
  connectMs: number
  group: { answeredMs: number; receivedMs: number; received: number; perSecond: number }
  single: {
    sent: number
    rate: number
    errors: number
    received: number
    p50: number
    p99: number
    max: number
    slices: number[]
    statuses: Record<string, number>
  }
  loop: unknown
  slowest: unknown
}
const r = await childJson<CommandLoad>(
  join(import.meta.dirname, '_support/command-load.ts'),
  JSON.stringify({
    mqtt: `mqtt://127.0.0.1:${svc.deps.broker.port}`,
    api: svc.url,
    token,
    groupID: group.groupID,
    devices,
    rate: RATE,
    seconds: SECONDS,
  }),
)
if (profiler)
  writeFileSync(
    process.env.BENCH_PROFILE!,
    JSON.stringify((await profiler.post('Profiler.stop')).profile),
  )

console.log(
  `${DEVICES} devices connected by one raw-socket MQTT process in ${(r.connectMs / 1000).toFixed(1)} s; embedded broker and store\n`,
)
console.log(
  table(
    ['group publish (needAck 1)', 'answer ms', 'all received ms', 'received', 'commands/s'],
    [
      [
        `${DEVICES} members`,
        r.group.answeredMs,
        r.group.receivedMs,
        r.group.received,
        r.group.perSecond,
      ],
    ],
  ),
)
console.log('')
console.log(
  table(
    [
      'device publish',
      'sent',
      'rate/s',
      'errors',
      'received',
      'p50 ms',
      'p99 ms',
      'max ms',
      'p99 ms each 5 s',
    ],
    [
      [
        `open loop ${RATE}/s for ${SECONDS} s`,
        r.single.sent,
        r.single.rate,
        r.single.errors,
        r.single.received,
        r.single.p50,
        r.single.p99,
        r.single.max,
        r.single.slices.join(' / '),
      ],
    ],
  ),
)
if (!ended) endPhase()
loop.disable()
clearInterval(sampler)
console.log('')
console.log(
  table(
    [
      'service, per phase',
      'seconds',
      'loop delay p99 ms',
      'max ms',
      'CPU (of 1 core)',
      'CPU µs/command',
    ],
    phases.map((p) => [
      p.name,
      (p.ms! / 1000).toFixed(1),
      p.p99!.toFixed(1),
      p.max!.toFixed(1),
      `${Math.round((100 * (p.cpu.user + p.cpu.system)) / 1000 / p.ms!)}%`,
      p.commands ? Math.round((p.cpu.user + p.cpu.system) / p.commands) : '-',
    ]),
  ),
)
console.log(
  `stalls > 50 ms in the device publishes (ms from its start, ms): ${JSON.stringify(stalls)}`,
)
/**
 * Garbage collections of at least 20 ms, and every full one, in the device publishes: ms from its start, ms, and
 * `full` for a full collection (whose concurrent marking also takes CPU the pause does not show).
 */
const publishes = phases[1]
const gcs = publishes
  ? collections
      .between(publishes.at, publishes.at + publishes.ms!)
      .filter((g) => g.ms >= 20 || g.full)
      .map((g) => [Math.round(g.at - publishes.at), Math.round(g.ms), ...(g.full ? ['full'] : [])])
  : []
console.log(
  `garbage collections >= 20 ms or full in the device publishes (ms from its start, ms): ${JSON.stringify(gcs)}`,
)
collections.stop()
if (sqlStats) console.log(sqlStats.dump())
console.log(
  `\nstatuses: ${JSON.stringify(r.single.statuses)}; load process: ${JSON.stringify(r.loop)}\nslowest (ms after start: answer, receipt): ${JSON.stringify(r.slowest)}`,
)
await close()
process.exit(0)
