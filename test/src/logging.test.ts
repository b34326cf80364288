import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as assert from 'uvu/assert'
import { createApp } from '../../src/app.ts'
import { createLogger, fileDestination, type LogDestination } from '../../src/kernel/log.ts'
import { ADMIN_PASSWORD, startTestService, type TestService } from '../_support/service.ts'
import { serviceSuite } from '../_support/suite.ts'

/** The fields of a log line these tests read; a line carries whatever else its call logged. */
interface LogLine {
  level: string
  msg: string
  time: string
  requestId?: string
  route?: string
  ms?: number
  err?: { message: string; stack: string }
  deviceCount?: number
  headers?: Record<string, string>
  [field: string]: unknown
}

/** Collects the log lines a logger writes. */
function collector() {
  const lines: string[] = []
  const destination: LogDestination = { write: (line) => void lines.push(line) }
  const records = () => lines.map((l) => JSON.parse(l) as LogLine)
  return { lines, destination, records }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

let t: TestService
const log = collector()
const logging = serviceSuite(
  'structured logs',
  (svc) => (t = svc),
  { LOG_LEVEL: 'info' },
  { logDestination: log.destination },
)

logging(
  'X-Request-Id :: a sane one is echoed, a bad or missing one replaced by a fresh id',
  async () => {
    const echoed = await t.anon.get('/healthz', { 'x-request-id': 'Abc-123_x.y' })
    assert.is(echoed.headers.get('x-request-id'), 'Abc-123_x.y')
    for (const bad of ['has space', 'x'.repeat(129), 'semi;colon', '']) {
      const r = await t.anon.get('/healthz', bad ? { 'x-request-id': bad } : {})
      assert.match(r.headers.get('x-request-id') ?? '', UUID, bad)
    }
    const a = await t.anon.get('/healthz')
    const b = await t.anon.get('/healthz')
    assert.is.not(a.headers.get('x-request-id'), b.headers.get('x-request-id'))
    const err = await t.anon.get('/api/v1/products')
    assert.is(err.status, 401)
    assert.match(err.headers.get('x-request-id') ?? '', UUID)
  },
)

logging(
  'one access line per request :: JSON with method, route template, status, ms, request id; no credentials or query',
  async () => {
    const login = await t.anon.post('/api/v1/login', {
      email: 'admin@test.local',
      password: ADMIN_PASSWORD,
    })
    assert.is(login.status, 201)
    const token = login.body.token as string
    const product = await t.admin.post('/api/v1/products', {
      productName: `p-${Date.now()}`,
      cloudProtocol: 1,
    })
    log.lines.length = 0
    const r = await t.anon.get(`/api/v1/products/${product.body.id}?token=query-secret-1234`, {
      authorization: `Bearer ${token}`,
      'x-request-id': 'req-access-1',
    })
    assert.is(r.status, 200, r.text)
    const access = log.records().filter((l) => l.requestId === 'req-access-1')
    assert.is(access.length, 1, log.lines.join(''))
    const line = access[0]!
    assert.equal(Object.keys(line).sort(), [
      'component',
      'level',
      'method',
      'ms',
      'msg',
      'requestId',
      'route',
      'status',
      'time',
    ])
    assert.equal(
      { ...line, time: undefined, ms: undefined },
      {
        level: 'info',
        component: 'http',
        requestId: 'req-access-1',
        method: 'GET',
        route: '/api/v1/products/:id',
        status: 200,
        msg: 'request',
        time: undefined,
        ms: undefined,
      },
    )
    assert.type(line.ms, 'number')
    assert.ok(!Number.isNaN(Date.parse(line.time)))
    const all = log.lines.join('')
    for (const secret of [token, 'query-secret-1234', ADMIN_PASSWORD])
      assert.not.ok(all.includes(secret), `${secret} was logged`)
  },
)

logging(
  'a failing handler :: 500 body without internals; the log has the stack and the request id',
  async () => {
    const errors = collector()
    const logger = createLogger({ level: 'error', destination: errors.destination })
    const { app } = createApp({ ...t.svc.deps, logger })
    app.get('/boom', () => {
      throw new Error('database exploded at /var/lib/secret.db')
    })
    const r = await app.request('/boom', { headers: { 'x-request-id': 'req-500' } })
    assert.is(r.status, 500)
    assert.is(r.headers.get('x-request-id'), 'req-500')
    const text = await r.text()
    assert.equal(JSON.parse(text), {
      errorCode: 'INTERNAL_ERROR',
      message: 'Internal error',
      errors: {},
    })
    assert.equal(errors.records().length, 1, errors.lines.join(''))
    const line = errors.records()[0]!
    assert.is(line.level, 'error')
    assert.is(line.requestId, 'req-500')
    assert.is(line.route, '/boom')
    assert.is(line.err?.message, 'database exploded at /var/lib/secret.db')
    assert.match(line.err?.stack ?? '', /Error: database exploded[\s\S]*\n\s+at /)
  },
)

logging('redaction :: authorization, password, token and secret fields never reach a line', () => {
  const out = collector()
  const logger = createLogger({ level: 'info', destination: out.destination })
  logger.child({ component: 'test' }).info(
    {
      authorization: 'Bearer a1',
      headers: { authorization: 'Basic b2', 'x-hook-secret': 'h3' },
      body: { password: 'p4', user: { token: 't5' } },
      secret: 's6',
      deviceCount: 7,
    },
    'something happened',
  )
  const text = out.lines.join('')
  for (const s of ['a1', 'b2', 'h3', 'p4', 't5', 's6']) assert.not.ok(text.includes(s), s)
  const line = out.records()[0]!
  assert.is(line.deviceCount, 7)
  assert.is(line.headers?.authorization, '[redacted]')
})

logging('LOG_LEVEL and LOG_FORMAT :: level filters lines, pretty writes readable text', () => {
  const out = collector()
  const warn = createLogger({ level: 'warn', destination: out.destination })
  warn.info('not written')
  warn.warn({ n: 1 }, 'written')
  assert.equal(
    out.records().map((r) => [r.level, r.msg]),
    [['warn', 'written']],
  )
  const pretty = collector()
  createLogger({ level: 'info', format: 'pretty', destination: pretty.destination }).info(
    { password: 'pw-9' },
    'hello operator',
  )
  const text = pretty.lines.join('')
  assert.match(text, /INFO.*hello operator/)
  assert.not.ok(text.includes('pw-9'))
  assert.throws(() => JSON.parse(text))
})

logging('the tests default (LOG_LEVEL=error) :: no access lines', async () => {
  const quiet = collector()
  const q = await startTestService({}, { logDestination: quiet.destination })
  try {
    await q.anon.get('/healthz')
    await q.admin.get('/api/v1/products')
    assert.equal(quiet.lines, [])
  } finally {
    await q.close()
  }
})

logging(
  'a file or stdout destination :: lines are written in chunks, none later than ~100 ms, the rest at exit',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'devicecloud-log-'))
    try {
      const file = join(dir, 'a.log')
      const dest = fileDestination(file)
      const logger = createLogger({ level: 'info', destination: dest })
      logger.info({ n: 1 }, 'first')
      logger.info({ n: 2 }, 'second')
      // two short lines stay under the chunk size: the flush timer writes them
      const read = () => (existsSync(file) ? readFileSync(file, 'utf8') : '')
      const until = Date.now() + 2_000
      while (!read().includes('"second"') && Date.now() < until)
        await new Promise((r) => setTimeout(r, 20))
      assert.equal(
        read()
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).n),
        [1, 2],
      )
      dest.end()
      // a process that logs to stdout and exits at once (process.exit, no turn of the event loop) keeps every line
      const code = `import { createLogger } from ${JSON.stringify(join(import.meta.dirname, '../../src/kernel/log.ts'))}
        const l = createLogger({ level: 'info' })
        for (let i = 0; i < 500; i++) l.info({ i }, 'line')
        process.exit(0)`
      const r = spawnSync(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', code],
        {
          encoding: 'utf8',
        },
      )
      assert.is(r.status, 0, r.stderr)
      // every line, in the order logged
      assert.equal(
        r.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).i as number),
        Array.from({ length: 500 }, (_, i) => i),
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },
)

logging.run()
