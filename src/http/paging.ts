import { z } from 'zod'
import { parseTime, WIRE_TIME, WIRE_TIME_DOC } from '../kernel/time.ts'
import { likeText } from '../schemas/common.ts'
import type { Cursor, ListArgs, Filter, FieldType, JsonText } from '../../store/list.ts'

export const MAX_LIMIT = 1000

/**
 * An integer query parameter: decimal digits (optionally signed) read as a number. Built as a preprocess so the
 * OpenAPI document shows what callers send, an integer (with its bounds), rather than a string pattern.
 */
const intText = (name: string, min?: number) => {
  const int = z
    .number({ error: `${name} must be an integer` })
    .int({ error: `${name} must be an integer` })
  return z.preprocess(
    (v) => (typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v),
    min === undefined ? int : int.min(min, { error: `${name} must be at least ${min}` }),
  )
}

const page = intText('_page', 1).optional()
/** Any limit from 1 is accepted; above MAX_LIMIT it is clamped. */
const limit = intText('_limit', 1)
  .transform((n) => Math.min(n, MAX_LIMIT))
  .optional()
const intList = z
  .string()
  .regex(/^\d+(,\d+)*$/, 'must be integers separated by commas')
  .transform((s) => [...new Set(s.split(',').map(Number))])
const timeText = z.string().regex(WIRE_TIME, 'must be YYYY-MM-DD HH:MM:SS').meta(WIRE_TIME_DOC)

/**
 * The wire form of a Cursor: base64url of JSON `{s, v, i}`, `s` naming the sort and order it was made for, so a
 * cursor of another order is refused rather than read as a wrong position. Opaque to callers.
 */
export function encodeCursor(c: Cursor, sort: string | undefined, order: string | undefined) {
  return toBase64url(JSON.stringify({ s: sortTag(sort, order), v: c.v, i: c.id }))
}

// Web APIs rather than Node's Buffer here: the console type-checks the schemas that import this module (their
// list queries), without Node's types
const utf8 = new TextEncoder()
const fromUtf8 = new TextDecoder()

/** Base64url of `text`'s UTF-8 bytes, without padding (as Buffer's 'base64url'). */
function toBase64url(text: string): string {
  let binary = ''
  for (const b of utf8.encode(text)) binary += String.fromCharCode(b)
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/** The text whose UTF-8 bytes `b64` holds (base64url, padded or not); throws when it is not base64. */
function fromBase64url(b64: string): string {
  const binary = atob(b64.replace(/-/g, '+').replace(/_/g, '/'))
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return fromUtf8.decode(bytes)
}

/** The sort and order a cursor is made for, as it carries them. */
const sortTag = (sort: string | undefined, order: string | undefined) =>
  `${sort ?? ''}:${order ?? ''}`

/** A cursor's text → its position and the sort tag it was made for; undefined when it is not one. */
function decodeCursor(text: string): { cursor: Cursor; tag: string } | undefined {
  if (text.length > 2048 || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined
  let raw: unknown
  try {
    raw = JSON.parse(fromBase64url(text))
  } catch {
    return undefined
  }
  if (raw === null || typeof raw !== 'object') return undefined
  const { s, v, i } = raw as { s?: unknown; v?: unknown; i?: unknown }
  const okValue =
    v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))
  if (typeof s !== 'string' || !okValue || !Number.isSafeInteger(i)) return undefined
  return { cursor: { v: v, id: i as number }, tag: s }
}

/** The wire `startTime`/`endTime` of a list query, kept until resolveListTimes knows the caller's time zone. */
const WIRE_TIMES = Symbol('wireTimes')

/** What a list query schema outputs: the store's ListArgs, plus every parameter as given. */
export type ListQueryArgs = ListArgs & {
  raw: Record<string, unknown>
  [WIRE_TIMES]?: { startTime?: string; endTime?: string }
}

/**
 * Sets `startTime`/`endTime` of a parsed list query (ListArgs: epoch ms) from its wire times
 * (`YYYY-MM-DD HH:MM:SS` in `tz`, the service's TIMEZONE). The router calls it on every parsed query; values that
 * are not list queries are left alone.
 */
export function resolveListTimes(parsed: unknown, tz: string): void {
  if (parsed === null || typeof parsed !== 'object' || !(WIRE_TIMES in parsed)) return
  const q = parsed as ListQueryArgs
  const wire = q[WIRE_TIMES]!
  const at = (text: string | undefined) =>
    text === undefined ? undefined : (parseTime(text, tz) ?? undefined)
  q.startTime = at(wire.startTime)
  q.endTime = at(wire.endTime)
}

/** The filterable (and sortable) fields of one list: wire field name → its type. */
export type FilterFields = Record<string, FieldType>

/**
 * The query schema of a list: `_page`, `_limit`, `_sort`, `_order`, and for each field `f`:
 * `f` (exact), `f_like` (case-insensitive substring), `f_in` (comma list). With `times`, `startTime`/`endTime`.
 * Unknown parameters are ignored. `sorts`: more sort keys that are not filters (the store's list spec must know
 * them). Output: the store's ListArgs, its times resolved by resolveListTimes.
 */
export function listQuery<const F extends FilterFields>(
  fields: F,
  opts: { times?: boolean; extra?: z.ZodRawShape; sorts?: readonly string[] } = {},
) {
  const shape: Record<string, z.ZodType> = {
    _page: page,
    _limit: limit,
    _sort: z
      .enum(['id', 'createAt', 'updateAt', ...(opts.sorts ?? []), ...Object.keys(fields)] as [
        string,
        ...string[],
      ])
      .optional(),
    _order: z.enum(['asc', 'desc']).optional(),
    _after: z.string().optional().meta({
      description:
        'Start after this position: the `meta.next` of the page before (keyset paging; same _sort, _order and filters; not with _page > 1)',
    }),
  }
  for (const [name, type] of Object.entries(fields)) {
    shape[name] = type === 'int' ? intText(name).optional() : z.string().optional()
    shape[`${name}_like`] = likeText()
    shape[`${name}_in`] = type === 'int' ? intList.optional() : z.string().optional()
  }
  if (opts.times) {
    shape.startTime = timeText.optional()
    shape.endTime = timeText.optional()
  }
  Object.assign(shape, opts.extra ?? {})
  return z.object(shape).transform((q, ctx): ListQueryArgs => {
    const filters: Filter[] = []
    for (const [name, type] of Object.entries(fields)) {
      const eq = q[name]
      const like = q[`${name}_like`]
      const inList = q[`${name}_in`]
      if (eq !== undefined) filters.push({ field: name, op: 'eq', value: eq as string | number })
      if (typeof like === 'string' && like !== '')
        filters.push({ field: name, op: 'like', value: like })
      if (inList !== undefined) {
        const values = Array.isArray(inList)
          ? inList
          : String(inList as string)
              .split(',')
              .filter(Boolean)
        filters.push({ field: name, op: 'in', value: type === 'int' ? values.map(Number) : values })
      }
    }
    const out: ListQueryArgs = {
      page: (q._page as number | undefined) ?? 1,
      limit: (q._limit as number | undefined) ?? 10,
      sort: q._sort as string | undefined,
      order: q._order as 'asc' | 'desc' | undefined,
      filters,
      raw: q,
    }
    // an empty _after is no cursor, as an empty filter is no filter
    if (typeof q._after === 'string' && q._after !== '') {
      const decoded = decodeCursor(q._after)
      const problem = !decoded
        ? '_after is not a cursor this service gave (meta.next)'
        : decoded.tag !== sortTag(out.sort, out.order)
          ? '_after was made for another _sort or _order'
          : out.page > 1
            ? '_after starts a page by itself: leave out _page'
            : undefined
      if (problem) {
        ctx.addIssue({ code: 'custom', path: ['_after'], message: problem })
        return z.NEVER
      }
      out.after = decoded!.cursor
    }
    const startTime = q.startTime as string | undefined
    const endTime = q.endTime as string | undefined
    if (startTime !== undefined || endTime !== undefined) out[WIRE_TIMES] = { startTime, endTime }
    return out
  })
}

/** `?ids=1,2,3` of deletes. */
export const IdsQuery = z.object({ ids: intList })

/**
 * The page envelope of every list; `next` (a list with cursors): `meta.next`, the cursor of the page after this
 * one, or null on the last page.
 */
export function pageOf<T>(
  items: T[],
  count: number,
  args: { page: number; limit: number; sort?: string; order?: string },
  next?: Cursor | null,
) {
  return { items, meta: metaOf(count, args, next) }
}

/**
 * pageOf's JSON text, of items given as the JSON text of their array (a TextPage's): a string, or UTF-8 bytes where
 * the items are bytes.
 */
export function pageTextOf(
  items: JsonText,
  count: number,
  args: { page: number; limit: number; sort?: string; order?: string },
  next?: Cursor | null,
): JsonText {
  const meta = JSON.stringify(metaOf(count, args, next))
  if (typeof items === 'string') return `{"items":${items},"meta":${meta}}`
  const tail = utf8.encode(`,"meta":${meta}}`)
  const out = new Uint8Array(ITEMS_KEY.length + items.length + tail.length)
  out.set(ITEMS_KEY)
  out.set(items, ITEMS_KEY.length)
  out.set(tail, ITEMS_KEY.length + items.length)
  return out
}

const ITEMS_KEY = utf8.encode('{"items":')

function metaOf(
  count: number,
  args: { page: number; limit: number; sort?: string; order?: string },
  next?: Cursor | null,
) {
  const meta = { count, limit: args.limit, page: args.page }
  if (next === undefined) return meta
  return { ...meta, next: next === null ? null : encodeCursor(next, args.sort, args.order) }
}

export const PageMeta = z.object({
  count: z.number().int(),
  limit: z.number().int(),
  page: z.number().int(),
  next: z
    .string()
    .nullable()
    .optional()
    .meta({ description: 'the `_after` of the next page (null: this is the last page)' }),
})
export const Page = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), meta: PageMeta })
