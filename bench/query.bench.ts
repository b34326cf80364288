/**
 * Telemetry query benchmark, `npm run bench -- query`: one device, 10 data points, 7 days at 1 Hz
 * (6,048,000 values) stored, on the embedded store and (when one is built or INFLUX_URL is set) on InfluxDB.
 * The service runs in this process with its real HTTP server; requests go over loopback one at a time:
 * - original_data, one data point, one day (86,400 values), whole and with maxPoints=1000;
 * - metrics_data of an aggregate metric (mean) over one day (1 h windows) and seven days (6 h windows);
 * - original_data format=csv of one data point over seven days (604,800 values): values/s;
 * - original_data format=ndjson of all ten points over seven days (6,048,000 rows): rows/s and peak RSS.
 * The ceiling of each read is the store's own call (readRaw / aggregate) in the same run.
 * BENCH_QUERY_RUNS (default 20) requests per figure after 3 warm-ups.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../src/kernel/config.ts'
import { startService, type Service } from '../src/service.ts'
import type { TelemetryPoint } from '../store/telemetry.ts'
import { INFLUX_MISSING, influxForTests } from '../test/_support/influx.ts'
import { table } from './_support/runner.ts'
import { openSql } from '../test/_support/service.ts'
import type { ApiRecord } from './_support/service.ts'

const RUNS = Number(process.env.BENCH_QUERY_RUNS ?? 20)
const DAYS = 7
const POINTS = 10
const DAY = 86_400_000
/** Monday 2026-01-05 00:00 UTC: the seven stored days. */
const BASE = Date.UTC(2026, 0, 5)
const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
const ms = (n: number) => n.toFixed(1)

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!
}

async function timed(
  runs: number,
  fn: () => Promise<unknown>,
): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 3; i++) await fn()
  const lat: number[] = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    await fn()
    lat.push(performance.now() - t0)
  }
  return { p50: pct(lat, 50), p99: pct(lat, 99) }
}

interface Figures {
  store: string
  load: { seconds: number; rate: number }
  rows: Array<{
    name: string
    api: { p50: number; p99: number }
    store?: { p50: number; p99: number }
    values: number
  }>
  csv: { seconds: number; values: number; rate: number; bytes: number }
  all: { rows: number; seconds: number; mib: number; rssBefore: number; rssPeak: number }
}

async function run(name: string, env: Record<string, string>): Promise<Figures> {
  const dir = mkdtempSync(join(tmpdir(), 'devicecloud-bench-query-'))
  const config = loadConfig({
    DATA_DIR: dir,
    PORT: '0',
    HOST: '127.0.0.1',
    MQTT_PORT: '0',
    MQTT_WS_PORT: '0',
    LOG_LEVEL: 'error',
    ADMIN_PASSWORD: 'bench-password-1',
    ...env,
  })
  const svc: Service = await startService(config)
  try {
    const login = await fetch(`${svc.url}/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: config.ADMIN_EMAIL, password: 'bench-password-1' }),
    })
    const auth = { authorization: `Bearer ${((await login.json()) as { token: string }).token}` }
    const api = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`${svc.url}/api/v1${path}`, {
        method,
        headers: { ...auth, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      const text = await r.text()
      if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 300)}`)
      return { text, json: () => JSON.parse(text) as ApiRecord }
    }
    const product = (
      await api('POST', '/products', { productName: 'bench', cloudProtocol: 1 })
    ).json()
    const points = []
    for (let i = 0; i < POINTS; i++)
      points.push(
        (
          await api('POST', '/data_points', {
            dataPointName: `p${i}`,
            dataPointID: `p${i}`,
            productIntID: product.id,
            pointDataType: 1,
            dataTransType: 1,
          })
        ).json(),
      )
    const device = (
      await api('POST', '/devices', {
        productID: product.productID,
        deviceName: 'bench',
        deviceType: 1,
        upLinkSystem: 1,
        cloudProtocol: 1,
        authType: 1,
      })
    ).json()
    const metric = (
      await api('POST', '/metrics', {
        metricName: 'mean p0',
        dataPointIntID: points[0]!.id,
        metricType: 2,
        aggregateType: 3,
      })
    ).json()
    const sql = await openSql(svc)
    const tenantID = String(
      (await sql.one('SELECT tenant_id FROM devices WHERE id = ?', [device.id]))!.tenant_id,
    )
    void sql.close()

    // 7 days x 10 points at 1 Hz, written through the store in 100,000-value calls (4 in flight)
    const t0 = performance.now()
    const seconds = (DAYS * DAY) / 1000
    const STEP = 10_000
    const inFlight: Promise<void>[] = []
    for (let s = 0; s < seconds; s += STEP) {
      const batch: TelemetryPoint[] = []
      for (let k = s; k < Math.min(s + STEP, seconds); k++)
        for (let p = 0; p < POINTS; p++)
          batch.push({
            tenantID,
            productID: product.productID,
            deviceID: device.deviceID,
            dataPointID: `p${p}`,
            time: BASE + k * 1000,
            value: Math.sin(k / 600 + p) * 50 + (k % 97),
          })
      inFlight.push(svc.deps.telemetry.write(batch))
      if (inFlight.length >= 4) await inFlight.shift()
    }
    await Promise.all(inFlight)
    const store = svc.deps.telemetry as {
      flush?: () => Promise<void>
      compact?: (all: boolean) => Promise<number>
      rollUp?: () => Promise<number>
    }
    await store.flush?.()
    await store.compact?.(true)
    const loadSec = (performance.now() - t0) / 1000
    // the queries read settled data: the embedded store compacted and rolled up, InfluxDB's hours rolled up
    await store.rollUp?.()
    await store.rollUp?.()
    const values = seconds * POINTS

    const day = (d: number) =>
      `startTime=${BASE / 1000 + d * 86_400}&endTime=${BASE / 1000 + (d + 1) * 86_400 - 1}`
    const week = `startTime=${BASE / 1000}&endTime=${BASE / 1000 + DAYS * 86_400 - 1}`
    const dev = `deviceID=${encodeURIComponent(device.deviceID)}`
    const range = (days: number) => ({
      tenantID,
      deviceID: device.deviceID,
      dataPointIDs: ['p0'],
      start: BASE + 2 * DAY,
      end: BASE + (2 + days) * DAY,
    })
    const check = (text: string, n: number) => {
      const body = JSON.parse(text) as Array<{
        id?: number
        originalData?: { value: unknown[] }
        metricData?: { value: unknown[] }
      }>
      const got =
        body[0]!.originalData?.value.length ??
        body.find((m) => m.id === metric.id)!.metricData!.value.length
      if (got !== n) throw new Error(`expected ${n} values, got ${got}`)
    }
    const rows: Figures['rows'] = []
    let r = await timed(RUNS, async () =>
      check((await api('GET', `/original_data?${dev}&dataPointID=p0&${day(2)}`)).text, 86_400),
    )
    rows.push({
      name: 'original_data, 1 point, 1 day (86,400 values)',
      api: r,
      store: await timed(RUNS, () => svc.deps.telemetry.readRaw(range(1))),
      values: 86_400,
    })
    r = await timed(RUNS, async () =>
      check(
        (await api('GET', `/original_data?${dev}&dataPointID=p0&${day(2)}&maxPoints=1000`)).text,
        960, // 3-minute buckets aligned to the tiers (a day / 500 is 172.8 s), two points each
      ),
    )
    rows.push({ name: 'original_data, 1 day, maxPoints=1000', api: r, values: 960 })
    r = await timed(RUNS, async () =>
      check((await api('GET', `/metrics_data?${dev}&metricType=2&${day(2)}`)).text, 24),
    )
    rows.push({
      name: 'metrics_data mean, 1 day (24 x 1 h)',
      api: r,
      store: await timed(RUNS, () =>
        svc.deps.telemetry.aggregate(range(1), 'mean', { every: '1h', tz: config.TIMEZONE }),
      ),
      values: 24,
    })
    r = await timed(RUNS, async () =>
      check((await api('GET', `/metrics_data?${dev}&metricType=2&${week}`)).text, 28),
    )
    rows.push({
      name: 'metrics_data mean, 7 days (28 x 6 h)',
      api: r,
      store: await timed(RUNS, () =>
        svc.deps.telemetry.aggregate(
          { ...range(DAYS), start: BASE, end: BASE + DAYS * DAY },
          'mean',
          { every: '6h', tz: config.TIMEZONE },
        ),
      ),
      values: 28,
    })

    // CSV export: one data point over 7 days, read as it streams
    const c0 = performance.now()
    const res = await fetch(
      `${svc.url}/api/v1/original_data?${dev}&dataPointID=p0&${week}&format=csv`,
      { headers: auth },
    )
    let bytes = 0
    let lines = 0
    for await (const chunk of res.body! as AsyncIterable<Uint8Array>) {
      bytes += chunk.length
      for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++
    }
    const csvSec = (performance.now() - c0) / 1000
    if (lines !== DAYS * 86_400 + 1) throw new Error(`CSV: ${lines} lines`)

    // the whole week of all 10 points as NDJSON (6,048,000 rows): memory must stay flat while it streams
    global.gc?.()
    const rssBefore = process.memoryUsage.rss()
    let rssPeak = rssBefore
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 50)
    const a0 = performance.now()
    const all = await fetch(`${svc.url}/api/v1/original_data?${dev}&${week}&format=ndjson`, {
      headers: auth,
    })
    let allRows = 0
    let allBytes = 0
    for await (const chunk of all.body! as AsyncIterable<Uint8Array>) {
      allBytes += chunk.length
      for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) allRows++
    }
    clearInterval(sampler)
    const allSec = (performance.now() - a0) / 1000
    if (allRows !== values) throw new Error(`NDJSON: ${allRows} rows`)
    return {
      store: name,
      load: { seconds: loadSec, rate: values / loadSec },
      rows,
      csv: { seconds: csvSec, values: lines - 1, rate: (lines - 1) / csvSec, bytes },
      all: {
        rows: allRows,
        seconds: allSec,
        mib: allBytes / 2 ** 20,
        rssBefore: rssBefore / 2 ** 20,
        rssPeak: rssPeak / 2 ** 20,
      },
    }
  } finally {
    await svc.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

const results: Figures[] = [await run('embedded', {})]
const influx = await influxForTests()
if (influx) {
  try {
    results.push(
      await run('influxdb', {
        INFLUX_URL: influx.url,
        INFLUX_TOKEN: influx.token,
        INFLUX_ORG: influx.org,
        INFLUX_BUCKET: influx.bucket,
      }),
    )
  } finally {
    await influx.stop()
  }
} else console.log(`InfluxDB half skipped: ${INFLUX_MISSING}`)

const embedded = results[0]!
for (const f of results) {
  console.log(
    `\n### ${f.store} store: ${fmt(DAYS * 86_400 * POINTS)} values loaded in ${f.load.seconds.toFixed(1)} s (${fmt(f.load.rate)} values/s)\n`,
  )
  console.log(
    table(
      [
        'query',
        'API p50 ms',
        'API p99 ms',
        'store call p50 ms',
        'store / API p50',
        ...(f === embedded ? [] : ['p50 vs embedded']),
      ],
      f.rows.map((row, i) => [
        row.name,
        ms(row.api.p50),
        ms(row.api.p99),
        row.store ? ms(row.store.p50) : '-',
        row.store ? `${((row.store.p50 / row.api.p50) * 100).toFixed(0)}%` : '-',
        ...(f === embedded ? [] : [`${(row.api.p50 / embedded.rows[i]!.api.p50).toFixed(1)}x`]),
      ]),
    ),
  )
  console.log(
    `\nCSV export, 1 point x 7 days: ${fmt(f.csv.values)} values in ${f.csv.seconds.toFixed(2)} s = ${fmt(f.csv.rate)} values/s (${(f.csv.bytes / 2 ** 20).toFixed(1)} MiB)`,
  )
  console.log(
    `NDJSON export, 10 points x 7 days: ${fmt(f.all.rows)} rows (${f.all.mib.toFixed(0)} MiB) in ${f.all.seconds.toFixed(1)} s = ${fmt(f.all.rows / f.all.seconds)} rows/s; RSS ${f.all.rssBefore.toFixed(0)} MiB before, peak ${f.all.rssPeak.toFixed(0)} MiB while streaming`,
  )
}
const e = embedded.rows
console.log('\nGoals (embedded store):')
console.log(
  `- 1 day raw < 150 ms: p50 ${ms(e[0]!.api.p50)} ms ${e[0]!.api.p50 < 150 ? 'MET' : 'NOT MET'}`,
)
console.log(
  `- maxPoints=1000 < 50 ms: p50 ${ms(e[1]!.api.p50)} ms ${e[1]!.api.p50 < 50 ? 'MET' : 'NOT MET'}`,
)
console.log(
  `- aggregate 1 day < 30 ms: p50 ${ms(e[2]!.api.p50)} ms ${e[2]!.api.p50 < 30 ? 'MET' : 'NOT MET'}`,
)
console.log(
  `- CSV >= 500,000 values/s: ${fmt(embedded.csv.rate)} ${embedded.csv.rate >= 500_000 ? 'MET' : 'NOT MET'}`,
)
