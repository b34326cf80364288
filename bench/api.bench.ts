/**
 * API benchmark: list and detail of devices with 10,000 devices stored, requests/s and p99 at 10 and
 * 100 concurrent connections, against a bare hono route answering the same JSON in the same run (the ceiling);
 * then the same routes with metrics and access logs on against a service with both off (their cost).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Hono, type MiddlewareHandler } from 'hono'
import { serve } from '@hono/node-server'
import type { AddressInfo } from 'node:net'
import { loadConfig } from '../src/kernel/config.ts'
import { startService } from '../src/service.ts'
import { createApp } from '../src/app.ts'
import { observeRequests } from '../src/http/observe.ts'
import { createLogger, fileDestination } from '../src/kernel/log.ts'
import { createMetrics } from '../src/kernel/metrics.ts'
import { openSql } from '../test/_support/service.ts'
import type { ApiRecord } from './_support/service.ts'
import { insertDevices } from './_support/devices.ts'
import { load, table, type LoadResult } from './_support/runner.ts'
import { recordCollections } from './_support/collections.ts'

/** Devices stored (BENCH_DEVICES, default 10,000); above 10,000 the cost of metrics and access logs (six services,
 * prepared after the rounds) is not measured. */
const DEVICES = Number(process.env.BENCH_DEVICES ?? 10_000)
const LARGE = DEVICES > 10_000
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)

/**
 * A service over its own temp directory with 10,000 devices, and the list and detail paths to load. `on`: metrics
 * kept and one access log line per request (LOG_LEVEL=info, JSON lines written to /dev/null
 * through the buffered asynchronous destination stdout uses); `off`: METRICS=false
 * and LOG_LEVEL=error (no access lines).
 */
async function prepare(observability: 'on' | 'off') {
  const dir = mkdtempSync(join(tmpdir(), 'devicecloud-bench-'))
  const sink = fileDestination('/dev/null')
  const svc = await startService(
    loadConfig({
      DATA_DIR: dir,
      PORT: '0',
      HOST: '127.0.0.1',
      MQTT_PORT: '0',
      MQTT_WS_PORT: '0',
      ADMIN_EMAIL: 'b@b.io',
      ADMIN_PASSWORD: 'bench-password',
      // BENCH_DB_READERS: reader threads of the metadata database (the service's DB_READERS, default 1)
      ...(process.env.BENCH_DB_READERS ? { DB_READERS: process.env.BENCH_DB_READERS } : {}),
      ...(observability === 'on'
        ? { LOG_LEVEL: 'info', METRICS: 'true' }
        : { LOG_LEVEL: 'error', METRICS: 'false' }),
    }),
    { logDestination: sink },
  )
  const json = async (path: string, init: RequestInit = {}) =>
    (await fetch(svc.url + path, init)).json() as Promise<ApiRecord>
  const { token, tenantID } = await json('/api/v1/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'b@b.io', password: 'bench-password' }),
  })
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  const product = await json('/api/v1/products', {
    method: 'POST',
    headers,
    body: JSON.stringify({ productName: 'bench', cloudProtocol: 1 }),
  })

  // 10,000 devices in multi-row inserts
  const db = await openSql(svc)
  await insertDevices(db, tenantID, product.id, DEVICES)

  const ids = (
    await db.all("SELECT id FROM devices WHERE kind = 'device' ORDER BY random() LIMIT 1000")
  ).map((r) => Number(r.id))
  void db.close()
  const detailPaths = ids.map((id) => `/api/v1/devices/${id}`)
  return {
    svc,
    ids,
    headers,
    detailPaths,
    async close() {
      await svc.close()
      sink.end()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

const listPath = '/api/v1/devices?_page=3&_limit=10'
/** A deep page: the last tenth of the devices, 10 a page (OFFSET walks the index up to it). */
const deepPath = `/api/v1/devices?_page=${Math.floor((DEVICES * 0.9) / 10)}&_limit=10`
/**
 * The service the rounds measure: the only one in this process while they run, as `npm start` runs one (six
 * services of 10,000 devices in the process through the rounds, as before 2026-11-28, gave its main thread their
 * heap to mark as well). The pairs of the cost tables are prepared after the rounds.
 */
const on = await prepare('on')
const { svc, ids, headers, detailPaths } = on
/** One GET's body, tried twice: the insert above held this process's event loop, so a pooled keep-alive socket and
 * the server's idle timer expire together and the first request may meet a reset. */
const body = async (path: string): Promise<string> => {
  try {
    return await (await fetch(svc.url + path, { headers })).text()
  } catch {
    return (await fetch(svc.url + path, { headers })).text()
  }
}
const listBody = await body(listPath)
/** The same depth through a cursor: the deep OFFSET page's `meta.next` (keyset paging, an index range). */
const deepNext = (JSON.parse(await body(deepPath)) as { meta: { next: string } }).meta.next
const keysetPath = `/api/v1/devices?_limit=10&_after=${deepNext}`
const detailBody = await body(detailPaths[0]!)
if (!listBody.includes('"items"') || !detailBody.includes('"deviceID"'))
  throw new Error(`unexpected answers: ${listBody.slice(0, 200)}`)

// the ceiling: a bare hono route answering the same JSON
const bare = new Hono()
bare.get('/list', (c) => c.body(listBody, 200, { 'content-type': 'application/json' }))
bare.get('/detail/:id', (c) => c.body(detailBody, 200, { 'content-type': 'application/json' }))
const bareServer = serve({ fetch: bare.fetch, port: 0, hostname: '127.0.0.1' })
await new Promise((r) => bareServer.once('listening', r))
const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}`

const profiler = new Session()
if (process.env.BENCH_PROFILE) {
  profiler.connect()
  await profiler.post('Profiler.enable')
}
/**
 * Rounds of the table (BENCH_ROUNDS, default 3): the bare route's own rate moves between runs of the same minute
 * (12,000-30,000 req/s on this machine), so one pair of runs is a poor ratio. Each round runs the ceiling and the
 * route next to each other, the order alternating; a row shows the round with the median ratio (the lower
 * of two middle ones), and every round's ratio.
 */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
const routes = [
  ['list', { url: svc.url, paths: [listPath] }, { url: bareUrl, paths: ['/list'] }],
  ['list, deep page', { url: svc.url, paths: [deepPath] }, { url: bareUrl, paths: ['/list'] }],
  [
    'list, deep page (keyset)',
    { url: svc.url, paths: [keysetPath] },
    { url: bareUrl, paths: ['/list'] },
  ],
  [
    'detail',
    { url: svc.url, paths: detailPaths },
    { url: bareUrl, paths: ids.map((id) => `/detail/${id}`) },
  ],
] as const
/**
 * A warm-up pass over every route and its ceiling before the rounds (BENCH_WARMUP_SECONDS each, default 3), not
 * recorded: the first round after preparing the services (six of 10,000 devices then) was the lowest of its run for
 * the list in all five runs of 2026-11-27 (10-14% of the bare route, the later rounds 14-20%), as if the collector
 * were still clearing what the preparation left.
 */
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 3)
if (WARMUP > 0)
  for (const [, ours, ceiling] of routes)
    for (const target of [ours, ceiling])
      await load({
        ...target,
        connections: 10,
        seconds: WARMUP,
        warmup: 0,
        headers: { authorization: headers.authorization },
      })
/**
 * The collections of this process's main thread (the service's): a round's full ones and its longest pause say
 * whether a round's tail was the collector's. The service's worker threads collect on their own and are not seen.
 */
const collections = recordCollections()
const collectionsIn = (t0: number, t1: number) => {
  const xs = collections.between(t0, t1)
  return `${xs.filter((g) => g.full).length}, ${Math.max(0, ...xs.map((g) => g.ms)).toFixed(0)}`
}
type Pair = { o: LoadResult; c: LoadResult; serviceCpu: number; gc: string }
const measured = new Map<string, Pair[]>()
for (let round = 0; round < ROUNDS; round++) {
  for (const connections of [10, 100]) {
    for (const [name, ours, ceiling] of routes) {
      const runCeiling = () => load({ ...ceiling, connections, seconds: SECONDS })
      const first = round % 2 === 1 ? await runCeiling() : undefined
      const cpu0 = process.cpuUsage()
      const t0 = performance.now()
      // BENCH_PROFILE=<file>: a CPU profile of the service's main thread over the first round's detail run at 10
      // connections (BENCH_PROFILE_ROUTE=list, or another route's name, profiles that one instead)
      const profiled =
        process.env.BENCH_PROFILE &&
        round === 0 &&
        connections === 10 &&
        name === (process.env.BENCH_PROFILE_ROUTE ?? 'detail')
      if (profiled) await profiler.post('Profiler.start')
      const o = await load({
        ...ours,
        connections,
        seconds: SECONDS,
        headers: { authorization: headers.authorization },
      })
      if (profiled)
        writeFileSync(
          process.env.BENCH_PROFILE!,
          JSON.stringify((await profiler.post('Profiler.stop')).profile),
        )
      // the service runs in this process (all its threads); its CPU over the run, warm-up included, % of one core
      const used = process.cpuUsage(cpu0)
      const t1 = performance.now()
      const serviceCpu = Math.round((used.user + used.system) / 10 / (t1 - t0))
      const c = first ?? (await runCeiling())
      const key = `${name}\u0000${connections}`
      measured.set(key, [
        ...(measured.get(key) ?? []),
        { o, c, serviceCpu, gc: collectionsIn(t0, t1) },
      ])
    }
  }
}
const ratioOf = (x: Pair) => x.o.rps / x.c.rps
const pct = (r: number) => `${Math.round(r * 100)}%`
const rows: Array<Array<string | number>> = []
for (const connections of [10, 100]) {
  for (const [name] of routes) {
    const pairsRun = measured.get(`${name}\u0000${connections}`)!
    const { o, c, serviceCpu } = [...pairsRun].sort((a, b) => ratioOf(a) - ratioOf(b))[
      Math.floor((pairsRun.length - 1) / 2)
    ]!
    rows.push([
      name,
      connections,
      o.rps,
      o.p50,
      o.p99,
      (o.p99 / o.mean).toFixed(1),
      o.errors,
      c.rps,
      c.p99,
      (c.p99 / c.mean).toFixed(1),
      pct(o.rps / c.rps),
      pairsRun.map((x) => pct(ratioOf(x))).join(' / '),
      pairsRun.map((x) => (x.o.p99 / x.o.mean).toFixed(1)).join(' / '),
      pairsRun.map((x) => x.gc).join(' / '),
      `${serviceCpu}%`,
      `${o.cpu}%`,
    ])
  }
}
console.log(
  `${DEVICES} devices stored; list = ${listPath}, deep page = ${deepPath}; detail = 1,000 random ids; ${SECONDS} s per run after 1 s warm-up (and ${WARMUP} s a route before the rounds); ${ROUNDS} rounds, the median round's figures\n`,
)
console.log(
  table(
    [
      'route',
      'conns',
      'req/s',
      'p50 ms',
      'p99 ms',
      'p99/mean',
      'errors',
      'bare req/s',
      'bare p99 ms',
      'bare p99/mean',
      'ratio',
      'ratio each round',
      'p99/mean each round',
      'full GCs, longest GC ms each round',
      'service CPU',
      'load CPU',
    ],
    rows,
  ),
)

if (LARGE) {
  bareServer.close()
  await on.close()
  process.exit(0)
}

/**
 * Services differ from each other by more than observability costs (one file's layout, where its memory landed: up
 * to ±15% per request in the same process), so the cost is measured over several pairs of services and averaged;
 * the rounds' service is the first pair's `on`.
 */
const PAIRS = 3
const pairs: Array<{
  on: Awaited<ReturnType<typeof prepare>>
  off: Awaited<ReturnType<typeof prepare>>
}> = [{ on, off: await prepare('off') }]
for (let k = 1; k < PAIRS; k++) pairs.push({ on: await prepare('on'), off: await prepare('off') })

// the cost of metrics and access logs: the same routes on services with both off. Throughput on a shared machine
// drifts, so the cost is measured as the service's CPU time per request (this process's CPU; the load generator is
// another process), each pair's runs alternated (off, on), averaged over the pairs
const costs: Array<Array<string | number>> = []
for (const pair of pairs)
  for (const target of [pair.on, pair.off])
    await load({ url: target.svc.url, paths: target.detailPaths, connections: 10, seconds: 1 })
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
for (const connections of [10, 100]) {
  for (const name of ['list', 'detail'] as const) {
    const runs: Record<'on' | 'off', Array<{ us: number; rps: number; p99: number }>> = {
      on: [],
      off: [],
    }
    for (const pair of pairs)
      for (const mode of ['off', 'on'] as const) {
        const target = pair[mode]
        const cpu = process.cpuUsage()
        const r = await load({
          url: target.svc.url,
          paths: name === 'list' ? [listPath] : target.detailPaths,
          connections,
          seconds: SECONDS,
          warmup: 0,
          headers: { authorization: target.headers.authorization },
        })
        const used = process.cpuUsage(cpu)
        if (r.errors) throw new Error(`${r.errors} errors on ${name} (${mode})`)
        runs[mode].push({ us: (used.user + used.system) / r.requests, rps: r.rps, p99: r.p99 })
      }
    const avg = (mode: 'on' | 'off', k: 'us' | 'rps' | 'p99') => mean(runs[mode].map((x) => x[k]))
    const cost = ((avg('on', 'us') - avg('off', 'us')) / avg('off', 'us')) * 100
    costs.push([
      name,
      connections,
      avg('off', 'us').toFixed(0),
      avg('on', 'us').toFixed(0),
      `${cost.toFixed(1)}%`,
      Math.round(avg('off', 'rps')),
      Math.round(avg('on', 'rps')),
      avg('off', 'p99').toFixed(2),
      avg('on', 'p99').toFixed(2),
    ])
  }
}
console.log(
  `\nmetrics + access logs (on: METRICS=true, LOG_LEVEL=info, lines to /dev/null) against both off (METRICS=false, LOG_LEVEL=error), mean of ${PAIRS} pairs of services\n`,
)
console.log(
  table(
    [
      'route',
      'conns',
      'off CPU µs/req',
      'on CPU µs/req',
      'cost',
      'off req/s',
      'on req/s',
      'off p99 ms',
      'on p99 ms',
    ],
    costs,
  ),
)

// the same comparison in this process without sockets (app.request): steadier on a busy machine, and an upper
// bound of the share (the HTTP parsing and socket work it leaves out is the same with and without)
const inProcess: Array<Array<string | number>> = []
for (const [name, n] of [
  ['list', 1_000],
  ['detail', 5_000],
] as const) {
  const per = { on: [] as number[], off: [] as number[] }
  for (const pair of pairs)
    for (const mode of ['off', 'on'] as const) {
      const target = pair[mode]
      const app = createApp(target.svc.deps).app
      const init = { headers: { authorization: target.headers.authorization } }
      let best = Infinity
      for (let round = 0; round < 3; round++) {
        const cpu = process.cpuUsage()
        for (let i = 0; i < n; i++) {
          const path =
            name === 'list' ? listPath : target.detailPaths[i % target.detailPaths.length]!
          const r = await app.request(path, init)
          if (r.status !== 200) throw new Error(`${name} (${mode}): ${r.status}`)
          await r.arrayBuffer()
        }
        const used = process.cpuUsage(cpu)
        best = Math.min(best, (used.user + used.system) / n)
      }
      per[mode].push(best)
    }
  const offUs = mean(per.off)
  const onUs = mean(per.on)
  inProcess.push([
    name,
    n,
    offUs.toFixed(0),
    onUs.toFixed(0),
    `${(onUs - offUs).toFixed(1)}`,
    `${(((onUs - offUs) / offUs) * 100).toFixed(1)}%`,
    per.off.map((x) => x.toFixed(0)).join(' / '),
    per.on.map((x) => x.toFixed(0)).join(' / '),
  ])
}
console.log(
  `\nin-process (app.request, no sockets): each service's cheapest of 3 runs, mean of ${PAIRS} pairs of services\n`,
)
console.log(
  table(
    [
      'route',
      'requests',
      'off CPU µs/req',
      'on CPU µs/req',
      'added µs',
      'cost',
      'off each',
      'on each',
    ],
    inProcess,
  ),
)

// the middleware alone: one tiny hono app with it (metrics on, access lines to /dev/null) and one without,
// alternated; the difference is what each request pays
const mwSink = fileDestination('/dev/null')
const mwLogger = createLogger({
  level: 'info',
  destination: mwSink,
})
const tiny = (observed: boolean) => {
  const a = new Hono()
  if (observed) a.use('*', observeRequests(createMetrics(), mwLogger) as MiddlewareHandler)
  return a.get('/api/v1/devices/:id', (c) => c.text('{}'))
}
const tinyApps = { with: tiny(true), without: tiny(false) }
const MW_REQUESTS = 50_000
const mwBest = { with: Infinity, without: Infinity }
for (const mode of ['without', 'with', 'without', 'with', 'without', 'with'] as const) {
  const cpu = process.cpuUsage()
  for (let i = 0; i < MW_REQUESTS; i++)
    await (await tinyApps[mode].request(`/api/v1/devices/${i}`)).arrayBuffer()
  const used = process.cpuUsage(cpu)
  mwBest[mode] = Math.min(mwBest[mode], (used.user + used.system) / MW_REQUESTS)
}
console.log(
  `\nthe request id + metrics + access-line middleware alone: ${(mwBest.with - mwBest.without).toFixed(1)} µs of CPU per request (${mwBest.without.toFixed(1)} µs without it, ${mwBest.with.toFixed(1)} µs with it, on a route answering '{}')`,
)
bareServer.close()
for (const pair of pairs) await Promise.all([pair.on.close(), pair.off.close()])
mwSink.end()
process.exit(0)
