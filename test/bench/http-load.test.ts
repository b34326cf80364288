/**
 * The API bench's HTTP load generator (bench/_support/load.ts) against real servers: what it counts is what was
 * answered (every answered request within its window, non-200s as errors), answers split across reads and bodies of
 * any size are framed by their Content-Length, `Connection: close` moves it to a new connection, a chunked answer
 * stops it, and against the service two tenants' callers get their own answers (a foreign device is an error).
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { commandJson, load } from '../../bench/_support/runner.ts'
import { startTestService } from '../_support/service.ts'
import { mqttBody, newDevice, newProduct } from '../src/routes/devices-helpers.ts'

const test = suite('bench: the raw-socket HTTP load generator')

/** A server counting the requests it answered and the connections it accepted; `answer` writes each answer. */
async function server(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const seen = { requests: 0, connections: 0, paths: new Map<string, number>() }
  const s = http.createServer((req, res) => {
    seen.requests++
    seen.paths.set(req.url!, (seen.paths.get(req.url!) ?? 0) + 1)
    answer(req, res)
  })
  s.on('connection', () => seen.connections++)
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`
  return { url, seen, close: () => new Promise((r) => s.close(r)) }
}

test('two paths, one answering 404 :: requests counted, the 404s as errors, big bodies framed', async () => {
  const big = 'x'.repeat(200_000)
  const srv = await server((req, res) => {
    if (req.url === '/missing') {
      res.statusCode = 404
      res.end('no')
    } else res.end(big)
  })
  const r = await load({
    url: srv.url,
    paths: ['/big', '/missing'],
    connections: 4,
    seconds: 1,
    warmup: 0.2,
  })
  await srv.close()
  assert.ok(r.requests > 20, `${r.requests} requests`)
  // the paths alternate: half the recorded answers were 404s (within one a connection)
  assert.ok(Math.abs(r.errors - r.requests / 2) <= 4, `${r.errors} errors of ${r.requests}`)
  // the server answered at least what was recorded (the warm-up's too), and both paths
  assert.ok(srv.seen.requests >= r.requests)
  assert.ok((srv.seen.paths.get('/big') ?? 0) > 0 && (srv.seen.paths.get('/missing') ?? 0) > 0)
  assert.is(srv.seen.connections, 4)
  assert.ok(r.p50 <= r.p99 && r.p99 <= r.max && r.mean > 0, JSON.stringify(r))
})

test('Connection: close :: each answer counted, the next request on a new connection', async () => {
  const srv = await server((_req, res) => {
    res.setHeader('connection', 'close')
    res.end('bye')
  })
  const r = await load({ url: srv.url, paths: ['/'], connections: 2, seconds: 0.5, warmup: 0 })
  await srv.close()
  assert.is(r.errors, 0)
  assert.ok(r.requests > 4, `${r.requests} requests`)
  assert.ok(srv.seen.connections >= r.requests, `${srv.seen.connections} connections`)
})

test('a chunked answer :: the run stops with an error, not a wrong count', async () => {
  const srv = await server((_req, res) => {
    res.write('a')
    res.end('b')
  })
  const failed = await load({ url: srv.url, paths: ['/'], connections: 1, seconds: 0.5, warmup: 0 })
    .then(() => 'finished')
    .catch((e: Error) => e.message)
  await srv.close()
  assert.match(failed, /load\.ts failed/)
})

test('the service, two tenants :: each caller its own list; a foreign device answers 404, counted', async () => {
  const t = await startTestService()
  try {
    const other = await t.newTenant()
    const product = await newProduct(t.admin)
    const mine = await newDevice(t.admin, mqttBody(product.productID))
    const own = await load({
      url: t.url,
      paths: ['/api/v1/devices?_page=1&_limit=10', `/api/v1/devices/${mine.id}`],
      connections: 2,
      seconds: 0.5,
      warmup: 0,
      headers: { authorization: t.admin.authorization! },
    })
    assert.ok(own.requests > 4, `${own.requests} requests`)
    assert.is(own.errors, 0)
    const foreign = await load({
      url: t.url,
      paths: [`/api/v1/devices/${mine.id}`],
      connections: 2,
      seconds: 0.5,
      warmup: 0,
      headers: { authorization: other.authorization! },
    })
    assert.ok(foreign.requests > 4, `${foreign.requests} requests`)
    assert.is(foreign.errors, foreign.requests)
  } finally {
    await t.close()
  }
})

test('a load child that hangs :: killed at its timeout and named, the run not held', async () => {
  const t0 = Date.now()
  const failed = await commandJson('sleep', ['30'], { name: 'stuck', timeoutMs: 300 })
    .then(() => 'finished')
    .catch((e: Error) => e.message)
  assert.match(failed, /stuck did not finish within 0.3 s/)
  assert.ok(Date.now() - t0 < 10_000, `${Date.now() - t0} ms`)
})

test.run()
