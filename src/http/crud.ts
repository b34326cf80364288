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
  /** The page asked for; `id` is the path's `:id` (a nested collection's parent), 0 without one. */
  read: (tenant: string, query: Q, id: number) => Promise<Found<R>>
}

export interface DetailRoute<R> extends Doc {
  form: Form<R>
  read: (tenant: string, id: number) => Promise<R>
}

/** 201 with the created record in `form`, or 201 with an empty body and the record's URL in `Location`. */
type Created<R> = { form: Form<R>; location?: never } | { location: (created: R) => string }

export type CreateRoute<B, R> = Doc &
  Created<R> & {
    body: z.ZodType<B>
    /** Creates the record; `id` is the path's `:id` (a nested collection's parent), 0 without one. */
    write: (actor: Actor, body: B, id: number) => Promise<R>
  }

export interface UpdateRoute<B, R> extends Doc {
  body: z.ZodType<B>
  form: Form<R>
  write: (actor: Actor, id: number, body: B) => Promise<R>
}

export interface RemoveRoute extends Doc {
  /** Deletes `?ids=` (all or none, as the service decides); `id` as in ListRoute. 204. */
  write: (actor: Actor, ids: number[], id: number) => Promise<unknown>
}

/**
 * One resource's standard routes, each optional: `list` (GET path, a page), `detail` (GET path/:id),
 * `create` (POST path, 201), `update` (PUT path/:id), `remove` (DELETE path?ids=, 204). Registered in that
 * order. Reads call the repositories, writes the services, through the declaration's functions.
 */
export interface CrudSpec<
  Q extends PageArgs,
  RL,
  RD,
  BC,
  RC,
  BU,
  RU,
> {
  tag: string
  /** The collection's path (`/data_points`, or nested: `/devices/:id/subscriptions`); a record's is path/:id. */
  path: string
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
export function crud<
  Q extends PageArgs,
  RL,
  RD,
  BC,
  RC,
  BU,
  RU,
>(r: Router, spec: CrudSpec<Q, RL, RD, BC, RC, BU, RU>): Router {
  const { tag, path, list, detail, create, update, remove } = spec
  const at = { tag, path }
  const one = { tag, path: `${path}/:id` }
  if (list)
    r.route(
      { ...at, method: 'get', ...docOf(list), query: list.query, response: Page(list.form.schema) },
      async (c, { query, id }) =>
        c.json(pageIn(c, list.form, await list.read(c.get('tenant'), query, id), query)),
    )
  if (detail)
    r.route(
      { ...one, method: 'get', ...docOf(detail), response: detail.form.schema },
      async (c, { id }) =>
        c.json(detail.form.wire(await detail.read(c.get('tenant'), id), wireCtx(c))),
    )
  if (create) createRoute(r, at, create)
  if (update)
    r.route(
      { ...one, method: 'put', ...docOf(update), body: update.body, response: update.form.schema },
      async (c, { id, body }) =>
        c.json(update.form.wire(await update.write(actorOf(c), id, body), wireCtx(c))),
    )
  if (remove)
    r.route(
      { ...at, method: 'delete', ...docOf(remove), query: IdsQuery, status: 204 },
      async (c, { query, id }) => {
        await remove.write(actorOf(c), query.ids, id)
        return c.body(null, 204)
      },
    )
  return r
}

function createRoute<B, R>(
  r: Router,
  at: { tag: string; path: string },
  create: CreateRoute<B, R>,
) {
  const def = { ...at, method: 'post', ...docOf(create), body: create.body } as const
  if (create.location !== undefined) {
    const location = create.location
    r.route({ ...def, status: 201 }, async (c, { body, id }) => {
      const created = await create.write(actorOf(c), body, id)
      return c.body(null, 201, { Location: location(created) })
    })
    return
  }
  const form = create.form
  r.route({ ...def, response: form.schema, status: 201 }, async (c, { body, id }) =>
    c.json(form.wire(await create.write(actorOf(c), body, id), wireCtx(c)), 201),
  )
}
