/**
 * The crud route factory (src/http/crud.ts): one declaration registers a resource's standard routes, and what
 * they answer is checked at compile time as `Router.typed` checks a handler's. The `@ts-expect-error` lines are
 * the failing cases: `npx tsc` fails if one of them compiles.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Hono } from 'hono'
import { z } from 'zod'
import { Router } from '../../../src/http/router.ts'
import { crud, Form, type Actor } from '../../../src/http/crud.ts'
import { IdsQuery, listQuery } from '../../../src/http/paging.ts'
import type { AppEnv } from '../../../src/http/env.ts'
import { ApiError } from '../../../src/errors.ts'

interface ThingRecord {
  id: number
  name: string
  createAt: number
}
interface OtherRecord {
  id: string
}
const Thing = z.object({ id: z.number(), name: z.string() })
const ThingBody = z.object({ name: z.string() })
const thingWire = (t: ThingRecord) => ({ id: t.id, name: t.name })

// Compile-time failures, one per line that must not compile.
// @ts-expect-error a serializer answering a field of the wrong type
Form.of(Thing, (t: ThingRecord) => ({ id: String(t.id), name: t.name }))
// @ts-expect-error a serializer missing a field
Form.of(Thing, (t: ThingRecord) => ({ id: t.id }))
// @ts-expect-error a stored record instead of its wire form
Form.of(z.object({ id: z.number(), createAt: z.string() }), (t: ThingRecord) => t)
const thing = Form.of(Thing, thingWire)
crud(new Router(), {
  tag: 't',
  path: '/x',
  // @ts-expect-error a read answering records the form does not serialize
  detail: { summary: 's', form: thing, read: async (): Promise<OtherRecord> => ({ id: 'a' }) },
})
crud(new Router(), {
  tag: 't',
  path: '/x',
  // @ts-expect-error a write taking another body than the route validates
  create: { summary: 's', body: ThingBody, form: thing, write: async (_a, b: { n: number }) => b },
})

/** An in-memory store of things, and what the writes were called with. */
function things() {
  const rows: ThingRecord[] = [{ id: 1, name: 'a', createAt: 0 }]
  const calls: unknown[] = []
  const find = (id: number) => {
    const t = rows.find((x) => x.id === id)
    if (!t) throw new ApiError('DATA_NOT_FOUND', { id: 'not found' })
    return t
  }
  return {
    calls,
    list: async () => ({ items: rows, count: rows.length }),
    get: async (id: number) => find(id),
    create: async (actor: Actor, name: string) => {
      calls.push(['create', actor.tenant, name])
      const t = { id: rows.length + 1, name, createAt: 0 }
      rows.push(t)
      return t
    },
    update: async (id: number, name: string) => Object.assign(find(id), { name }),
    remove: async (ids: number[]) => calls.push(['remove', ids]),
  }
}

function serve() {
  const store = things()
  const r = crud(new Router(), {
    tag: 'Things',
    path: '/things',
    list: {
      summary: 'List things',
      query: listQuery({ name: 'text' }),
      form: thing,
      read: () => store.list(),
    },
    detail: { summary: 'A thing', form: thing, read: (_tenant, id) => store.get(id) },
    create: {
      summary: 'Create a thing',
      description: 'more',
      body: ThingBody,
      form: thing,
      write: (actor, body) => store.create(actor, body.name),
    },
    update: {
      summary: 'Edit a thing',
      admin: true,
      body: ThingBody,
      form: thing,
      write: (_actor, id, body) => store.update(id, body.name),
    },
    remove: { summary: 'Delete things', write: (_actor, ids) => store.remove(ids) },
  })
  crud(r, {
    tag: 'Things',
    path: '/things/:id/parts',
    create: {
      summary: 'Add a part',
      body: ThingBody,
      write: (actor, body, id) => store.create(actor, `${body.name}@${id}`),
      location: (t) => `/api/v1/things/${t.id}`,
    },
  })
  const app = new Hono<AppEnv>()
  app.onError((e, c) =>
    c.json(
      { errorCode: e instanceof ApiError ? e.errorCode : 'x' },
      e instanceof ApiError ? 404 : 500,
    ),
  )
  app.use('*', async (c, next) => {
    c.set('caller', {
      tenantID: 't1',
      userIntID: 1,
      username: 'u',
      role: c.req.header('x-role') === 'user' ? 'user' : 'admin',
      kind: 'user',
    })
    c.set('tenant', 't1')
    c.set('lang', 'en')
    c.set('tz', 'UTC')
    await next()
  })
  app.route('/', r.app)
  return { r, app, store }
}

const test = suite('crud')

test('a declaration :: registers its routes in order, documented as declared', () => {
  const { r } = serve()
  assert.equal(
    r.defs.map((d) => [d.method, d.path, d.status ?? 200, d.summary, !!d.response]),
    [
      ['get', '/things', 200, 'List things', true],
      ['get', '/things/:id', 200, 'A thing', true],
      ['post', '/things', 201, 'Create a thing', true],
      ['put', '/things/:id', 200, 'Edit a thing', true],
      ['delete', '/things', 204, 'Delete things', false],
      ['post', '/things/:id/parts', 201, 'Add a part', false],
    ],
  )
  assert.is(r.defs[2]!.description, 'more')
  assert.is(r.defs[3]!.admin, true)
  assert.not.ok('admin' in r.defs[0]!)
  assert.is(r.defs[4]!.query, IdsQuery)
  assert.is(r.defs[2]!.body, ThingBody)
})

test('its routes :: answer pages, records, 201, 204 and Location; admin only where declared', async () => {
  const { app, store } = serve()
  const list = await app.request('/things?_page=1&_limit=5')
  assert.is(list.status, 200)
  assert.equal(await list.json(), {
    items: [{ id: 1, name: 'a' }],
    meta: { count: 1, limit: 5, page: 1 },
  })
  const one = await app.request('/things/1')
  assert.equal([one.status, await one.json()], [200, { id: 1, name: 'a' }])
  assert.is((await app.request('/things/9')).status, 404)
  const post = { method: 'POST', body: '{"name":"b"}' }
  const created = await app.request('/things', post)
  assert.equal([created.status, await created.json()], [201, { id: 2, name: 'b' }])
  const edit = { method: 'PUT', body: '{"name":"c"}' }
  const notAdmin = await app.request('/things/2', { ...edit, headers: { 'x-role': 'user' } })
  assert.equal(await notAdmin.json(), { errorCode: 'PERMISSION_DENIED' })
  const put = await app.request('/things/2', edit)
  assert.equal([put.status, await put.json()], [200, { id: 2, name: 'c' }])
  const del = await app.request('/things?ids=2,1', { method: 'DELETE' })
  assert.equal([del.status, await del.text()], [204, ''])
  const part = await app.request('/things/7/parts', post)
  assert.equal([part.status, await part.text()], [201, ''])
  assert.is(part.headers.get('location'), '/api/v1/things/3')
  assert.equal(store.calls, [
    ['create', 't1', 'b'],
    ['remove', [2, 1]],
    ['create', 't1', 'b@7'],
  ])
})

test.run()
