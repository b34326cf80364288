import * as assert from 'uvu/assert'
import { createApp } from '../../src/app.ts'
import { codes, enumerations, type EnumName } from '../../src/enums.ts'
import type { ProductListItem } from '../../src/schemas/products.ts'
import type { TestService } from '../_support/service.ts'
import { serviceSuite } from '../_support/suite.ts'
import type { ErrorBody, Page, Wire } from '../_support/wire.ts'
import { operationOf, operations, type OpenApi, type Operation, type Schema } from './_openapi.ts'

let t: TestService

const openapi = serviceSuite('openapi', (svc) => (t = svc))

openapi('document :: OpenAPI 3.1, public, with error schema', async () => {
  const r = await t.anon.get<OpenApi>('/api/v1/openapi.json')
  assert.is(r.status, 200)
  assert.is(r.body.openapi, '3.1.0')
  assert.ok(r.body.components.schemas.Error!.properties!.errorCode)
  assert.ok(Object.keys(r.body.paths).length > 10)
})

openapi('every mounted route :: documented with its method', async () => {
  const { app } = createApp(t.svc.deps)
  const doc = (await t.anon.get<OpenApi>('/api/v1/openapi.json')).body
  const mounted = app.routes
    .filter(
      (r) =>
        r.path.startsWith('/api/v1/') && r.method !== 'ALL' && r.path !== '/api/v1/openapi.json',
    )
    .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`)
  assert.ok(mounted.length > 10)
  const missing = mounted.filter((m) => {
    const [method, path] = m.split(' ')
    return !doc.paths[path!]?.[method!]
  })
  assert.equal(missing, [])
  // and nothing documented that is not mounted
  const documented = Object.entries(doc.paths).flatMap(([p, ops]) =>
    Object.keys(ops).map((m) => `${m} ${p}`),
  )
  assert.equal(
    documented.filter((d) => !mounted.includes(d)),
    [],
  )
})

openapi('request schemas :: come from the validating zod schemas', async () => {
  const doc = (await t.anon.get<OpenApi>('/api/v1/openapi.json')).body
  const create = operationOf(doc, '/api/v1/products', 'post')
  const schema = create.requestBody!.content['application/json']!.schema!
  assert.equal(schema.required!.sort(), ['cloudProtocol', 'productName'])
  const list = operationOf(doc, '/api/v1/products', 'get').parameters.map((p) => p.name)
  for (const p of ['_page', '_limit', '_sort', '_order', 'productName_like'])
    assert.ok(list.includes(p), p)
  assert.equal(
    create.responses['201']!.content!['application/json']!.schema!.properties!
      .cloudProtocolLabel !== undefined,
    true,
  )
})

const jsonBody = (op: Operation) => op.requestBody?.content?.['application/json']?.schema

openapi(
  '_page and _limit :: integers from 1 in every list, as the router checks them',
  async () => {
    const doc = (await t.anon.get<OpenApi>('/api/v1/openapi.json')).body
    const lists = operations(doc).filter(({ op }) => op.parameters.some((p) => p.name === '_page'))
    assert.ok(lists.length > 30, String(lists.length))
    for (const { method, path, op } of lists)
      for (const name of ['_page', '_limit']) {
        const schema = op.parameters.find((p) => p.name === name)!.schema
        assert.is(schema.type, 'integer', `${method} ${path} ${name}`)
        assert.is(schema.minimum, 1, `${method} ${path} ${name}`)
      }
    const zero = await t.admin.get<ErrorBody>('/api/v1/products?_page=0&_limit=0')
    assert.is(zero.status, 400)
    assert.equal(zero.body.errors, {
      _page: '_page must be at least 1',
      _limit: '_limit must be at least 1',
    })
    const clamped = await t.admin.get<Page<Wire<typeof ProductListItem>>>(
      '/api/v1/products?_page=1&_limit=5000',
    )
    assert.is(clamped.body.meta.limit, 1000)
  },
)

openapi('enumerations :: every request field named after one documents its codes', async () => {
  const doc = (await t.anon.get<OpenApi>('/api/v1/openapi.json')).body
  const seen = new Set<string>()
  const visit = (schema: Schema | undefined, where: string) => {
    if (!schema || typeof schema !== 'object') return
    for (const [field, s] of Object.entries(schema.properties ?? {})) {
      const own = (s.anyOf ?? [s]).find((x) => x.type !== 'null')
      if (field in enumerations && own?.type === 'integer') {
        assert.equal(own.enum, codes(field as EnumName), `${where} ${field}`)
        seen.add(field)
      }
      visit(own, `${where}.${field}`)
    }
    visit(schema.items, where)
  }
  for (const { method, path, op } of operations(doc)) visit(jsonBody(op), `${method} ${path}`)
  for (const name of ['cloudProtocol', 'deviceType', 'streamType', 'pointDataType', 'access'])
    assert.ok(seen.has(name), name)
  const product = jsonBody(operationOf(doc, '/api/v1/products', 'post'))!
  assert.equal(product.properties!.cloudProtocol!.enum, [1, 2, 3, 4, 5, 6, 7])
})

openapi('error answers :: every operation documents the statuses it can answer', async () => {
  const doc = (await t.anon.get<OpenApi>('/api/v1/openapi.json')).body
  for (const { method, path, op } of operations(doc)) {
    const at = `${method} ${path}`
    const codes = Object.keys(op.responses).map(Number)
    const errors = codes.filter((c) => c >= 400)
    for (const c of errors)
      assert.equal(
        op.responses[c]!.content!['application/json']!.schema,
        { $ref: '#/components/schemas/Error' },
        `${at} ${c}`,
      )
    assert.ok(errors.includes(400) && errors.includes(503), at)
    if (!op.security) assert.ok(errors.includes(401) && errors.includes(403), at)
    if (path.includes('{') || op.requestBody || method === 'delete')
      assert.ok(errors.includes(404), at)
    if (op.requestBody) assert.ok(errors.includes(413) && errors.includes(422), at)
  }
  const has = (path: string, method: string, ...codes: number[]) =>
    codes.forEach((c) =>
      assert.ok(operationOf(doc, path, method).responses[c], `${method} ${path} ${c}`),
    )
  has('/api/v1/login', 'post', 401, 429)
  has('/api/v1/signup', 'post', 403)
  has('/api/v1/ingest', 'post', 401, 403, 413, 429)
  has('/api/v1/ingest/commands', 'get', 401, 403)
  has('/api/v1/devices_export', 'get', 429)
  has('/api/v1/emqx/auth', 'post', 401, 404)
  assert.equal(doc.components.schemas.Error!.required, ['errorCode', 'message', 'errors'])
})

openapi('non-JSON bodies and answers :: ingest, CSV export and import documented', async () => {
  const doc = (await t.anon.get<OpenApi>('/api/v1/openapi.json')).body
  const ingest = operationOf(doc, '/api/v1/ingest', 'post').requestBody!.content
  assert.is(ingest['application/json']!.schema!.type, 'object')
  assert.is(ingest['application/json']!.schema!.properties!.messages!.maxItems, 10_000)
  assert.ok(ingest['application/x-ndjson'])
  const csv = operationOf(doc, '/api/v1/devices_export/{taskID}', 'get').responses['200']!
  assert.equal(csv.content, { 'text/csv': { schema: { type: 'string' } } })
  const upload = operationOf(doc, '/api/v1/devices_import', 'post').requestBody!.content
  assert.equal(upload['multipart/form-data']!.schema!.required, ['file'])
  assert.ok(upload['text/csv'])
  const raw = operationOf(doc, '/api/v1/original_data', 'get').responses['200']!.content!
  assert.equal(Object.keys(raw), ['application/json', 'text/csv', 'application/x-ndjson'])
  // the ingest body schema is what the route refuses: an array is 400, `messages` not an array 422
  const dev = await t.admin.post('/api/v1/ingest', [null])
  assert.is(dev.status, 400)
  const bad = await t.admin.post('/api/v1/ingest', { messages: 'x' })
  assert.is(bad.status, 422)
})

openapi('request patterns :: documented for the checks zod runs as code', async () => {
  const doc = (await t.anon.get<OpenApi>('/api/v1/openapi.json')).body
  const body = (path: string) => jsonBody(operationOf(doc, path, 'post'))!
  const cert = body('/api/v1/certs')
  const cn = cert.properties!.CN!.anyOf![0]!
  // Python's and other clients' regex engines read these too: no \p{...} classes
  for (const p of [cn.allOf![0]!.pattern!, cn.allOf![1]!.pattern!]) assert.not.match(p, '\\p{')
  assert.equal(body('/api/v1/policies/{id}/devices').required, ['devicesIntID'])
  const sub = body('/api/v1/devices/{id}/subscriptions').properties!
  assert.equal([sub.qos!.minimum, sub.qos!.maximum], [0, 2])
  assert.is(sub.topic!.minLength, 1)
  const wait = operationOf(doc, '/api/v1/ingest/commands', 'get').parameters[0]!.schema
  assert.equal([wait.type, wait.minimum, wait.maximum], ['integer', 0, 30])
  const point = body('/api/v1/data_points').properties!
  assert.is(point.productIntID!.exclusiveMinimum, 0)
  assert.is(point.dataStep!.anyOf![0]!.exclusiveMinimum, 0)
  const name = body('/api/v1/products').properties!.productName!
  assert.ok(!new RegExp(name.pattern!).test(' \t\u3000'), 'a blank name fails the pattern')
  const hook = body('/api/v1/webhooks').properties!.url!
  for (const [url, status] of [
    ['https://PbnXBKqDDTHML*', 422],
    ['http://user:pw@hooks.example:8443/in?x=1', 201],
  ] as const) {
    assert.is(new RegExp(hook.pattern!).test(url), status === 201, url)
    assert.is((await t.admin.post('/api/v1/webhooks', { url })).status, status, url)
  }
  const logs = operationOf(doc, '/api/v1/device_connect_logs', 'get').parameters
  const start = new RegExp(logs.find((p) => p.name === 'startTime')!.schema.pattern!)
  assert.ok(start.test('2025-02-28 23:07:30'))
  for (const bad of ['5121-02-29 23:07:30', '2025-04-31 00:00:00', '0000-00-00 00:00:00'])
    assert.not.ok(start.test(bad), bad)
  const blank = await t.admin.post('/api/v1/products', { productName: ' \u3000', cloudProtocol: 1 })
  assert.is(blank.status, 422)
})

openapi('/docs :: readable HTML reference listing the routes', async () => {
  const r = await t.anon.get('/docs')
  assert.is(r.status, 200)
  assert.match(r.headers.get('content-type')!, /text\/html/)
  assert.match(r.text, '<code>/api/v1/products/{id}</code>')
  assert.match(r.text, 'Create a product')
})

openapi.run()
