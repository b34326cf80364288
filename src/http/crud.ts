import type { z } from 'zod'
import type { Context } from 'hono'
import type { Page as Found } from '../../store/types.ts'
import type { Row, WireCtx } from '../wire/shape.ts'
import { actorOf, wireCtx, type AppEnv } from './env.ts'
import { IdsQuery, Page, pageOf } from './paging.ts'
import type { RouteDef, Router } from './router.ts'

/** The services' view of the caller (src/http/env.ts `actorOf`). */
export type Actor = ReturnType<typeof actorOf>

/**
 * What a route answers: a response schema and the serializer that writes it from a record `R`. `Form.of`
 * checks at compile time that the serializer answers the schema's output, as `Router.typed` checks a handler's
 * answer; a crud route can only answer through a Form, so its answer is checked as a typed route's is.
 */
export class Form<R> {
  private constructor(
    readonly schema: z.ZodType,
    readonly wire: (record: R, ctx: WireCtx) => unknown,
  ) {}

  static of<S extends z.ZodType, R>(schema: S, wire: (record: R, ctx: WireCtx) => z.output<S>) {
    return new Form<R>(schema, wire)
  }

  /** A page of records (`{items, meta}`), each item in `item`'s form; `args` gives the page's meta. */
  static page<R>(item: Form<R>, args: { page: number; limit: number }) {
    return new Form<Found<R>>(Page(item.schema), ({ items, count }, ctx) =>
      pageOf(
        items.map((x) => item.wire(x, ctx)),
        count,
        args,
      ),
    )
  }

  /**
   * A form whose serializer answers untyped rows (`createSerializer`), as `Router.route` answers any Response:
   * for resources whose store still returns `Row`. Moves to `Form.of` once the store returns typed records.
   */
  static unchecked(schema: z.ZodType, wire: (row: object, ctx: WireCtx) => Row) {
    return new Form<object>(schema, wire)
  }
}

/** What a declaration may document or require on any of its routes (see RouteDef). */
type Doc = Pick<RouteDef, 'summary' | 'description' | 'admin' | 'errors'>

/** What paging needs of a list query (listQuery's output has it). */
type PageArgs = { page: number; limit: number }

export interface ListRoute<Q extends PageArgs, R> extends Doc {
  query: z.ZodType<Q>
  /** The form of one item of the page. */
  form: Form<R>
  /** The page asked for (default: the store's `list`); `id` is the path's `:id` (a nested collection's parent). */
  read?: (tenant: string, query: Q, id: number) => Promise<Found<R>>
}

export interface DetailRoute<R> extends Doc {
  form: Form<R>
  /** The record (default: the store's `get`). */
  read?: (tenant: string, id: number) => Promise<R>
}

/** 201 with the created record in `form`, or 201 with an empty body and the record's URL in `Location`. */
type Created<R> = { form: Form<R>; location?: never } | { location: (created: R) => string }

export type CreateRoute<B, R> = Doc &
  Created<R> & {
    body: z.ZodType<B>
    /** Creates the record (default: the service's `create`); `id` as in ListRoute. Declared before `location`. */
    write?: (actor: Actor, body: B, id: number) => Promise<R>
  }

export interface UpdateRoute<B, R> extends Doc {
  body: z.ZodType<B>
  form: Form<R>
  /** Edits the record (default: the service's `update`). */
  write?: (actor: Actor, id: number, body: B) => Promise<R>
}

export interface RemoveRoute extends Doc {
  /** Deletes `?ids=` (default: the service's `remove`); `id` as in ListRoute. Answers 204. */
  write?: (actor: Actor, ids: number[], id: number) => Promise<unknown>
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

/**
 * The default call of a route (the store's or service's, given exactly its own arguments: a nested path's `id`
 * is not passed on); a route with no call of its own and no default is a declaration error, at startup.
 */
function need<F>(call: F | undefined, route: string): F {
  if (!call) throw new Error(`crud: ${route} has no call (its own, or the store's or service's)`)
  return call
}

/** A page of records in `form`. */
export function pageIn<R>(
  c: Context<AppEnv>,
  form: Form<R>,
  { items, count }: Found<R>,
  args: { page: number; limit: number },
) {
  const ctx = wireCtx(c)
  return pageOf(
    items.map((x) => form.wire(x, ctx)),
    count,
    args,
  )
}

/** Registers the routes of `spec` on `r` (see CrudSpec) and answers `r`, for the resource's other routes. */
export function crud<Q extends PageArgs, RL, RD, BC, RC, BU, RU>(
  r: Router,
  spec: CrudSpec<Q, RL, RD, BC, RC, BU, RU>,
): Router {
  const { tag, path, store = {}, service = {} } = spec
  const admin = spec.admin ? { admin: true } : {}
  const at = { tag, path, ...admin }
  const one = { ...at, path: `${path}/:id` }
  if (spec.list) {
    const { form, query } = spec.list
    const read =
      spec.list.read ?? need(store.list && ((t: string, q: Q) => store.list!(t, q)), `GET ${path}`)
    r.route(
      { ...at, method: 'get', ...docOf(spec.list), query, response: Page(form.schema) },
      async (c, { query, id }) =>
        c.json(pageIn(c, form, await read(c.get('tenant'), query, id), query)),
    )
  }
  if (spec.detail) {
    const { form } = spec.detail
    const read =
      spec.detail.read ??
      need(store.get && ((t: string, id: number) => store.get!(t, id)), `GET ${path}/:id`)
    r.route(
      { ...one, method: 'get', ...docOf(spec.detail), response: form.schema },
      async (c, { id }) => c.json(form.wire(await read(c.get('tenant'), id), wireCtx(c))),
    )
  }
  if (spec.create)
    createRoute(
      r,
      at,
      spec.create,
      spec.create.write ??
        need(service.create && ((a: Actor, b: BC) => service.create!(a, b)), `POST ${path}`),
    )
  if (spec.update) {
    const { form, body } = spec.update
    const write =
      spec.update.write ??
      need(
        service.update && ((a: Actor, id: number, b: BU) => service.update!(a, id, b)),
        `PUT ${path}/:id`,
      )
    r.route(
      { ...one, method: 'put', ...docOf(spec.update), body, response: form.schema },
      async (c, { id, body }) => c.json(form.wire(await write(actorOf(c), id, body), wireCtx(c))),
    )
  }
  if (spec.remove) {
    const write =
      spec.remove.write ??
      need(
        service.remove && ((a: Actor, ids: number[]) => service.remove!(a, ids)),
        `DELETE ${path}`,
      )
    r.route(
      { ...at, method: 'delete', ...docOf(spec.remove), query: IdsQuery, status: 204 },
      async (c, { query, id }) => {
        await write(actorOf(c), query.ids, id)
        return c.body(null, 204)
      },
    )
  }
  return r
}

function createRoute<B, R>(
  r: Router,
  at: { tag: string; path: string; admin?: boolean },
  create: CreateRoute<B, R>,
  write: (actor: Actor, body: B, id: number) => Promise<R>,
) {
  const def = { ...at, method: 'post', ...docOf(create), body: create.body } as const
  if (create.location !== undefined) {
    const location = create.location
    r.route({ ...def, status: 201 }, async (c, { body, id }) => {
      const created = await write(actorOf(c), body, id)
      return c.body(null, 201, { Location: location(created) })
    })
    return
  }
  const form = create.form
  r.route({ ...def, response: form.schema, status: 201 }, async (c, { body, id }) =>
    c.json(form.wire(await write(actorOf(c), body, id), wireCtx(c)), 201),
  )
}
