/**
 * Firmware benchmark, embedded broker and store, load generators in their own processes on the same 2 cores:
 * 1. pace: a rollout to 10,000 connected devices (raw-socket clients of _support/ota-load.ts, each answering its
 *    notification `updated` at once) at 1,000 a minute, watched for BENCH_OTA_MINUTES (default 3) whole minutes:
 *    notifications received a minute against the rate (goal: within 1%) and the busiest second against the
 *    per-second share (goal: at most 2x);
 * 2. downloads: 100 devices downloading a 16 MiB package at once over HTTP (_support/download-load.ts, each download
 *    started again until the run's seconds pass) against a bare fs.createReadStream server (_support/bare-files.ts)
 *    serving the same file in the same run (goal: >= 70%), while an ingest probe (200 other devices, Go, QoS 1,
 *    1,000 messages/s) runs: its PUBACK p99 during the downloads against the probe alone just before (goal: <= 2x).
 */
import { randomBytes } from 'node:crypto'
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { GoLoadUnavailable, goLoadBinary } from './_support/go-load.ts'
import { procCpuUs } from './_support/proc-cpu.ts'
import {
  childConversation,
  childJson,
  commandJson,
  mqttGoLoad,
  table,
  type GoLoadResult,
} from './_support/runner.ts'
import { startBenchService } from './_support/service.ts'

const DEVICES = Number(process.env.BENCH_DEVICES ?? 10_000)
const RATE = Number(process.env.BENCH_OTA_RATE ?? 1000)
const MINUTES = Math.max(1, Number(process.env.BENCH_OTA_MINUTES ?? 3))
const DOWNLOADERS = 100
const PACKAGE_MIB = 16
const DOWNLOAD_SECONDS = Number(process.env.BENCH_DOWNLOAD_SECONDS ?? 6)
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
const PROBE_DEVICES = 200
const PROBE_RATE = 1000

function goAvailable(): boolean {
  try {
    goLoadBinary()
    return true
  } catch (err) {
    if (!(err instanceof GoLoadUnavailable)) throw err
    console.log(`NOTE: ${err.message}: no ingest probe during the downloads\n`)
    return false
  }
}
const GO = goAvailable()

const bench = await startBenchService('firmware')
const { svc, token } = bench
const product = await bench.telemetryProduct(10, 'fleet')
const { devices } = await bench.groupOfDevices(product, DEVICES, 'ota')

/** Uploads `bytes` as a package of the product; its record. */
async function upload(version: string, bytes: Uint8Array) {
  const form = new FormData()
  form.append('productID', product.productID)
  form.append('version', version)
  form.append('file', new Blob([bytes]), 'fw.bin')
  const r = await fetch(`${svc.url}/api/v1/firmware`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  })
  if (r.status !== 201) throw new Error(`upload: ${r.status} ${await r.text()}`)
  return (await r.json()) as { id: number; firmwareID: string }
}

// 1. the pace of a rollout to every device, at RATE a minute
const small = await upload('2.0.0', randomBytes(4096))
const load = childConversation(
  join(import.meta.dirname, '_support/ota-load.ts'),
  JSON.stringify({ mqtt: `mqtt://127.0.0.1:${svc.deps.broker.port}`, devices }),
)
const { connectMs } = await load.next<{ connectMs: number }>()
await new Promise((r) => setTimeout(r, 2000))
const cpu0 = procCpuUs(process.pid)
const made = await bench.api<{ id: number }>('POST', '/api/v1/firmware_rollouts', {
  firmwareID: small.firmwareID,
  productWide: true,
  ratePerMinute: RATE,
})
const started = Date.now()
await new Promise((r) => setTimeout(r, MINUTES * 60_000 + 3000))
const { times, cpuMs } = await load.ask<{ times: number[]; cpuMs: number }>('times')
const serviceCpu = Math.round(
  (procCpuUs(process.pid) - cpu0) / 10_000 / ((Date.now() - started) / 1000),
)
await bench.api('POST', `/api/v1/firmware_rollouts/${made.id}/cancel`)
await load.close()

const first = times[0] ?? started
const share = RATE / 60
const minuteRows: Array<Array<string | number>> = []
for (let m = 0; m < MINUTES; m++) {
  const n = times.filter((t) => t >= first + m * 60_000 && t < first + (m + 1) * 60_000).length
  const off = (100 * (n - RATE)) / RATE
  minuteRows.push([
    `minute ${m + 1}`,
    n,
    RATE,
    `${off >= 0 ? '+' : ''}${off.toFixed(2)}%`,
    'within 1%',
  ])
}
const perSecond = new Map<number, number>()
for (const t of times) {
  const s = Math.floor((t - first) / 1000)
  if (s < MINUTES * 60) perSecond.set(s, (perSecond.get(s) ?? 0) + 1)
}
const busiest = Math.max(...perSecond.values())
console.log(
  `${DEVICES} devices connected by one raw-socket MQTT process in ${(connectMs / 1000).toFixed(1)} s, each subscribed to ota/notify and answering updated at once; a product-wide rollout at ${RATE}/minute, watched ${MINUTES} minutes from its first notification (first after ${first - started} ms)\n`,
)
console.log(
  table(
    ['window', 'notifications received', 'target', 'off by', 'goal'],
    [
      ...minuteRows,
      [
        'busiest second',
        busiest,
        `${share.toFixed(1)} (the per-second share)`,
        `${(busiest / share).toFixed(2)}x`,
        '<= 2x',
      ],
    ],
  ),
)
console.log(
  `\nservice CPU ${serviceCpu}% of a core over the rollout; load process CPU ${Math.round(cpuMs / 10 / ((Date.now() - started) / 1000))}% (its ${times.length} answers included)\n`,
)

// 2. downloads of a 16 MiB package, against a bare file server
const dir = mkdtempSync(join(tmpdir(), 'devicecloud-firmware-bench-'))
const file = join(dir, 'fw.bin')
const bytes = randomBytes(PACKAGE_MIB * 2 ** 20)
writeFileSync(file, bytes)
const big = await upload('3.0.0', bytes)
const auths = devices
  .slice(0, DOWNLOADERS)
  .map((d) => `Basic ${Buffer.from(`${d.username}:${d.password}`).toString('base64')}`)
const bare = childConversation(join(import.meta.dirname, '_support/bare-files.ts'), file)
const { url: bareUrl } = await bare.next<{ url: string }>()

interface Downloaded {
  downloads: number
  bytes: number
  ms: number
  mbps: number
  errors: number
  cpuMs: number
}
/**
 * One download run: by the Go generator (bench/mqttload, download.go) when it is at hand, a third of the Node
 * downloader's CPU for the same bytes, else by _support/download-load.ts.
 */
function downloadRun(url: string, withAuth: boolean) {
  const download = {
    url,
    concurrent: DOWNLOADERS,
    seconds: DOWNLOAD_SECONDS,
    ...(withAuth ? { auths } : {}),
  }
  if (GO)
    return commandJson<Downloaded>(goLoadBinary(), [JSON.stringify({ download })], {
      name: 'mqttload download',
      timeoutMs: (DOWNLOAD_SECONDS + 120) * 1000,
    })
  return childJson<Downloaded>(
    join(import.meta.dirname, '_support/download-load.ts'),
    JSON.stringify(download),
  )
}
const probe = GO ? await bench.sendingDevices(PROBE_DEVICES, 10, 'probe') : undefined
const probeRun = (seconds: number, window?: Parameters<typeof mqttGoLoad>[1]) =>
  mqttGoLoad(
    {
      url: `mqtt://127.0.0.1:${svc.deps.broker.port}`,
      devices: probe!.creds,
      inflight: 1,
      seconds,
      points: 10,
      intervalMs: (1000 * PROBE_DEVICES) / PROBE_RATE,
    },
    window,
  )

/** The service's event loop and garbage collector while `run` runs: loop delay p99 and max, GC pauses. */
async function watched<T>(run: () => Promise<T>) {
  const delay = monitorEventLoopDelay({ resolution: 5 })
  let gcMs = 0
  let gcMax = 0
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gcMs += e.duration
      gcMax = Math.max(gcMax, e.duration)
    }
  })
  gc.observe({ entryTypes: ['gc'] })
  delay.enable()
  try {
    return {
      result: await run(),
      loopP99: delay.percentile(99) / 1e6,
      loopMax: delay.max / 1e6,
      gcMs,
      gcMax,
    }
  } finally {
    delay.disable()
    gc.disconnect()
  }
}

const rows: Array<Array<string | number>> = []
const loopRows: Array<Array<string | number>> = []
const ratios: number[] = []
const p99s: number[] = []
const percent = (x: number) => `${Math.round(100 * x)}%`
// the probe's first messages create its devices' series and their first chunks: sent once before the rounds
if (GO && process.env.BENCH_PROBE_WARMUP !== '0') await probeRun(3)
for (let round = 1; round <= ROUNDS; round++) {
  const b0 = (await bare.ask<{ cpuMs: number }>('cpu')).cpuMs
  const ceiling = await downloadRun(bareUrl, false)
  const bareCpu = ((await bare.ask<{ cpuMs: number }>('cpu')).cpuMs - b0) / ceiling.ms
  const alone: GoLoadResult | undefined = GO ? await probeRun(DOWNLOAD_SECONDS) : undefined
  let downloading: Promise<Downloaded> | undefined
  const s0 = procCpuUs(process.pid)
  const serviceUrl = `${svc.url}/api/v1/ingest/firmware/${big.firmwareID}`
  const w = await watched(async () => {
    const during: GoLoadResult | undefined = GO
      ? await probeRun(DOWNLOAD_SECONDS, (mark) => {
          if (mark === 'start') downloading = downloadRun(serviceUrl, true)
        })
      : undefined
    return { during, got: await (downloading ?? downloadRun(serviceUrl, true)) }
  })
  const { during, got } = w.result
  loopRows.push([
    `round ${round}`,
    w.loopP99.toFixed(1),
    w.loopMax.toFixed(1),
    Math.round(w.gcMs),
    w.gcMax.toFixed(1),
  ])
  const svcCpu = (procCpuUs(process.pid) - s0) / 1000 / got.ms
  const ratio = got.mbps / Math.max(1, ceiling.mbps)
  ratios.push(ratio)
  rows.push([
    `round ${round}: bare fs.createReadStream server`,
    ceiling.mbps,
    ceiling.downloads,
    ceiling.errors,
    percent(bareCpu),
    percent(ceiling.cpuMs / ceiling.ms),
    '',
  ])
  rows.push([
    `round ${round}: the service (device credentials, ETag, Range)`,
    got.mbps,
    got.downloads,
    got.errors,
    percent(svcCpu),
    percent(got.cpuMs / got.ms),
    percent(ratio),
  ])
  if (alone && during) {
    const p99 = during.p99 / Math.max(0.1, alone.p99)
    p99s.push(p99)
    rows.push([
      `round ${round}: ingest probe p99 alone ${alone.p99} ms, during the downloads ${during.p99} ms`,
      '',
      '',
      during.errors,
      '',
      `${during.cpu}% (Go)`,
      `${p99.toFixed(2)}x`,
    ])
  }
}
await bare.close()
rmSync(dir, { recursive: true, force: true })

console.log(
  `${DOWNLOADERS} devices downloading a ${PACKAGE_MIB} MiB package at once over HTTP (each download started again for ${DOWNLOAD_SECONDS} s), one ${GO ? 'Go' : 'Node'} downloader process${GO ? `; ingest probe: ${PROBE_DEVICES} other devices (Go), QoS 1, ${PROBE_RATE}/s` : ''}\n`,
)
console.log(
  table(
    [
      'run',
      'MiB/s',
      'downloads',
      'errors',
      'server CPU',
      'downloader CPU',
      'against the bare server',
    ],
    rows,
  ),
)
console.log(
  `\nthe service's event loop while devices download: what the probe's PUBACKs wait behind\n\n${table(
    ['downloads', 'loop delay p99 ms', 'loop delay max ms', 'GC pauses ms in all', 'longest GC ms'],
    loopRows,
  )}`,
)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!
console.log(
  `\ndownload throughput against the bare server, round by round: ${ratios.map(percent).join(' / ')} (median ${percent(median(ratios))}; goal >= 70%)`,
)
if (p99s.length)
  console.log(
    `ingest probe p99 during the downloads against alone: ${p99s.map((x) => `${x.toFixed(2)}x`).join(' / ')} (median ${median(p99s).toFixed(2)}x; goal <= 2x)`,
  )

await bench.close()
process.exit(0)
