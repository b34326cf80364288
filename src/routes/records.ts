/**
 * Route steps the resource modules share: a page of records through a serializer, a delete by `?ids=`, and the
 * five routes of a resource whose reads a variant may expand.
 */
import type { Context } from 'hono'
import type { z } from 'zod'
import type { ListArgs, Page as Found } from '../../store/types.ts'
import { actorOf, wireCtx, type AppEnv } from '../http/env.ts'
import { IdsQuery, listQuery, Page, pageOf, type FilterFields } from '../http/paging.ts'
import type { Router } from '../http/router.ts'
import type { Actor } from '../services/types.ts'
import type { RecordSerializer, WireCtx } from '../wire/shape.ts'

/** A response form: a zod object whose keys are the wire fields, in order (src/wire/shape.ts). */
export type WireForm = z.ZodObject

/** A page of records in the page envelope, each through `wire` (its form's serializer). */
export function pageIn<R, T>(
  { items, count }: Found<R>,
  wire: (record: R, ctx: WireCtx) => T,
  ctx: WireCtx,
  query: { page: number; limit: number },
) {
  return pageOf(
    items.map((x) => wire(x, ctx)),
    count,
    query,
  )
}

/** A page of records answered as JSON (pageIn). */
export function pageJson<R, T>(
  c: Context<AppEnv>,
  page: Found<R>,
  wire: (record: R, ctx: WireCtx) => T,
  query: { page: number; limit: number },
) {
  return c.json(pageIn(page, wire, wireCtx(c), query))
}

/** `DELETE path?ids=`: 204 once `write` removed them (all or none, as the service decides); `id` is the path's. */
export function removeRoute(
  r: Router,
  def: { path: string; tag: string; summary: string; description?: string },
  write: (a: Actor, ids: number[], id: number) => Promise<unknown>,
) {
  r.typed({ ...def, method: 'delete', query: IdsQuery, status: 204 }, async (c, { id, query }) => {
    await write(actorOf(c), query.ids, id)
    return c.body(null, 204)
  })
}

/**
 * The five routes of a resource whose reads a variant may expand (products, groups): list, detail, create, edit,
 * delete. `Stored` is what the store and service answer, `R` what `expand` makes of it (the record the variant's
 * serializers take), `D`/`L` the detail and list forms, `C`/`U` the create and edit bodies as validated.
 */
export interface ExpandedResource<Stored, R, D extends WireForm, L extends WireForm, C, U> {
  tag: string
  /** The collection's path; a record's is path/:id. */
  path: string
  summaries: { list: string; detail: string; create: string; update: string; remove: string }
  /** A note on the edit route, if any. */
  updateNote?: string
  detail: D
  list: L
  create: z.ZodType<C>
  update: z.ZodType<U>
  filters: FilterFields
  wire: RecordSerializer<R, { detail: D; list: L }>
  expand(tenant: string, rows: Stored[]): Promise<R[]>
  read: {
    list(tenant: string, q: ListArgs): Promise<Found<Stored>>
    get(tenant: string, id: number): Promise<Stored>
  }
  write: {
    create(a: Actor, body: C): Promise<Stored>
    update(a: Actor, id: number, body: U): Promise<Stored>
    remove(a: Actor, ids: number[]): Promise<unknown>
  }
}

export function expandedRoutes<Stored, R, D extends WireForm, L extends WireForm, C, U>(
  r: Router,
  res: ExpandedResource<Stored, R, D, L, C, U>,
) {
  const { tag, path, summaries, wire, read, write } = res
  const one = async (tenant: string, row: Stored) => (await res.expand(tenant, [row]))[0]!
  r.typed(
    {
      method: 'get',
      path,
      tag,
      summary: summaries.list,
      query: listQuery(res.filters),
      response: Page(res.list),
    },
    async (c, { query }) => {
      const { items, count } = await read.list(c.get('tenant'), query)
      return pageJson(
        c,
        { items: await res.expand(c.get('tenant'), items), count },
        wire.list,
        query,
      )
    },
  )

  r.typed(
    { method: 'get', path: `${path}/:id`, tag, summary: summaries.detail, response: res.detail },
    async (c, { id }) => {
      const record = await one(c.get('tenant'), await read.get(c.get('tenant'), id))
      return c.json(wire.detail(record, wireCtx(c)))
    },
  )

  r.typed(
    {
      method: 'post',
      path,
      tag,
      summary: summaries.create,
      body: res.create,
      response: res.detail,
      status: 201,
    },
    async (c, { body }) => {
      const created = await one(c.get('tenant'), await write.create(actorOf(c), body))
      return c.json(wire.detail(created, wireCtx(c)), 201)
    },
  )

  r.typed(
    {
      method: 'put',
      path: `${path}/:id`,
      tag,
      summary: summaries.update,
      ...(res.updateNote === undefined ? {} : { description: res.updateNote }),
      body: res.update,
      response: res.detail,
    },
    async (c, { id, body }) => {
      const updated = await write.update(actorOf(c), id, body)
      return c.json(wire.detail(await one(c.get('tenant'), updated), wireCtx(c)))
    },
  )

  removeRoute(r, { path, tag, summary: summaries.remove }, (a, ids) => write.remove(a, ids))
}

/**
 * The members of a record (a group's devices, a policy's devices, a device's policies): `GET path` a page of
 * them, `POST path` adds some (201 with what `add.wire` makes of `add.write`'s answer), `DELETE path?ids=`
 * removes some. `path` has the record's `:id`.
 */
export interface Members<
  Q extends ListArgs,
  M,
  L extends z.ZodType,
  B,
  A extends object,
  S extends z.ZodType,
> {
  tag: string
  path: string
  list: {
    summary: string
    query: z.ZodType<Q>
    form: L
    read(tenant: string, id: number, q: Q): Promise<Found<M>>
    wire(member: M, ctx: WireCtx): z.output<L>
  }
  add: {
    summary: string
    description: string
    body: z.ZodType<B>
    response: S
    write(a: Actor, id: number, body: B): Promise<A>
    wire(answer: A, ctx: WireCtx): z.output<S>
  }
  remove: { summary: string; write(a: Actor, id: number, ids: number[]): Promise<unknown> }
}

export function memberRoutes<
  Q extends ListArgs,
  M,
  L extends z.ZodType,
  B,
  A extends object,
  S extends z.ZodType,
>(r: Router, { tag, path, list, add, remove }: Members<Q, M, L, B, A, S>) {
  r.typed(
    {
      method: 'get',
      path,
      tag,
      summary: list.summary,
      query: list.query,
      response: Page(list.form),
    },
    async (c, { id, query }) =>
      pageJson(c, await list.read(c.get('tenant'), id, query), list.wire, query),
  )

  r.typed(
    {
      method: 'post',
      path,
      tag,
      summary: add.summary,
      description: add.description,
      body: add.body,
      response: add.response,
      status: 201,
    },
    async (c, { id, body }) =>
      c.json(add.wire(await add.write(actorOf(c), id, body), wireCtx(c)), 201),
  )

  removeRoute(r, { path, tag, summary: remove.summary }, (a, ids, id) => remove.write(a, id, ids))
}
