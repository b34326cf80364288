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
import { crud, expanded, Form } from '../../../src/http/crud.ts'
import type { Actor } from '../../../src/services/types.ts'
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
  // @ts-expect-error a repository answering records the forms do not serialize
  store: { get: async (): Promise<OtherRecord> => ({ id: 'a' }) },
  detail: { summary: 's', form: thing },
})
crud(new Router(), {
  tag: 't',
  path: '/x',
  // @ts-expect-error a write taking another body than the route validates
  create: { summary: 's', body: ThingBody, form: thing, write: async (_a, b: { n: number }) => b },
})

/** A variant's view of a thing: its name with the variant's mark (as Variant B adds its devices). */
const Marked = z.object({ id: z.number(), name: z.string(), mark: z.string() })
type MarkedThing = ThingRecord & { mark: string }
const marked = Form.of(Marked, (t: MarkedThing) => ({ id: t.id, name: t.name, mark: t.mark }))
const mark = async (_tenant: string, rows: ThingRecord[]) => rows.map((t) => ({ ...t, mark: '!' }))
/** An in-memory repository and service of things (classes: the defaults call them as methods), and their calls. */
class Things {
  rows: ThingRecord[] = [{ id: 1, name: 'a', createAt: 0 }]
  calls: unknown[][] = []
  async list(tenant: string, q: { page: number }) {
    this.calls.push(['list', tenant, q.page])
    return { items: this.rows, count: this.rows.length }
  }
  async get(tenant: string, id: number, ...more: unknown[]) {
    this.calls.push(['get', tenant, id, ...more])
    const t = this.rows.find((x) => x.id === id)
    if (!t) throw new ApiError('DATA_NOT_FOUND', { id: 'not found' })
    return t
  }
}
class ThingService {
  constructor(readonly things: Things) {}
  async create(actor: Actor, body: { name: string }, ...more: unknown[]) {
    this.things.calls.push(['create', actor.tenant, body.name, ...more])
    const t = { id: this.things.rows.length + 1, name: body.name, createAt: 0 }
    this.things.rows.push(t)
    return t
  }
  async update(actor: Actor, id: number, body: { name: string }) {
    return Object.assign(await this.things.get(actor.tenant, id), body)
  }
  async remove(actor: Actor, ids: number[], ...more: unknown[]) {
    this.things.calls.push(['remove', actor.tenant, ids, ...more])
  }
}

// @ts-expect-error reads through a hook that does not make the record the forms serialize
crud(new Router(), {
  tag: 't',
  path: '/x',
  ...expanded(
    new Things(),
    new ThingService(new Things()),
    async (_t, rows: ThingRecord[]) => rows,
  ),
  detail: { summary: 's', form: marked },
})

function serve() {
  const store = new Things()
  const service = new ThingService(store)
  const r = crud(new Router(), {
    tag: 'Things',
    path: '/things',
    store,
    service,
    list: { summary: 'List things', query: listQuery({ name: 'text' }), form: thing },
    detail: { summary: 'A thing', form: thing },
    create: { summary: 'Create a thing', description: 'more', body: ThingBody, form: thing },
    update: { summary: 'Edit a thing', admin: true, body: ThingBody, form: thing },
    remove: { summary: 'Delete things' },
  })
  crud(r, {
    tag: 'Things',
    path: '/things/:id/parts',
    create: {
      summary: 'Add a part',
      body: ThingBody,
      write: (actor, body, id) => service.create(actor, { name: `${body.name}@${id}` }),
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
    ['list', 't1', 1],
    ['get', 't1', 1],
    ['get', 't1', 9],
    ['create', 't1', 'b'],
    ['get', 't1', 2],
    ['remove', 't1', [2, 1]],
    ['create', 't1', 'b@7'],
  ])
})

test('expanded reads and writes :: each record the store or service answers goes through the hook', async () => {
  const store = new Things()
  const r = crud(new Router(), {
    tag: 'Things',
    path: '/things',
    ...expanded(store, new ThingService(store), mark),
    list: { summary: 'List', query: listQuery({ name: 'text' }), form: marked },
    detail: { summary: 'One', form: marked },
    create: { summary: 'Create', body: ThingBody, form: marked },
    update: { summary: 'Edit', body: ThingBody, form: marked },
    remove: { summary: 'Delete' },
  })
  const app = new Hono<AppEnv>()
  app.use('*', async (c, next) => {
    c.set('caller', { tenantID: 't1', userIntID: 1, username: 'u', role: 'admin', kind: 'user' })
    c.set('tenant', 't1')
    c.set('tz', 'UTC')
    await next()
  })
  app.route('/', r.app)
  const list = await app.request('/things?_page=1&_limit=5')
  assert.equal(await list.json(), {
    items: [{ id: 1, name: 'a', mark: '!' }],
    meta: { count: 1, limit: 5, page: 1 },
  })
  assert.equal(await (await app.request('/things/1')).json(), { id: 1, name: 'a', mark: '!' })
  const created = await app.request('/things', { method: 'POST', body: '{"name":"b"}' })
  assert.equal([created.status, await created.json()], [201, { id: 2, name: 'b', mark: '!' }])
  const put = await app.request('/things/2', { method: 'PUT', body: '{"name":"c"}' })
  assert.equal(await put.json(), { id: 2, name: 'c', mark: '!' })
  const del = await app.request('/things?ids=2', { method: 'DELETE' })
  assert.is(del.status, 204)
  assert.equal(store.calls.at(-1), ['remove', 't1', [2]])
})

test('a route without a call of its own or a default :: fails at startup', () => {
  assert.throws(
    () => crud(new Router(), { tag: 't', path: '/x', detail: { summary: 's', form: thing } }),
    /GET \/x\/:id has no call/,
  )
})

test.run()
