/**
 * Device state benchmark, embedded broker and store, load generators in their own processes on the same 2 cores:
 * 1. a desired patch to a group of 10,000 connected devices (raw-socket clients of _support/state-load.ts, each
 *    subscribed to its state/delta): time until every device has its delta, while a probe of 200 other devices (the
 *    Go generator, paced) publishes QoS 1 uplinks at 1,000/s: their PUBACK p99 over 8 s from the patch request
 *    against the same probe alone just before;
 * 2. the 10,000 devices away while the group is patched again, then all reconnecting at once: time until every one
 *    has its pending delta;
 * 3. reported patches against plain uplinks of the same payload (10 values, the Go generator bench/mqttload, 1,000
 *    devices, 1 message in flight each): messages/s of each, their ratio, the generator's CPU and the service's.
 */
import { join } from 'node:path'
import { mountpoint } from '../src/kernel/topics.ts'
import { GoLoadUnavailable, goLoadBinary } from './_support/go-load.ts'
import { procCpuUs } from './_support/proc-cpu.ts'
import {
  childConversation,
  mqttGoLoad,
  table,
  type GoLoadResult,
  type LoadWindow,
} from './_support/runner.ts'
import { startBenchService } from './_support/service.ts'

const DEVICES = Number(process.env.BENCH_DEVICES ?? 10_000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2))
const PROBE_DEVICES = 200
const PROBE_RATE = 1000
const PROBE_SECONDS = 8
/** Group patches, each with the probe alone just before it: the machine's noise is per pair. */
const PATCH_ROUNDS = Math.max(1, Number(process.env.BENCH_PATCH_ROUNDS ?? 3))

/** Whether the Go generator is at hand (the probe and the reported-patch runs need it); a note when not. */
function goAvailable(): boolean {
  try {
    goLoadBinary()
    return true
  } catch (err) {
    if (!(err instanceof GoLoadUnavailable)) throw err
    console.log(
      `NOTE: ${err.message}: no ingest probe and no reported-patch runs (they need bench/mqttload)\n`,
    )
    return false
  }
}
const GO = goAvailable()

const bench = await startBenchService('state')
const { svc, token, tenantID } = bench
const product = await bench.telemetryProduct(10, 'fleet')
const { group, devices } = await bench.groupOfDevices(product, DEVICES, 'st')

/** What _support/state-load.ts answers to `patch n` and to `away n`. */
interface Patched {
  answeredMs: number
  allMs: number
  received: number
  taskMs: number
  loadCpu: number
}
interface Reconnected {
  offlineTaskMs: number
  connectMs: number
  allMs: number
  received: number
  loadCpu: number
}

const load = childConversation(
  join(import.meta.dirname, '_support/state-load.ts'),
  JSON.stringify({
    mqtt: `mqtt://127.0.0.1:${svc.deps.broker.port}`,
    api: svc.url,
    token,
    groupIntID: group.id,
    devices,
  }),
)
const { connectMs } = await load.next<{ connectMs: number }>()
await new Promise((r) => setTimeout(r, 2000))

// the ingest probe: 200 other devices (Go), each publishing QoS 1 once every 200 ms (1,000 a second)
const probe = await bench.sendingDevices(PROBE_DEVICES, 10, 'probe')
const probeRun = (seconds: number, window?: LoadWindow) =>
  mqttGoLoad(
    {
      url: `mqtt://127.0.0.1:${svc.deps.broker.port}`,
      devices: probe.creds,
      inflight: 1,
      seconds,
      points: 10,
      intervalMs: (1000 * PROBE_DEVICES) / PROBE_RATE,
    },
    window,
  )
/** One round: the probe alone, then the probe again with a patch of version `n` sent at its start. */
async function patchRound(n: number) {
  if (!GO) return { patched: await load.ask<Patched>(`patch ${n}`) }
  const alone = await probeRun(PROBE_SECONDS)
  let patching: Promise<Patched> | undefined
  const during = await probeRun(PROBE_SECONDS, (mark) => {
    if (mark === 'start') patching = load.ask<Patched>(`patch ${n}`)
  })
  return { patched: await patching!, alone, during }
}
const rounds: Array<Awaited<ReturnType<typeof patchRound>>> = []
for (let n = 1; n <= PATCH_ROUNDS; n++) rounds.push(await patchRound(n))
const back = await load.ask<Reconnected>(`away ${PATCH_ROUNDS + 1}`)
await load.close()

console.log(
  `${DEVICES} devices in one group, connected by one raw-socket MQTT process in ${(connectMs / 1000).toFixed(1)} s, each subscribed to state/delta; embedded broker and store\n`,
)
const patchRows = rounds.map((r, i) => [
  `round ${i + 1}: ${DEVICES} devices connected`,
  r.patched.answeredMs,
  r.patched.allMs,
  r.patched.received,
  r.patched.taskMs,
  `${r.patched.loadCpu}%`,
  '< 10,000 ms',
])
console.log(
  table(
    [
      'desired patch to the group',
      'answer ms',
      'every device has its delta, ms',
      'received',
      'task done ms',
      'load process CPU',
      'goal',
    ],
    [
      ...patchRows,
      [
        `${DEVICES} devices reconnecting at once (patched while away; task ${back.offlineTaskMs} ms)`,
        '-',
        back.allMs,
        back.received,
        `connects ${back.connectMs}`,
        `${back.loadCpu}%`,
        '< 30,000 ms',
      ],
    ],
  ),
)
console.log('')
const ratios: number[] = []
const probeRows = rounds.flatMap((r, i) => {
  if (!r.alone || !r.during) return []
  const ratio = r.during.p99 / Math.max(0.1, r.alone.p99)
  ratios.push(ratio)
  return [
    [
      `round ${i + 1}: alone`,
      r.alone.acked,
      r.alone.rate,
      r.alone.p50,
      r.alone.p99,
      '',
      `${r.alone.cpu}%`,
    ],
    [
      `round ${i + 1}: during the group patch (${PROBE_SECONDS} s from the request)`,
      r.during.acked,
      r.during.rate,
      r.during.p50,
      r.during.p99,
      `${ratio.toFixed(2)}x`,
      `${r.during.cpu}%`,
    ],
  ]
})
if (probeRows.length) {
  console.log(
    `ingest probe: ${PROBE_DEVICES} other devices (Go), QoS 1, each publishing once every ${(1000 * PROBE_DEVICES) / PROBE_RATE} ms (${PROBE_RATE}/s)\n`,
  )
  console.log(
    table(
      [
        'probe run',
        'acked',
        'messages/s',
        'p50 ms',
        'p99 ms',
        'p99 against alone',
        'generator CPU',
      ],
      probeRows,
    ),
  )
  const sorted = [...ratios].sort((x, y) => x - y)
  console.log(
    `\nprobe p99 during a group patch against alone, round by round: ${ratios.map((x) => `${x.toFixed(2)}x`).join(' / ')} (median ${sorted[Math.floor((sorted.length - 1) / 2)]!.toFixed(2)}x; goal <= 2x)\n`,
  )
}

// 3. reported patches against plain uplinks of the same payload
const senders = await bench.sendingDevices(1000, 10, 'rep')
const creds = (topic: string) =>
  senders.devices.map((d) => ({
    clientId: d.deviceID,
    username: d.username,
    password: d.token,
    topic: `${mountpoint({ cloudProtocol: 1, tenantID, productID: senders.product.productID, deviceID: d.deviceID })}${topic}`,
  }))

/** One Go run on `topic`, with the service's CPU over its measured window. */
async function run(topic: string) {
  let c0 = 0
  let us = 0
  const g: GoLoadResult = await mqttGoLoad(
    {
      url: `mqtt://127.0.0.1:${svc.deps.broker.port}`,
      devices: creds(topic),
      inflight: 1,
      seconds: SECONDS,
      points: 10,
    },
    (mark) => {
      if (mark === 'start') c0 = procCpuUs(process.pid)
      else us = procCpuUs(process.pid) - c0
    },
  )
  return {
    g,
    serviceUsPerMsg: g.acked ? us / g.acked : 0,
    serviceCpu: Math.round(us / 10_000 / g.seconds),
  }
}

if (GO) {
  const rows: Array<Array<string | number>> = []
  const ratios: number[] = []
  for (let round = 1; round <= ROUNDS; round++) {
    const plain = await run('telemetry')
    const reports = await run('state/reported')
    const ratio = reports.g.rate / Math.max(1, plain.g.rate)
    ratios.push(ratio)
    for (const [name, x] of [
      [`round ${round}: plain uplinks (telemetry)`, plain],
      [`round ${round}: reported patches (state/reported)`, reports],
    ] as const)
      rows.push([
        name,
        x.g.rate,
        x.g.p50,
        x.g.p99,
        x.g.errors,
        `${x.serviceCpu}%`,
        x.serviceUsPerMsg.toFixed(1),
        `${x.g.cpu}%`,
        x.g.cpuUsPerMsg,
      ])
    rows.push([
      `round ${round}: reported / plain`,
      `${Math.round(100 * ratio)}%`,
      '',
      '',
      '',
      '',
      '',
      '',
      '',
    ])
  }
  console.log(
    `1000 devices, QoS 1, 1 message in flight each, ${SECONDS} s a run, payload {"p0":…,"p9":…} (8 value sets a device, so every report changes its document)\n`,
  )
  console.log(
    table(
      [
        'run',
        'messages/s',
        'PUBACK p50 ms',
        'p99 ms',
        'errors',
        'service CPU',
        'service µs/msg',
        'Go generator CPU',
        'generator µs/msg',
      ],
      rows,
    ),
  )
  const sorted = [...ratios].sort((a, b) => a - b)
  console.log(
    `\nreported patches against plain uplinks, round by round: ${ratios.map((x) => `${Math.round(100 * x)}%`).join(' / ')} (median ${Math.round(100 * sorted[Math.floor((sorted.length - 1) / 2)]!)}%; goal >= 50%)`,
  )
}

await bench.close()
process.exit(0)
