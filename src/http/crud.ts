import type { z } from 'zod'
import type { Context } from 'hono'
import type { JsonText, Page as Found, Shape, TextPage } from '../../store/types.ts'
import type { Projection } from '../kernel/projection.ts'
import type { WireCtx } from '../wire/shape.ts'
import { actorOf, wireCtx } from './env.ts'
import { IdsQuery, Page, pageOf, pageTextOf } from './paging.ts'
import type { RouteDef, Router } from './router.ts'
import type { Actor } from '../services/types.ts'

/** What paging needs of a list query (listQuery's output has it). */
type PageArgs = { page: number; limit: number; sort?: string; order?: string }

/** A page of records in `form`. */
const pageIn = <R>(form: Form<R>, { items, count, next }: Found<R>, args: PageArgs, ctx: WireCtx) =>
  pageOf(
    items.map((x) => form.wire(x, ctx)),
    count,
    args,
    next,
  )

/** A response form: a zod object whose keys are the wire fields, in order (src/wire/shape.ts). */
export type WireForm = z.ZodObject

/**
 * What a route answers: a response schema and the serializer that writes it from a record `R`. `Form.of`
 * checks at compile time that the serializer answers the schema's output, as `Router.typed` checks a handler's
 * answer; a crud route can only answer through a Form, so its answer is checked as a typed route's is.
 */
export class Form<R> {
  private constructor(
    readonly schema: z.ZodType,
    readonly wire: (record: R, ctx: WireCtx) => unknown,
    /** `wire`'s projection, when it is made of one: a store may then answer the form as text. */
    readonly projection?: Projection,
  ) {}

  /**
   * `schema`'s form of a record `R`: `wire` must answer the schema's output (checked at compile time); its
   * projection, if it has one (src/wire/shape.ts `Shaper`), comes along.
   */
  static of<S extends z.ZodType, R>(
    schema: S,
    wire: ((record: R, ctx: WireCtx) => z.output<S>) & { projection?: Projection },
  ) {
    return new Form<R>(schema, wire, wire.projection)
  }

  /** A page of records (`{items, meta}`), each item in `item`'s form; `args` gives the page's meta. */
  static page<R>(item: Form<R>, args: PageArgs) {
    return new Form<Found<R>>(Page(item.schema), (found, ctx) => pageIn(item, found, args, ctx))
  }
}

/** The calls of the routes: a read with the caller's tenant, a write with the caller (Actor). */
type ListRead<Q, R> = (tenant: string, query: Q, id: number) => Promise<Found<R>>
type DetailRead<R> = (tenant: string, id: number) => Promise<R>
type CreateWrite<B, R> = (actor: Actor, body: B, id: number) => Promise<R>
type UpdateWrite<B, R> = (actor: Actor, id: number, body: B) => Promise<R>
type RemoveWrite = (actor: Actor, ids: number[], id: number) => Promise<unknown>

/** What a declaration may document or require on any of its routes (see RouteDef). */
type Doc = Pick<RouteDef, 'summary' | 'description' | 'admin' | 'errors'>

export interface ListRoute<Q extends PageArgs, R> extends Doc {
  query: z.ZodType<Q>
  /** The form of one item of the page. */
  form: Form<R>
  /** The page asked for (default: the store's `list`); `id` is the path's `:id` (a nested collection's parent). */
  read?: ListRead<Q, R>
  /**
   * The same page with its items as text in `form`'s projection (store/meta/table.ts ProjectedReads), answered
   * instead of `read`'s when the form has a projection: the items are neither parsed nor serialized here.
   */
  readText?: (tenant: string, query: Q, shape: Shape, id: number) => Promise<TextPage>
}

export interface DetailRoute<R> extends Doc {
  form: Form<R>
  /** The record (default: the store's `get`). */
  read?: DetailRead<R>
  /** The record as text in `form`'s projection, answered instead of `read`'s when the form has one. */
  readText?: (tenant: string, id: number, shape: Shape) => Promise<JsonText>
}

/** A JSON text (or its UTF-8 bytes) answered as `c.json` would answer the value it is the text of. */
const jsonText = (c: Context, text: JsonText) =>
  c.body(text, 200, { 'Content-Type': 'application/json' })

/** 201 with the created record in `form`, or 201 with an empty body and the record's URL in `Location`. */
type Created<R> = { form: Form<R>; location?: never } | { location: (created: R) => string }

export type CreateRoute<B, R> = Doc &
  Created<R> & {
    body: z.ZodType<B>
    /** Creates the record (default: the service's `create`); `id` as in ListRoute. Declared before `location`. */
    write?: CreateWrite<B, R>
  }

export interface UpdateRoute<B, R> extends Doc {
  body: z.ZodType<B>
  form: Form<R>
  /** Edits the record (default: the service's `update`). */
  write?: UpdateWrite<B, R>
}

export interface RemoveRoute extends Doc {
  /** Deletes `?ids=` (default: the service's `remove`); `id` as in ListRoute. Answers 204. */
  write?: RemoveWrite
}

/** The repository calls a resource's reads default to. */
export interface Reads<Q, RL, RD> {
  list(tenant: string, query: Q): Promise<Found<RL>>
  get(tenant: string, id: number): Promise<RD>
}

/** The service calls a resource's writes default to. */
export interface Writes<BC, RC, BU, RU> {
  create(actor: Actor, body: BC): Promise<RC>
  update(actor: Actor, id: number, body: BU): Promise<RU>
  remove(actor: Actor, ids: number[]): Promise<unknown>
}

/**
 * The reads and writes of a resource whose records a variant shows with more than is stored (Variant B's
 * products and groups list their devices): each record `S` the store or service answers goes through `expand`
 * (the variant's hook, one call per page) before its form serializes the `R` it makes.
 */
export function expanded<Q, S, R, BC, BU>(
  store: Reads<Q, S, S>,
  service: Writes<BC, S, BU, S>,
  expand: (tenant: string, rows: S[]) => Promise<R[]>,
): { store: Reads<Q, R, R>; service: Writes<BC, R, BU, R> } {
  const one = async (tenant: string, row: S) => (await expand(tenant, [row]))[0]!
  return {
    store: {
      async list(tenant, query) {
        const page = await store.list(tenant, query)
        return { ...page, items: await expand(tenant, page.items) }
      },
      get: async (tenant, id) => one(tenant, await store.get(tenant, id)),
    },
    service: {
      create: async (a, body) => one(a.tenant, await service.create(a, body)),
      update: async (a, id, body) => one(a.tenant, await service.update(a, id, body)),
      remove: (a, ids) => service.remove(a, ids),
    },
  }
}

/**
 * One resource's standard routes, each optional: `list` (GET path, a page), `detail` (GET path/:id),
 * `create` (POST path, 201), `update` (PUT path/:id), `remove` (DELETE path?ids=, 204), registered in that
 * order. Reads call `store` (a repository), writes `service` (its domain service), unless a route brings its
 * own `read` or `write`; a route with neither fails at startup.
 */
export interface CrudSpec<Q extends PageArgs, RL, RD, BC, RC, BU, RU> {
  tag: string
  /** The collection's path (`/data_points`, or nested: `/devices/:id/subscriptions`); a record's is path/:id. */
  path: string
  /** Every route admins only (users, applications); a route may also say so itself. */
  admin?: boolean
  store?: Partial<Reads<Q, RL, RD>>
  service?: Partial<Writes<BC, RC, BU, RU>>
  list?: ListRoute<Q, RL>
  detail?: DetailRoute<RD>
  create?: CreateRoute<BC, RC>
  update?: UpdateRoute<BU, RU>
  remove?: RemoveRoute
}

const docOf = ({ summary, description, admin, errors }: Doc) => ({
  summary,
  ...(description === undefined ? {} : { description }),
  ...(admin === undefined ? {} : { admin }),
  ...(errors === undefined ? {} : { errors }),
})

/** Where a route is: its tag, its path, and whether only admins call it. */
type At = { tag: string; path: string; admin?: true }

/**
 * The default calls: the store's reads and the service's writes, each given exactly its own arguments (a nested
 * path's `id` is not passed on); undefined where the store or service has no such method.
 */
function defaultCalls<Q, RL, RD, BC, RC, BU, RU>(
  store: Partial<Reads<Q, RL, RD>>,
  service: Partial<Writes<BC, RC, BU, RU>>,
) {
  return {
    list: store.list && ((tenant: string, q: Q) => store.list!(tenant, q)),
    get: store.get && ((tenant: string, id: number) => store.get!(tenant, id)),
    create: service.create && ((a: Actor, body: BC) => service.create!(a, body)),
    update: service.update && ((a: Actor, id: number, body: BU) => service.update!(a, id, body)),
    remove: service.remove && ((a: Actor, ids: number[]) => service.remove!(a, ids)),
  }
}

/** A route's own call, else its default; a route with neither is a declaration error, at startup. */
function callOf<F>(own: F | undefined, fallback: F | undefined, route: string): F {
  const call = own ?? fallback
  if (!call) throw new Error(`crud: ${route} has no call (its own, or the store's or service's)`)
  return call
}

/** Registers the routes of `spec` on `r` (see CrudSpec) and answers `r`, for the resource's other routes. */
export function crud<Q extends PageArgs, RL, RD, BC, RC, BU, RU>(
  r: Router,
  spec: CrudSpec<Q, RL, RD, BC, RC, BU, RU>,
): Router {
  const { tag, path, list, detail, create, update, remove } = spec
  const calls = defaultCalls(spec.store ?? {}, spec.service ?? {})
  const at: At = spec.admin ? { tag, path, admin: true } : { tag, path }
  const one = { ...at, path: `${path}/:id` }
  if (list) listRoute(r, at, list, callOf(list.read, calls.list, `GET ${path}`))
  if (detail) detailRoute(r, one, detail, callOf(detail.read, calls.get, `GET ${one.path}`))
  if (create) createRoute(r, at, create, callOf(create.write, calls.create, `POST ${path}`))
  if (update) updateRoute(r, one, update, callOf(update.write, calls.update, `PUT ${one.path}`))
  if (remove) removeRoute(r, at, remove, callOf(remove.write, calls.remove, `DELETE ${path}`))
  return r
}

function listRoute<Q extends PageArgs, R>(
  r: Router,
  at: At,
  list: ListRoute<Q, R>,
  read: ListRead<Q, R>,
) {
  const { form, query, readText } = list
  const def = { ...at, method: 'get', ...docOf(list), query, response: Page(form.schema) } as const
  const { projection } = form
  if (readText && projection) {
    // untyped: answers the reader thread's JSON text in the form's projection (store/libsql/projected.ts), which
    // test/store/projected-reads.test.ts compares with the serializer's answer
    r.route(def, async (c, { query, id }) => {
      const shape = { projection, ctx: wireCtx(c) }
      const { items, count, next } = await readText(c.get('tenant'), query, shape, id)
      return jsonText(c, pageTextOf(items, count, query, next))
    })
    return
  }
  // untyped: Form.of checked the serializer against the form's schema where the form was made (R is generic here)
  r.route(def, async (c, { query, id }) =>
    c.json(pageIn(form, await read(c.get('tenant'), query, id), query, wireCtx(c))),
  )
}

function detailRoute<R>(r: Router, at: At, detail: DetailRoute<R>, read: DetailRead<R>) {
  const { form, readText } = detail
  const def = { ...at, method: 'get', ...docOf(detail), response: form.schema } as const
  const { projection } = form
  if (readText && projection) {
    // untyped: the reader thread's JSON text, as the list's above
    r.route(def, async (c, { id }) =>
      jsonText(c, await readText(c.get('tenant'), id, { projection, ctx: wireCtx(c) })),
    )
    return
  }
  // untyped: checked by Form.of, as the list's above
  r.route(def, async (c, { id }) => c.json(form.wire(await read(c.get('tenant'), id), wireCtx(c))))
}

function createRoute<B, R>(r: Router, at: At, create: CreateRoute<B, R>, write: CreateWrite<B, R>) {
  const def = { ...at, method: 'post', ...docOf(create), body: create.body } as const
  if (create.location !== undefined) {
    const location = create.location
    r.typed({ ...def, status: 201 }, async (c, { body, id }) => {
      const created = await write(actorOf(c), body, id)
      return c.body(null, 201, { Location: location(created) })
    })
    return
  }
  const form = create.form
  // untyped: checked by Form.of, as the list's above
  r.route({ ...def, response: form.schema, status: 201 }, async (c, { body, id }) =>
    c.json(form.wire(await write(actorOf(c), body, id), wireCtx(c)), 201),
  )
}

function updateRoute<B, R>(r: Router, at: At, update: UpdateRoute<B, R>, write: UpdateWrite<B, R>) {
  const { form, body } = update
  // untyped: checked by Form.of, as the list's above
  r.route(
    { ...at, method: 'put', ...docOf(update), body, response: form.schema },
    async (c, { id, body }) => c.json(form.wire(await write(actorOf(c), id, body), wireCtx(c))),
  )
}

function removeRoute(r: Router, at: At, remove: RemoveRoute, write: RemoveWrite) {
  r.typed(
    { ...at, method: 'delete', ...docOf(remove), query: IdsQuery, status: 204 },
    async (c, { query, id }) => {
      await write(actorOf(c), query.ids, id)
      return c.body(null, 204)
    },
  )
}
