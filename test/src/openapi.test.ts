import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createApp } from '../../src/app.ts'
import { startTestService, type TestService } from '../_support/service.ts'

let t: TestService

const openapi = suite('openapi')
openapi.before(async () => {
  t = await startTestService()
})
openapi.after(async () => t.close())

openapi('document :: OpenAPI 3.1, public, with error schema', async () => {
  const r = await t.anon.get('/api/v1/openapi.json')
  assert.is(r.status, 200)
  assert.is(r.body.openapi, '3.1.0')
  assert.ok(r.body.components.schemas.Error.properties.errorCode)
  assert.ok(Object.keys(r.body.paths).length > 10)
})

openapi('every mounted route :: documented with its method', async () => {
  const { app } = createApp(t.svc.deps)
  const doc = (await t.anon.get('/api/v1/openapi.json')).body
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
  const documented = Object.entries(doc.paths as Record<string, object>).flatMap(([p, ops]) =>
    Object.keys(ops).map((m) => `${m} ${p}`),
  )
  assert.equal(
    documented.filter((d) => !mounted.includes(d)),
    [],
  )
})

openapi('request schemas :: come from the validating zod schemas', async () => {
  const doc = (await t.anon.get('/api/v1/openapi.json')).body
  const create = doc.paths['/api/v1/products'].post
  const schema = create.requestBody.content['application/json'].schema
  assert.equal(schema.required.sort(), ['cloudProtocol', 'productName'])
  const list = doc.paths['/api/v1/products'].get.parameters.map((p: any) => p.name)
  for (const p of ['_page', '_limit', '_sort', '_order', 'productName_like'])
    assert.ok(list.includes(p), p)
  assert.equal(
    create.responses['201'].content['application/json'].schema.properties.cloudProtocolLabel !==
      undefined,
    true,
  )
})

openapi('/docs :: readable HTML reference listing the routes', async () => {
  const r = await t.anon.get('/docs')
  assert.is(r.status, 200)
  assert.match(r.headers.get('content-type')!, /text\/html/)
  assert.match(r.text, '<code>/api/v1/products/{id}</code>')
  assert.match(r.text, 'Create a product')
})

openapi.run()
