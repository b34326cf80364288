/**
 * InfluxDB telemetry store benchmark: write throughput with 5,000-point batches (one call at a time and
 * 4 in parallel) against a raw gzip POST of the same line protocol to /api/v2/write (the ceiling), and readRaw
 * of 86,400 points (one data point, one day at 1 s). Uses INFLUX_URL when set, else starts its own influxd with
 * scripts/influxd.sh; skips with a message when neither is there.
 */
import { gzipSync } from 'node:zlib'
import { InfluxTelemetryStore } from '../store/influx/telemetry.ts'
import { toLines } from '../store/influx/lines.ts'
import type { TelemetryPoint } from '../store/telemetry.ts'
import { INFLUX_MISSING, influxForTests } from '../test/_support/influx.ts'
import { table } from './_support/runner.ts'

const BATCH = 5_000
const BATCHES = Number(process.env.BENCH_INFLUX_BATCHES ?? 40)
const DAY = 86_400

const influx = await influxForTests()
if (!influx) {
  console.log(`skipped: ${INFLUX_MISSING}`)
  process.exit(0)
}
const store = await InfluxTelemetryStore.open(influx)

/** Batch `n`: 500 devices x 10 data points, each batch one second later. */
function batch(tenantID: string, n: number): TelemetryPoint[] {
  const time = Date.parse('2026-01-01T00:00:00Z') + n * 1000
  return Array.from({ length: BATCH }, (_, i) => ({
    tenantID,
    productID: 'bench',
    deviceID: `dev-${Math.floor(i / 10)}`,
    dataPointID: `p${i % 10}`,
    time,
    value: ((n * 31 + i) % 1000) / 10,
  }))
}

/** Writes BATCHES batches with `parallel` calls in flight; points/s. */
async function storeRate(tenantID: string, parallel: number): Promise<number> {
  const batches = Array.from({ length: BATCHES }, (_, n) => batch(tenantID, n))
  let next = 0
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < batches.length) await store.write(batches[next++]!)
    }),
  )
  return (BATCHES * BATCH) / ((performance.now() - t0) / 1000)
}

/** The ceiling: the same lines, prebuilt and gzipped, POSTed one request at a time. */
async function rawRate(tenantID: string, parallel: number): Promise<number> {
  const bodies = Array.from({ length: BATCHES }, (_, n) =>
    gzipSync(toLines(batch(tenantID, n)).join('\n')),
  )
  const url = `${influx!.url}/api/v2/write?org=${influx!.org}&bucket=${influx!.bucket}&precision=ms`
  const headers = {
    authorization: `Token ${influx!.token}`,
    'content-encoding': 'gzip',
    'content-type': 'text/plain',
  }
  let next = 0
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < bodies.length) {
        const res = await fetch(url, { method: 'POST', headers, body: bodies[next++]! })
        if (res.status !== 204) throw new Error(`raw write: ${res.status} ${await res.text()}`)
      }
    }),
  )
  return (BATCHES * BATCH) / ((performance.now() - t0) / 1000)
}

/** readRaw of one day at 1 s of one data point; median of 5 runs in ms. */
async function readDay(): Promise<{ ms: number; points: number }> {
  const start = Date.parse('2026-02-01T00:00:00Z')
  const points = Array.from({ length: DAY }, (_, i) => ({
    tenantID: 'read',
    productID: 'bench',
    deviceID: 'day',
    dataPointID: 'temp',
    time: start + i * 1000,
    value: i / 10,
  }))
  for (let i = 0; i < DAY; i += BATCH) await store.write(points.slice(i, i + BATCH))
  const range = {
    tenantID: 'read',
    deviceID: 'day',
    dataPointIDs: ['temp'],
    start,
    end: start + DAY * 1000,
  }
  const times: number[] = []
  let got = 0
  for (let run = 0; run < 5; run++) {
    const t0 = performance.now()
    got = (await store.readRaw(range)).get('temp')!.time.length
    times.push(performance.now() - t0)
  }
  return { ms: times.sort((a, b) => a - b)[2]!, points: got }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
const rows: Array<Array<string | number>> = []
await storeRate('warmup', 1)
for (const parallel of [1, 4]) {
  const stored = await storeRate(`store-${parallel}`, parallel)
  const raw = await rawRate(`raw-${parallel}`, parallel)
  rows.push([parallel, fmt(stored), fmt(raw), `${Math.round((stored / raw) * 100)}%`])
}
console.log(
  `write: ${BATCHES} batches of ${fmt(BATCH)} points (500 devices x 10 points), float fields, gzip\n`,
)
console.log(table(['calls in flight', 'store points/s', 'raw POST points/s', 'ratio'], rows))
const read = await readDay()
console.log(
  `\nreadRaw of ${fmt(read.points)} points (1 data point, 1 day at 1 s): median ${read.ms.toFixed(0)} ms` +
    ` = ${fmt(read.points / (read.ms / 1000))} points/s`,
)
await store.close()
await influx.stop()
