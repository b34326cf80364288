import { z } from 'zod'
import { TIME_PATTERN } from '../kernel/time.ts'
import type { ListArgs, Filter, FieldType } from '../../store/types.ts'

export const MAX_LIMIT = 1000

const intText = (name: string) =>
  z
    .string()
    .regex(/^-?\d+$/, `${name} must be an integer`)
    .transform(Number)

const page = intText('_page').pipe(z.number().int().min(1, '_page must be at least 1')).optional()
const limit = intText('_limit')
  .pipe(z.number().int().min(1, '_limit must be at least 1'))
  .transform((n) => Math.min(n, MAX_LIMIT))
  .optional()
const intList = z
  .string()
  .regex(/^\d+(,\d+)*$/, 'must be integers separated by commas')
  .transform((s) => [...new Set(s.split(',').map(Number))])
const timeText = z.string().regex(TIME_PATTERN, 'must be YYYY-MM-DD HH:MM:SS')

/** The filterable (and sortable) fields of one list: wire field name → its type. */
export type FilterFields = Record<string, FieldType>

/**
 * The query schema of a list (CONTRACT §4): `_page`, `_limit`, `_sort`, `_order`, and for each field `f`:
 * `f` (exact), `f_like` (case-insensitive substring), `f_in` (comma list). With `times`, `startTime`/`endTime`.
 * Unknown parameters are ignored. Output: the store's ListArgs.
 */
export function listQuery<const F extends FilterFields>(
  fields: F,
  opts: { times?: boolean; extra?: z.ZodRawShape } = {},
) {
  const shape: Record<string, z.ZodType> = {
    _page: page,
    _limit: limit,
    _sort: z
      .enum(['id', 'createAt', 'updateAt', ...Object.keys(fields)] as [string, ...string[]])
      .optional(),
    _order: z.enum(['asc', 'desc']).optional(),
  }
  for (const [name, type] of Object.entries(fields)) {
    shape[name] = type === 'int' ? intText(name).optional() : z.string().optional()
    shape[`${name}_like`] = z.string().optional()
    shape[`${name}_in`] = type === 'int' ? intList.optional() : z.string().optional()
  }
  if (opts.times) {
    shape.startTime = timeText.optional()
    shape.endTime = timeText.optional()
  }
  Object.assign(shape, opts.extra ?? {})
  return z.object(shape).transform((q): ListArgs & { raw: Record<string, unknown> } => {
    const filters: Filter[] = []
    for (const [name, type] of Object.entries(fields)) {
      const eq = q[name]
      const like = q[`${name}_like`]
      const inList = q[`${name}_in`]
      if (eq !== undefined) filters.push({ field: name, op: 'eq', value: eq as string | number })
      if (typeof like === 'string' && like !== '')
        filters.push({ field: name, op: 'like', value: like })
      if (inList !== undefined) {
        const values = Array.isArray(inList) ? inList : String(inList).split(',').filter(Boolean)
        filters.push({ field: name, op: 'in', value: type === 'int' ? values.map(Number) : values })
      }
    }
    return {
      page: (q._page as number | undefined) ?? 1,
      limit: (q._limit as number | undefined) ?? 10,
      sort: q._sort as string | undefined,
      order: q._order as 'asc' | 'desc' | undefined,
      filters,
      startTime: q.startTime as string | undefined,
      endTime: q.endTime as string | undefined,
      raw: q,
    }
  })
}

/** `?ids=1,2,3` of deletes (CONTRACT §4). */
export const IdsQuery = z.object({ ids: intList })

/** The page envelope of every list (spec: Conventions 6). */
export function pageOf<T>(items: T[], count: number, args: { page: number; limit: number }) {
  return { items, meta: { count, limit: args.limit, page: args.page } }
}

export const PageMeta = z.object({
  count: z.number().int(),
  limit: z.number().int(),
  page: z.number().int(),
})
export const Page = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), meta: PageMeta })
