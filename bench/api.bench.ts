/**
 * API benchmark: list and detail of devices with 10,000 devices stored, requests/s and p99 at 10 and
 * 100 concurrent connections, against a bare hono route answering the same JSON in the same run (the ceiling);
 * then the same routes with metrics and access logs on against a service with both off (their cost).
 */
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Hono, type MiddlewareHandler } from 'hono'
import { serve } from '@hono/node-server'
import type { AddressInfo } from 'node:net'
import { loadConfig } from '../src/kernel/config.ts'
import { startService } from '../src/service.ts'
import { createApp } from '../src/app.ts'
import { observeRequests } from '../src/http/observe.ts'
import { createLogger } from '../src/kernel/log.ts'
import { createMetrics } from '../src/kernel/metrics.ts'
import { randomId } from '../src/kernel/secrets.ts'
import { openSql } from '../test/_support/service.ts'
import { load, table } from './_support/runner.ts'

const DEVICES = 10_000
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)

/**
 * A service over its own temp directory with 10,000 devices, and the list and detail paths to load. `on`: metrics
 * kept and one access log line per request (LOG_LEVEL=info, JSON lines written to /dev/null); `off`: METRICS=false
 * and LOG_LEVEL=error (no access lines).
 */
async function prepare(observability: 'on' | 'off') {
  const dir = mkdtempSync(join(tmpdir(), 'devicecloud-bench-'))
  const sink = createWriteStream('/dev/null')
  const svc = await startService(
    loadConfig({
      DATA_DIR: dir,
      PORT: '0',
      HOST: '127.0.0.1',
      MQTT_PORT: '0',
      MQTT_WS_PORT: '0',
      ADMIN_EMAIL: 'b@b.io',
      ADMIN_PASSWORD: 'bench-password',
      ...(observability === 'on'
        ? { LOG_LEVEL: 'info', METRICS: 'true' }
        : { LOG_LEVEL: 'error', METRICS: 'false' }),
    }),
    { logDestination: { write: (line) => void sink.write(line) } },
  )
  const json = async (path: string, init: RequestInit = {}) =>
    (await fetch(svc.url + path, init)).json() as Promise<any>
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
  for (let start = 0; start < DEVICES; start += 500) {
    const rows = Array.from({ length: Math.min(500, DEVICES - start) }, (_, i) => start + i)
    await db.run(
      `INSERT INTO devices (tenant_id, kind, product_int_id, device_id, device_name, device_username, token, auth_type,
         device_type, up_link_system, manufacturer, user_int_id, create_at)
       VALUES ${rows.map(() => "(?, 'device', ?, ?, ?, ?, ?, 1, 1, 1, 'ACME', 1, ?)").join(', ')}`,
      rows.flatMap((i) => [
        tenantID,
        product.id,
        `bench-${i}`,
        `device ${i}`,
        randomId(36),
        randomId(36),
        Date.now() - (DEVICES - i) * 1000,
      ]),
    )
  }
  const ids = (
    await db.all("SELECT id FROM devices WHERE kind = 'device' ORDER BY random() LIMIT 1000")
  ).map((r) => Number(r.id))
  db.close()
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
const on = await prepare('on')
const off = await prepare('off')
const { svc, ids, headers, detailPaths } = on
const listBody = await (await fetch(svc.url + listPath, { headers })).text()
const detailBody = await (await fetch(svc.url + detailPaths[0]!, { headers })).text()
if (!listBody.includes('"items"') || !detailBody.includes('"deviceID"'))
  throw new Error(`unexpected answers: ${listBody.slice(0, 200)}`)

// the ceiling: a bare hono route answering the same JSON
const bare = new Hono()
bare.get('/list', (c) => c.body(listBody, 200, { 'content-type': 'application/json' }))
bare.get('/detail/:id', (c) => c.body(detailBody, 200, { 'content-type': 'application/json' }))
const bareServer = serve({ fetch: bare.fetch, port: 0, hostname: '127.0.0.1' })
await new Promise((r) => bareServer.once('listening', r))
const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}`

const rows: Array<Array<string | number>> = []
for (const connections of [10, 100]) {
  for (const [name, ours, ceiling] of [
    ['list', { url: svc.url, paths: [listPath] }, { url: bareUrl, paths: ['/list'] }],
    [
      'detail',
      { url: svc.url, paths: detailPaths },
      { url: bareUrl, paths: ids.map((id) => `/detail/${id}`) },
    ],
  ] as const) {
    const c = await load({ ...ceiling, connections, seconds: SECONDS })
    const o = await load({
      ...ours,
      connections,
      seconds: SECONDS,
      headers: { authorization: headers.authorization },
    })
    rows.push([
      name,
      connections,
      o.rps,
      o.p50,
      o.p99,
      o.errors,
      c.rps,
      c.p99,
      `${Math.round((o.rps / c.rps) * 100)}%`,
    ])
  }
}
console.log(
  `${DEVICES} devices stored; list = ${listPath}; detail = 1,000 random ids; ${SECONDS} s per run after 1 s warm-up\n`,
)
console.log(
  table(
    ['route', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'bare req/s', 'bare p99 ms', 'ratio'],
    rows,
  ),
)

// the cost of metrics and access logs: the same routes on a service with both off. Throughput on a shared machine
// drifts, so the cost is measured as the service's CPU time per request (this process's CPU; the load generator is
// another process), with runs alternated (off, on, off, on) and the cheaper run of each kept
const costs: Array<Array<string | number>> = []
for (const target of [on, off])
  await load({ url: target.svc.url, paths: target.detailPaths, connections: 10, seconds: 1 })
for (const connections of [10, 100]) {
  for (const name of ['list', 'detail'] as const) {
    const best = {
      on: { us: Infinity, rps: 0, p99: 0 },
      off: { us: Infinity, rps: 0, p99: 0 },
    }
    for (const mode of ['off', 'on', 'off', 'on'] as const) {
      const target = mode === 'on' ? on : off
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
      const us = (used.user + used.system) / r.requests
      if (us < best[mode].us) best[mode] = { us, rps: r.rps, p99: r.p99 }
    }
    const cost = ((best.on.us - best.off.us) / best.off.us) * 100
    costs.push([
      name,
      connections,
      best.off.us.toFixed(0),
      best.on.us.toFixed(0),
      `${cost.toFixed(1)}%`,
      best.off.rps,
      best.on.rps,
      best.off.p99,
      best.on.p99,
    ])
  }
}
console.log(
  '\nmetrics + access logs (on: METRICS=true, LOG_LEVEL=info, lines to /dev/null) against both off (METRICS=false, LOG_LEVEL=error)\n',
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
const apps = { on: createApp(on.svc.deps).app, off: createApp(off.svc.deps).app }
const inProcess: Array<Array<string | number>> = []
for (const [name, n] of [
  ['list', 1_000],
  ['detail', 5_000],
] as const) {
  const best = { on: Infinity, off: Infinity }
  for (const mode of ['off', 'on', 'off', 'on', 'off', 'on'] as const) {
    const target = mode === 'on' ? on : off
    const init = { headers: { authorization: target.headers.authorization } }
    const cpu = process.cpuUsage()
    for (let i = 0; i < n; i++) {
      const path = name === 'list' ? listPath : target.detailPaths[i % target.detailPaths.length]!
      const r = await apps[mode].request(path, init)
      if (r.status !== 200) throw new Error(`${name} (${mode}): ${r.status}`)
      await r.arrayBuffer()
    }
    const used = process.cpuUsage(cpu)
    best[mode] = Math.min(best[mode], (used.user + used.system) / n)
  }
  const cost = ((best.on - best.off) / best.off) * 100
  inProcess.push([
    name,
    n,
    best.off.toFixed(0),
    best.on.toFixed(0),
    `${(best.on - best.off).toFixed(1)}`,
    `${cost.toFixed(1)}%`,
  ])
}
console.log('\nin-process (app.request, no sockets), the cheapest of 3 alternated runs each\n')
console.log(
  table(['route', 'requests', 'off CPU µs/req', 'on CPU µs/req', 'added µs', 'cost'], inProcess),
)

// the middleware alone: one tiny hono app with it (metrics on, access lines to /dev/null) and one without,
// alternated; the difference is what each request pays
const mwSink = createWriteStream('/dev/null')
const mwLogger = createLogger({
  level: 'info',
  destination: { write: (l) => void mwSink.write(l) },
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
await on.close()
await off.close()
mwSink.end()
process.exit(0)
