import * as assert from 'uvu/assert'
import { connect } from 'node:net'
import { Client, type TestService } from '../_support/service.ts'
import { serviceSuite } from '../_support/suite.ts'
import { buildWorld, basic } from './routes/_ingest.ts'

/** What a raw TCP client reads back after writing `request`, until the server closes (or `limitMs` passes). */
function rawExchange(port: number, request: Buffer | string, limitMs = 5_000) {
  return new Promise<{ text: string; closedByServer: boolean; error?: string; ms: number }>(
    (resolve) => {
      const started = Date.now()
      const socket = connect(port, '127.0.0.1')
      const chunks: Buffer[] = []
      let error: string | undefined
      const timer = setTimeout(() => socket.destroy(), limitMs)
      let closedByServer = false
      socket.on('data', (c) => chunks.push(c))
      socket.on('end', () => (closedByServer = true))
      socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message))
      socket.on('close', () => {
        clearTimeout(timer)
        const text = Buffer.concat(chunks).toString('latin1')
        resolve({ text, closedByServer, error, ms: Date.now() - started })
      })
      socket.write(request)
    },
  )
}

let t: TestService
const big = 'x'.repeat(2 * 1024 * 1024)

const limits = serviceSuite('http: early answers close the connection', (svc) => (t = svc))

limits(
  '20 posts of 2 MB :: each sees 413 PAYLOAD_TOO_LARGE, then a normal request works',
  async () => {
    for (let i = 0; i < 20; i++) {
      const r = await t.admin.post('/api/v1/products', big, { 'content-type': 'application/json' })
      assert.is(r.status, 413, `try ${i}: ${r.text.slice(0, 200)}`)
      assert.is(r.body.errorCode, 'PAYLOAD_TOO_LARGE')
      assert.type(r.body.message, 'string')
      assert.type(r.body.errors.body, 'string')
      assert.is(r.headers.get('connection'), 'close')
      assert.is((await t.admin.get('/api/v1/products')).status, 200)
    }
  },
)

limits('raw client writing 2 MB :: reads the whole 413 answer, and the server closes', async () => {
  const head =
    `POST /api/v1/products HTTP/1.1\r\nHost: x\r\nAuthorization: ${t.admin.authorization}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${big.length}\r\n\r\n`
  for (let i = 0; i < 5; i++) {
    const r = await rawExchange(t.svc.port, Buffer.from(head + big))
    assert.match(r.text, /^HTTP\/1\.1 413 /, `try ${i}: ${r.error ?? ''} ${r.text.slice(0, 100)}`)
    assert.match(r.text, /connection: close/i)
    assert.match(r.text, /"errorCode":"PAYLOAD_TOO_LARGE"/)
    assert.ok(r.closedByServer, 'the server ends the connection')
  }
})

limits(
  'GETs carrying 2 MB bodies :: answered as GETs (the body is not read), the service unharmed',
  async () => {
    // a GET's body goes to no handler: the body limit skips GET and HEAD, and such a body is drained, not held
    const head =
      `GET /api/v1/products HTTP/1.1\r\nHost: x\r\nAuthorization: ${t.admin.authorization}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${big.length}\r\nConnection: close\r\n\r\n`
    for (let i = 0; i < 5; i++) {
      const r = await rawExchange(t.svc.port, Buffer.from(head + big))
      assert.match(r.text, /^HTTP\/1\.1 200 /, `try ${i}: ${r.error ?? ''} ${r.text.slice(0, 100)}`)
      assert.match(r.text, /"items":\[/)
    }
    // 100 such GETs, 10 at a time (200 MB of bodies): memory grows by far less than what they sent
    const request = Buffer.from(head + big)
    const rss = process.memoryUsage().rss
    for (let k = 0; k < 10; k++)
      await Promise.all(Array.from({ length: 10 }, () => rawExchange(t.svc.port, request)))
    const grown = process.memoryUsage().rss - rss
    assert.ok(grown < 100 * 2 ** 20, `200 MB of bodies are not kept (RSS grew ${grown >> 20} MB)`)
    // the same without credentials: the 401 comes first and the body is not held either
    const anonymous = Buffer.from(head.replace(/Authorization: [^\r]*\r\n/, '') + big)
    const rssAnon = process.memoryUsage().rss
    for (let k = 0; k < 5; k++) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => rawExchange(t.svc.port, anonymous)),
      )
      for (const a of answers) assert.match(a.text, /^HTTP\/1\.1 401 /, a.text.slice(0, 100))
    }
    const grownAnon = process.memoryUsage().rss - rssAnon
    assert.ok(
      grownAnon < 60 * 2 ** 20,
      `100 MB sent without credentials (RSS grew ${grownAnon >> 20} MB)`,
    )
    const r = await t.admin.post('/api/v1/products', big, { 'content-type': 'application/json' })
    assert.is(r.status, 413, 'a POST is still limited')
    assert.is((await t.admin.get('/api/v1/products')).status, 200)
  },
)

limits(
  'a 401 and a 403 before the body is read :: the answer is read whole and the server closes',
  async () => {
    const body = JSON.stringify({ productName: 'p', cloudProtocol: 1, pad: 'y'.repeat(200_000) })
    const unauth =
      `POST /api/v1/products HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\n\r\n`
    const r = await rawExchange(t.svc.port, Buffer.from(unauth + body))
    assert.match(r.text, /^HTTP\/1\.1 401 /, `${r.error ?? ''} ${r.text.slice(0, 100)}`)
    assert.match(r.text, /connection: close/i)
    assert.match(r.text, /"errorCode":"AUTH_FAILED"/)
    assert.ok(r.closedByServer, 'the server ends the connection')
    // the same request with good credentials keeps the connection: nothing was left unread
    const ok = await t.admin.post('/api/v1/products', {
      productName: 'kept-alive',
      cloudProtocol: 1,
    })
    assert.is(ok.status, 201, ok.text)
    assert.is.not(ok.headers.get('connection'), 'close')
  },
)

/** A chunked POST of `parts`, written one by one (a pause between them), as raw HTTP/1.1. */
function chunkedPost(path: string, authorization: string, parts: Buffer[]) {
  const head =
    `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${authorization}\r\n` +
    `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`
  const frames = parts.map((p) =>
    Buffer.concat([Buffer.from(`${p.length.toString(16)}\r\n`), p, Buffer.from('\r\n')]),
  )
  return new Promise<{ text: string; closedByServer: boolean }>((resolve) => {
    const socket = connect(t.svc.port, '127.0.0.1')
    const chunks: Buffer[] = []
    let closedByServer = false
    const timer = setTimeout(() => socket.destroy(), 10_000)
    socket.on('data', (c) => chunks.push(c))
    socket.on('end', () => (closedByServer = true))
    socket.on('error', () => {})
    socket.on('close', () => {
      clearTimeout(timer)
      resolve({ text: Buffer.concat(chunks).toString('utf8'), closedByServer })
    })
    socket.write(head)
    let i = 0
    const next = () => {
      if (socket.destroyed) return
      if (i < frames.length) {
        socket.write(frames[i++]!)
        setTimeout(next, 2)
      } else socket.write('0\r\n\r\n')
    }
    next()
  })
}

limits(
  'chunked bodies :: read whole across chunks (a BOM, a character split between two), and over 1 MB refused',
  async () => {
    // a leading BOM and "é" (2 bytes) cut between two chunks: decoded as one JSON text, as Request.text() does
    const json = Buffer.from(
      '\ufeff' + JSON.stringify({ productName: 'chunked-é', cloudProtocol: 1 }),
      'utf8',
    )
    const cut = json.indexOf(Buffer.from('é', 'utf8')) + 1
    const ok = await chunkedPost('/api/v1/products', t.admin.authorization!, [
      json.subarray(0, 5),
      json.subarray(5, cut),
      json.subarray(cut),
    ])
    assert.match(ok.text, /^HTTP\/1\.1 201 /, ok.text.slice(0, 300))
    assert.match(ok.text, /"productName":"chunked-é"/)
    // 1.5 MB in 64 KB chunks, no declared length: refused once it crosses the limit, the connection closed
    const part = Buffer.alloc(64 * 1024, 'x')
    const over = await chunkedPost(
      '/api/v1/products',
      t.admin.authorization!,
      Array.from({ length: 24 }, () => part),
    )
    assert.match(over.text, /^HTTP\/1\.1 413 /, over.text.slice(0, 300))
    assert.match(over.text, /"errorCode":"PAYLOAD_TOO_LARGE"/)
    assert.ok(over.closedByServer, 'the server ends the connection')
    // the same without credentials: 401, its body never read
    const anon = await chunkedPost('/api/v1/products', 'Bearer nope', [part, part])
    assert.match(anon.text, /^HTTP\/1\.1 401 /, anon.text.slice(0, 300))
    assert.is((await t.admin.get('/api/v1/products')).status, 200)
  },
)

limits('empty bodies :: 400 BAD_REQUEST, with or without a declared length', async () => {
  const head = (length: string) =>
    `POST /api/v1/products HTTP/1.1\r\nHost: x\r\nAuthorization: ${t.admin.authorization}\r\n` +
    `Content-Type: application/json\r\n${length}Connection: close\r\n\r\n`
  for (const length of ['Content-Length: 0\r\n', '']) {
    const r = await rawExchange(t.svc.port, head(length))
    assert.match(r.text, /^HTTP\/1\.1 400 /, `${length} ${r.text.slice(0, 200)}`)
    assert.match(r.text, /"errorCode":"BAD_REQUEST"/)
  }
})

limits(
  'clients that stop half-way through a body :: nothing breaks, later requests are answered',
  async () => {
    const body = JSON.stringify({ productName: 'cut', cloudProtocol: 1, pad: 'z'.repeat(100_000) })
    const head =
      `POST /api/v1/products HTTP/1.1\r\nHost: x\r\nAuthorization: ${t.admin.authorization}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`
    // 20 at once: each writes its head and a tenth of its body, then closes
    await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          new Promise<void>((resolve) => {
            const socket = connect(t.svc.port, '127.0.0.1', () => {
              socket.write(head + body.slice(0, 10_000), () =>
                setTimeout(() => socket.destroy(), 50),
              )
            })
            socket.on('error', () => {})
            socket.on('close', () => resolve())
          }),
      ),
    )
    const after = await t.admin.post('/api/v1/products', {
      productName: 'after-cut',
      cloudProtocol: 1,
    })
    assert.is(after.status, 201, after.text)
    const names = (await t.admin.get('/api/v1/products?_limit=100')).body.items.map(
      (p: { productName: string }) => p.productName,
    )
    assert.ok(names.includes('after-cut'))
    assert.not.ok(names.includes('cut'), 'no product from a cut-off body')
  },
)

limits('no CORS_ORIGINS :: no CORS headers, a preflight is not answered as CORS', async () => {
  const r = await t.admin.get('/api/v1/products', { origin: 'https://evil.example' })
  assert.is(r.headers.get('access-control-allow-origin'), null)
  const pre = await fetch(`${t.svc.url}/api/v1/products`, {
    method: 'OPTIONS',
    headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
  })
  await pre.arrayBuffer()
  assert.is(pre.headers.get('access-control-allow-origin'), null)
})

let co: TestService
const corsSuite = serviceSuite('http: CORS only for listed origins', (svc) => (co = svc), {
  CORS_ORIGINS: 'https://app.example, https://ops.example',
})

corsSuite(
  'a listed origin :: allowed, preflight answered; another origin :: not allowed',
  async () => {
    const r = await co.admin.get('/api/v1/products', { origin: 'https://ops.example' })
    assert.is(r.status, 200)
    assert.is(r.headers.get('access-control-allow-origin'), 'https://ops.example')
    const pre = await fetch(`${co.svc.url}/api/v1/devices`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'authorization, content-type',
      },
    })
    await pre.arrayBuffer()
    assert.ok(pre.status < 300, String(pre.status))
    assert.is(pre.headers.get('access-control-allow-origin'), 'https://app.example')
    assert.match(pre.headers.get('access-control-allow-methods') ?? '', /PUT/)
    const other = await co.admin.get('/api/v1/products', { origin: 'https://evil.example' })
    assert.is(other.status, 200)
    assert.is.not(other.headers.get('access-control-allow-origin'), 'https://evil.example')
  },
)

let s: TestService
const slow = serviceSuite('http: slow clients are cut off', (svc) => (s = svc), {
  HTTP_HEADERS_TIMEOUT_MS: '500',
  HTTP_REQUEST_TIMEOUT_MS: '1000',
})

slow('a partial header line and then nothing :: the server closes the socket', async () => {
  const r = await rawExchange(
    s.svc.port,
    'GET /api/v1/products HTTP/1.1\r\nHost: x\r\nX-Slow: a',
    5_000,
  )
  assert.ok(r.ms < 4_000, `closed after ${r.ms} ms`)
  assert.match(r.text, /^(HTTP\/1\.1 408 |$)/)
})

slow('a long poll and the event stream outlive the request timeout', async () => {
  const w = await buildWorld(s.admin, s)
  const dev = new Client(s.url, basic(w.device))
  const started = Date.now()
  const poll = dev.get('/api/v1/ingest/commands?wait=2')
  const abort = new AbortController()
  const stream = await fetch(`${s.url}/api/v1/events/stream`, {
    headers: { authorization: s.admin.authorization! },
    signal: abort.signal,
  })
  assert.is(stream.status, 200)
  const reader = stream.body!.getReader()
  const r = await poll
  assert.is(r.status, 200, r.text)
  assert.ok(Date.now() - started >= 1_900, 'the poll waited its 2 s')
  // the stream is still open past the 1 s request timeout: the next read is pending, not done or failed
  const next = await Promise.race([
    reader.read().then(
      (x) => (x.done ? 'ended' : 'data'),
      () => 'failed',
    ),
    new Promise((resolve) => setTimeout(() => resolve('pending'), 300)),
  ])
  assert.ok(next === 'pending' || next === 'data', String(next))
  abort.abort()
})

let h: TestService
const headers = serviceSuite('http: security headers', (svc) => (h = svc))

const base = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
}
function assertSecure(res: { headers: Headers }, csp: RegExp) {
  for (const [k, v] of Object.entries(base)) assert.is(res.headers.get(k), v, k)
  assert.match(res.headers.get('content-security-policy') ?? '', csp)
  assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/)
}

headers(
  'a JSON route, an error and a 404 :: nosniff, DENY, no-referrer and a strict CSP',
  async () => {
    assertSecure(await h.admin.get('/api/v1/products'), /^default-src 'none'/)
    const denied = await h.anon.get('/api/v1/products')
    assert.is(denied.status, 401)
    assertSecure(denied, /^default-src 'none'/)
    assertSecure(await h.anon.get('/api/v1/nothing-here'), /^default-src 'none'/)
    assertSecure(await h.anon.get('/healthz'), /^default-src 'none'/)
  },
)

headers('/docs :: the same headers, a CSP that allows its inline style sheet only', async () => {
  const r = await h.anon.get('/docs')
  assert.is(r.status, 200)
  assertSecure(r, /default-src 'none'; style-src 'unsafe-inline'/)
  assert.not.match(r.headers.get('content-security-policy')!, /script-src/)
  assert.not.match(r.text, /<script/)
})

limits.run()
corsSuite.run()
slow.run()
headers.run()
