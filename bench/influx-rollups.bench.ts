/**
 * InfluxDB rollups (issue 21), `npm run bench -- influx`: one data point at 1 Hz for BENCH_INFLUX_ROLLUP_DAYS days
 * (30) written through the store with rollups (marks and values), rolled up (rollUp(): every hour of it), then the
 * queries charts ask, each through the store with rollups and through a store without them (Flux over raw values,
 * the ceiling the rollups are to beat): day windows over the whole period, maxPoints=1000 over it, hour windows
 * over its last 7 days. 3 warm-ups, then 10 runs each. Uses INFLUX_URL when set, else starts its own influxd.
 */
import { InfluxTelemetryStore } from '../store/influx/telemetry.ts'
import type { Series, TelemetryPoint } from '../store/telemetry.ts'
import { INFLUX_MISSING, influxForTests } from '../test/_support/influx.ts'
import { table } from './_support/runner.ts'

const DAYS = Number(process.env.BENCH_INFLUX_ROLLUP_DAYS ?? 30)
const DAY = 86_400_000
const TZ = 'Europe/Berlin'

const influx = await influxForTests()
if (!influx) {
  console.log(`skipped: ${INFLUX_MISSING}`)
  process.exit(0)
}
const rolled = await InfluxTelemetryStore.open({ ...influx, timezone: TZ })
const plain = await InfluxTelemetryStore.open({ ...influx, rollupBucket: undefined })
const start = Date.UTC(2025, 0, 1)
const end = start + DAYS * DAY

const l0 = performance.now()
let level = 2000
for (let s = 0; s < DAYS * 86_400; s += 20_000) {
  const pts: TelemetryPoint[] = []
  for (let k = s; k < Math.min(DAYS * 86_400, s + 20_000); k++) {
    level += ((k * 7919) % 41) - 20 || 1
    pts.push({
      tenantID: 'bench',
      productID: 'p',
      deviceID: 'year',
      dataPointID: 'dp',
      time: start + k * 1000,
      value: level / 100,
    })
  }
  await rolled.write(pts)
}
const loadS = (performance.now() - l0) / 1000
console.log(`loaded in ${loadS.toFixed(1)} s`)
const r0 = performance.now()
const hours = await rolled.rollUp()
await rolled.rollUp() // the days the hours marked
const rollS = (performance.now() - r0) / 1000

const range = { tenantID: 'bench', deviceID: 'year', dataPointIDs: ['dp'], start, end }
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)]!

/** p50 / p99 of 10 runs after 3 warm-ups; a query InfluxDB does not answer within the store's 10 s says so. */
async function timed(run: () => Promise<Map<string, Series>>) {
  const ms: number[] = []
  let got: Series | undefined
  try {
    for (let i = 0; i < 13; i++) {
      const t0 = performance.now()
      got = (await run()).get('dp')
      if (i >= 3) ms.push(performance.now() - t0)
    }
  } catch (e) {
    return { text: `failed: ${String(e).slice(0, 60)}`, p50: NaN, points: 0, res: undefined }
  }
  const text = `${pct(ms, 0.5).toFixed(1)} / ${pct(ms, 0.99).toFixed(1)}`
  return { text, p50: pct(ms, 0.5), points: got!.time.length, res: got!.resolution }
}

const queries: Array<[string, (s: InfluxTelemetryStore) => Promise<Map<string, Series>>]> = [
  [
    `day windows over ${DAYS} days (max)`,
    (s) => s.aggregate(range, 'max', { every: '1d', tz: TZ }),
  ],
  [`maxPoints=1000 over ${DAYS} days`, (s) => s.downsample(range, 1000, TZ)],
  [
    'hour windows over the last 7 days (mean)',
    (s) => s.aggregate({ ...range, start: end - 7 * DAY }, 'mean', { every: '1h', tz: TZ }),
  ],
]
const rows: Array<Array<string | number>> = []
for (const [label, q] of queries) {
  const a = await timed(() => q(rolled))
  const b = await timed(() => q(plain))
  rows.push([
    label,
    a.text,
    `${a.points} points, ${a.res ?? 'raw'}`,
    b.text,
    `${(b.p50 / a.p50).toFixed(1)}x`,
  ])
}
await rolled.close()
await plain.close()
await influx.stop()

console.log(
  `\n1 data point x ${DAYS} days at 1 Hz in ${TZ}: ${(DAYS * 86_400).toLocaleString('en-US')} values written with marks in ${loadS.toFixed(1)} s, ${hours} hours rolled up (and their days) in ${rollS.toFixed(1)} s\n`,
)
console.log(
  table(
    ['store call', 'rollups p50 / p99 ms', 'answer', 'Flux over raw p50 / p99 ms', 'speed-up'],
    rows,
  ),
)
