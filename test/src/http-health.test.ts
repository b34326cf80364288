import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createServer } from 'node:net'
import type { Check } from '../../src/http/health.ts'
import { startTestService, type TestService } from '../_support/service.ts'
import { serviceSuite } from '../_support/suite.ts'

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

let t: TestService
const health = serviceSuite('health endpoints', (svc) => (t = svc))

health('GET /healthz :: 200 {status: ok} without credentials', async () => {
  const r = await t.anon.get('/healthz')
  assert.is(r.status, 200)
  assert.equal(r.body, { status: 'ok' })
})

health('GET /readyz :: 200 with the metadata, telemetry, broker and disk checks', async () => {
  const r = await t.anon.get<{ status: string; checks: Record<string, Check> }>('/readyz')
  assert.is(r.status, 200, r.text)
  assert.is(r.body.status, 'ok')
  assert.equal(Object.keys(r.body.checks).sort(), ['broker', 'disk', 'metadata', 'telemetry'])
  for (const check of Object.values(r.body.checks)) {
    assert.is(check.status, 'ok')
    assert.type(check.ms, 'number')
  }
  assert.is(r.headers.get('cache-control'), 'no-store')
})

health('the old GET /health still answers', async () => {
  const r = await t.anon.get('/health')
  assert.is(r.status, 200)
  assert.is(r.body.status, 'ok')
})

health(
  '/readyz :: 503 while the service is not serving, even when every check passes',
  async () => {
    t.svc.deps.lifecycle.serving = false
    try {
      const r = await t.anon.get('/readyz')
      assert.is(r.status, 503)
      assert.is(r.body.status, 'fail')
      assert.is(r.body.checks.metadata.status, 'ok')
    } finally {
      t.svc.deps.lifecycle.serving = true
    }
  },
)

health('close() :: stops serving before anything else closes', async () => {
  const other = await startTestService()
  assert.is(other.svc.deps.lifecycle.serving, true)
  const closing = other.close()
  assert.is(other.svc.deps.lifecycle.serving, false)
  await closing
})

let down: TestService
const influxDown = suite('readiness with an unreachable InfluxDB')
influxDown.before(async () => {
  down = await startTestService({
    INFLUX_URL: `http://127.0.0.1:${await closedPort()}`,
    INFLUX_TOKEN: 'token',
    INFLUX_ORG: 'org',
    INFLUX_BUCKET: 'bucket',
  })
})
influxDown.after(async () => down?.close())

influxDown('GET /readyz :: 503, the telemetry check fails, the others pass', async () => {
  const r = await down.anon.get('/readyz')
  assert.is(r.status, 503, r.text)
  assert.is(r.body.status, 'fail')
  assert.is(r.body.checks.telemetry.status, 'fail')
  assert.type(r.body.checks.telemetry.error, 'string')
  assert.is(r.body.checks.metadata.status, 'ok')
  assert.is(r.body.checks.broker.status, 'ok')
  assert.is((await down.anon.get('/healthz')).status, 200)
})

health.run()
influxDown.run()
