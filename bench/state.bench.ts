/**
 * Device state benchmark, embedded broker and store, load generators in their own processes on the same 2 cores:
 * 1. a desired patch to a group of 10,000 connected devices (raw-socket clients of _support/state-load.ts, each
 *    subscribed to its state/delta): time until every device has its delta, while a probe of 200 of them publishes
 *    QoS 1 uplinks at 1,000/s: their PUBACK p99 during the patch against the same probe alone just before;
 * 2. the 10,000 devices away while the group is patched again, then all reconnecting at once: time until every one
 *    has its pending delta;
 * 3. reported patches against plain uplinks of the same payload (10 values, the Go generator bench/mqttload, 1,000
 *    devices, 1 message in flight each): messages/s of each, their ratio, the generator's CPU and the service's.
 */
import { join } from 'node:path'
import { mountpoint } from '../src/kernel/topics.ts'
import { GoLoadUnavailable } from './_support/go-load.ts'
import { procCpuUs } from './_support/proc-cpu.ts'
import { childJson, mqttGoLoad, table, type GoLoadResult } from './_support/runner.ts'
import { startBenchService } from './_support/service.ts'

const DEVICES = Number(process.env.BENCH_DEVICES ?? 10_000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2))

const bench = await startBenchService('state')
const { svc, token, tenantID } = bench
const product = await bench.telemetryProduct(10, 'fleet')
const { group, devices } = await bench.groupOfDevices(product, DEVICES, 'st')

/** What _support/state-load.ts prints. */
interface StateLoad {
  connectMs: number
  probe: {
    rate: number
    devices: number
    baseline: { sent: number; acked: number; p50: number; p99: number }
    during: { sent: number; acked: number; p50: number; p99: number }
  }
  patch: { answeredMs: number; allMs: number; received: number; taskMs: number; loadCpu: number }
  reconnect: {
    offlineTaskMs: number
    connectMs: number
    allMs: number
    received: number
    loadCpu: number
  }
}

const cpu0 = process.cpuUsage()
const t0 = performance.now()
const r = await childJson<StateLoad>(
  join(import.meta.dirname, '_support/state-load.ts'),
  JSON.stringify({
    mqtt: `mqtt://127.0.0.1:${svc.deps.broker.port}`,
    api: svc.url,
    token,
    groupIntID: group.id,
    devices,
    probe: {
      devices: 200,
      rate: 1000,
      topic: 'telemetry',
      payload: JSON.stringify(
        Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, 21.5 + i])),
      ),
    },
    probeSeconds: 5,
  }),
)
const serviceCpu = process.cpuUsage(cpu0)
const wholeMs = performance.now() - t0

console.log(
  `${DEVICES} devices in one group, connected by one raw-socket MQTT process in ${(r.connectMs / 1000).toFixed(1)} s, each subscribed to state/delta; embedded broker and store\n`,
)
console.log(
  table(
    [
      'desired patch to the group',
      'answer ms',
      'every device has its delta, ms',
      'received',
      'task done ms',
      'goal',
    ],
    [
      [
        `${DEVICES} devices connected`,
        r.patch.answeredMs,
        r.patch.allMs,
        r.patch.received,
        r.patch.taskMs,
        '< 10,000 ms',
      ],
      [
        `${DEVICES} devices reconnecting at once (patched while away; task ${r.reconnect.offlineTaskMs} ms)`,
        '-',
        r.reconnect.allMs,
        r.reconnect.received,
        `connects ${r.reconnect.connectMs}`,
        '< 30,000 ms',
      ],
    ],
  ),
)
console.log('')
const { baseline, during } = r.probe
console.log(
  table(
    [
      'ingest probe (QoS 1 PUBACK)',
      'sent',
      'acked',
      'p50 ms',
      'p99 ms',
      'p99 against alone',
      'goal',
    ],
    [
      [
        `${r.probe.devices} devices, ${r.probe.rate}/s, alone`,
        baseline.sent,
        baseline.acked,
        baseline.p50,
        baseline.p99,
        '',
        '',
      ],
      [
        'the same during the group patch',
        during.sent,
        during.acked,
        during.p50,
        during.p99,
        `${(during.p99 / Math.max(0.1, baseline.p99)).toFixed(2)}x`,
        '<= 2x',
      ],
    ],
  ),
)
console.log(
  `\nload process CPU (of one core): ${r.patch.loadCpu}% during the patch, ${r.reconnect.loadCpu}% during the reconnect; ` +
    `bench process (the service) over the whole load: ${Math.round((100 * (serviceCpu.user + serviceCpu.system)) / 1000 / wholeMs)}%\n`,
)

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

try {
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
    `\nreported patches against plain uplinks, round by round: ${ratios.map((x) => `${Math.round(100 * x)}%`).join(' / ')} (median ${Math.round(100 * sorted[Math.floor(sorted.length / 2)]!)}%; goal >= 50%)`,
  )
} catch (err) {
  if (!(err instanceof GoLoadUnavailable)) throw err
  console.log(`NOTE: ${err.message}: the reported-patch runs need Go (bench/mqttload)`)
}

await bench.close()
process.exit(0)
