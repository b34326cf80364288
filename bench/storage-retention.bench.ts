/**
 * Ingest while retention deletes (issue 21), `npm run bench -- storage`: the real service on the embedded store,
 * 1,000 MQTT devices sending QoS 1 messages of 10 values (raw-socket generator, 1 in flight each), once alone and
 * once while the store deletes 30 days of old values (BENCH_RETENTION_DEVICES devices x 10 data points x 30 days,
 * one value a minute: 288,000 hour chunks, loaded before with explicit times 31 to 61 days ago, flushed, compacted
 * and rolled up; what a deletion costs is its chunks, not its values): the telemetry
 * part of the retention job (`deleteBefore`, RETENTION_RAW_DAYS=30), started as the measured window starts, and
 * once more alone. The deletion is far shorter than the window (BENCH_SECONDS): its length is printed beside the
 * ratio, and the PUBACK p99 shows whether a lock hold stalled ingest.
 */
import type { TelemetryPoint } from '../store/telemetry.ts'
import type { WorkerTelemetryStore } from '../store/tsdb/worker/proxy.ts'
import { mqttRawLoad, table, type MqttLoadResult } from './_support/runner.ts'
import { startBenchService } from './_support/service.ts'

const DEVICES = Number(process.env.BENCH_DEVICES ?? 1000)
const OLD_DEVICES = Number(process.env.BENCH_RETENTION_DEVICES ?? 40)
/** Seconds between the old values: the deletion's cost is per hour chunk, so many series of sparse values. */
const OLD_STEP_S = Number(process.env.BENCH_RETENTION_STEP_S ?? 60)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const POINTS = 10
const DAY = 86_400_000

const { svc, tenantID, sendingDevices, close } = await startBenchService('retention')
const { product, devices, creds } = await sendingDevices(DEVICES, POINTS)
const url = `mqtt://127.0.0.1:${svc.deps.broker.port}`
const store = svc.deps.telemetry as WorkerTelemetryStore

// 30 days of old values of the first OLD_DEVICES devices, 31 to 61 days ago
const now = Date.now()
const from = Math.floor((now - 61 * DAY) / 1000) * 1000
const l0 = performance.now()
let loaded = 0
for (let d = 0; d < OLD_DEVICES; d++)
  for (let s = 0; s < 30 * 86_400; s += 100 * OLD_STEP_S * 100) {
    const pts: TelemetryPoint[] = []
    for (let k = s; k < Math.min(30 * 86_400, s + 100 * OLD_STEP_S * 100); k += OLD_STEP_S)
      for (let p = 0; p < POINTS; p++)
        pts.push({
          tenantID,
          productID: product.productID,
          deviceID: devices[d]!.deviceID,
          dataPointID: `p${p}`,
          time: from + k * 1000,
          value: Math.round(Math.sin(k / 600 + p) * 2000) / 100,
        })
    await store.write(pts)
    loaded += pts.length
  }
await store.flush()
await store.compact(true)
const loadS = (performance.now() - l0) / 1000

const svcCpu = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}

/** One load run; `during` starts with the measured window and its end is awaited before the window may end. */
async function run(seconds: number, during?: () => Promise<unknown>) {
  let c0 = 0
  let c1 = 0
  let job: Promise<unknown> | undefined
  const r: MqttLoadResult = await mqttRawLoad(
    { url, devices: creds, inflight: 1, seconds, points: POINTS },
    (mark) => {
      if (mark === 'start') {
        c0 = svcCpu()
        job = during?.()
      } else c1 = svcCpu()
    },
  )
  await job
  return { ...r, targetCpu: Math.round((c1 - c0) / 10_000 / r.seconds) }
}

// alone before and after (the second run meets a larger file and the first run's compaction): the ratio is to
// their mean, so the order of the runs does not count as the deletion's cost
const alone = await run(SECONDS)
let deleted = 0
let deleteMs = 0
const cutoff = now - 30 * DAY
const withRetention = await run(SECONDS, async () => {
  const t0 = performance.now()
  deleted = await store.deleteBefore([], cutoff)
  deleteMs = performance.now() - t0
})
const aloneAfter = await run(SECONDS)
const aloneRate = (alone.rate + aloneAfter.rate) / 2
const left = await store.count({
  tenantID,
  deviceID: devices[0]!.deviceID,
  dataPointIDs: ['p0'],
  start: from,
  end: cutoff,
})
await close()

const row = (label: string, r: typeof alone) => [
  label,
  Math.round(r.rate).toLocaleString('en-US'),
  r.p50.toFixed(1),
  r.p99.toFixed(1),
  `${r.targetCpu}%`,
  `${r.cpu}%`,
]
console.log(
  `\n${loaded.toLocaleString('en-US')} old values (${OLD_DEVICES} devices x ${POINTS} points x 30 days, one every ${OLD_STEP_S} s) loaded, compacted and rolled up in ${loadS.toFixed(1)} s; ${DEVICES} devices sending\n`,
)
console.log(
  table(
    ['run', 'msg/s', 'PUBACK p50 ms', 'p99 ms', 'service CPU', 'load CPU'],
    [
      row('ingest alone', alone),
      row('ingest while retention deletes', withRetention),
      row('ingest alone, again', aloneAfter),
    ],
  ),
)
console.log(
  `\nretention deleted ${deleted.toLocaleString('en-US')} values in ${(deleteMs / 1000).toFixed(1)} s (window ${withRetention.seconds.toFixed(1)} s); left before the cutoff: ${left}; ingest in that window: ${Math.round((withRetention.rate / aloneRate) * 100)}% of the mean alone (goal at least 90%)\n`,
)
