/** Route steps the resource modules share: a page of records through a serializer, a delete by `?ids=`. */
import type { Context } from 'hono'
import type { Page as Found } from '../../store/types.ts'
import { actorOf, wireCtx, type AppEnv } from '../http/env.ts'
import { IdsQuery, pageOf } from '../http/paging.ts'
import type { Router } from '../http/router.ts'
import type { Actor } from '../services/types.ts'
import type { WireCtx } from '../wire/shape.ts'

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
