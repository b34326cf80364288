/**
 * API benchmark: list and detail of devices with 10,000 devices stored, requests/s and p99 at 10 and
 * 100 concurrent connections, against a bare hono route answering the same JSON in the same run (the ceiling).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Hono } from 'hono'
import { serve } from '@hono/node-server'
import type { AddressInfo } from 'node:net'
import { loadConfig } from '../src/kernel/config.ts'
import { startService } from '../src/service.ts'
import { randomId } from '../src/kernel/secrets.ts'
import { openSql } from '../test/_support/service.ts'
import { load, table } from './_support/runner.ts'

const DEVICES = 10_000
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)

const dir = mkdtempSync(join(tmpdir(), 'devicecloud-bench-'))
const svc = await startService(
  loadConfig({
    DATA_DIR: dir,
    PORT: '0',
    HOST: '127.0.0.1',
    ADMIN_EMAIL: 'b@b.io',
    ADMIN_PASSWORD: 'bench-password',
    LOG_LEVEL: 'error',
  }),
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

const listPath = '/api/v1/devices?_page=3&_limit=10'
const detailPaths = ids.map((id) => `/api/v1/devices/${id}`)
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
bareServer.close()
db.close()
await svc.close()
rmSync(dir, { recursive: true, force: true })
process.exit(0)
