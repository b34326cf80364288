import type { InValue } from '@libsql/client'
import type { Db, Statement } from './db.ts'
import type { Cursor, Filter, ListArgs, Page, Row, Shape, TextPage } from '../types.ts'
import { listExpressions, selectSql, type FieldTable, type RecordOf } from '../fields/table.ts'

/**
 * How one list reads from SQL. `fields` maps every filterable or sortable wire field to a SQL expression;
 * only these expressions ever reach the SQL text, values always travel as args.
 */
export interface ListSpec {
  /** `SELECT <columns>`: columns aliased to their wire names. */
  columns: string
  /** `FROM ... JOIN ...`. */
  from: string
  /** The tenant (and kind) condition, with `?` placeholders. */
  where: string
  fields: Record<string, string>
  /** Expression the default order (newest first) and startTime/endTime use. */
  timeField: string
  /** Expression of the record id, the last tie-breaker of every order. */
  idField: string
  /**
   * The FROM of the count when no filter reaches past the base table: joins only the page needs (names, counts)
   * cost the count a lookup per matching row. `baseAlias` is the base table's alias in `fields` and `where`.
   */
  count?: { from: string; baseAlias: string }
  /**
   * A count that reads a counter table instead of the rows (e.g. countedDevices), given the list's base args and
   * its filters; undefined when it cannot answer them exactly (the rows are counted then). Not used with a time range.
   */
  counter?: (
    baseArgs: readonly InValue[],
    filters: readonly Filter[],
  ) => { sql: string; args: InValue[] } | undefined
}

/** A list of a field table's records: it selects every field; its filters and sort keys are the table's. */
export interface TableListSpec<T extends FieldTable> extends ListSpec {
  /** The table the rows are read with: it types the page (`RecordOf<T>`). */
  table: T
}

/** The list of `table` over `from`/`where` (see ListSpec): columns and filter/sort expressions come from it. */
export function tableList<T extends FieldTable>(
  table: T,
  spec: Omit<ListSpec, 'columns' | 'fields'>,
): TableListSpec<T> {
  return { ...spec, table, columns: selectSql(table), fields: listExpressions(table) }
}

/**
 * The list of a tenant's records of `table` over `from`, whose alias is `x`: newest first, ties by id. `and` narrows
 * the tenant's rows further (` AND ...`, its args after the tenant's); `count` as in ListSpec.
 */
export const tenantList = <T extends FieldTable>(
  table: T,
  from: string,
  x: string,
  more: { and?: string; count?: ListSpec['count']; counter?: ListSpec['counter'] } = {},
) =>
  tableList(table, {
    from,
    where: `${x}.tenant_id = ?${more.and ?? ''}`,
    timeField: `${x}.create_at`,
    idField: `${x}.id`,
    ...(more.count ? { count: more.count } : {}),
    ...(more.counter ? { counter: more.counter } : {}),
  })

/**
 * Runs a page query and its count in one read transaction; startTime/endTime (epoch ms) bound `timeField`.
 * A table's list answers its records (selected by `selectSql`, so typed without parsing each row).
 */
export async function listPage<T extends FieldTable>(
  db: Db,
  spec: TableListSpec<T>,
  baseArgs: InValue[],
  q: ListArgs,
): Promise<Page<RecordOf<T>>>
export async function listPage(
  db: Db,
  spec: ListSpec,
  baseArgs: InValue[],
  q: ListArgs,
): Promise<Page>
export async function listPage(
  db: Db,
  spec: ListSpec,
  baseArgs: InValue[],
  q: ListArgs,
): Promise<Page> {
  const query = listQuery(spec, baseArgs, q)
  const [rows, count] = await db.read(query.statements)
  return query.page(rows!, count!)
}

/** listPage answering its items as the JSON text of their wire forms in `shape` (see ProjectedReads). */
export async function listPageText(
  db: Db,
  spec: ListSpec,
  baseArgs: InValue[],
  q: ListArgs,
  shape: Shape,
): Promise<TextPage> {
  const query = listQuery(spec, baseArgs, q)
  const read = await db.readProjected(query.statements, {
    at: 0,
    ...shape,
    limit: q.limit,
    keep: [CURSOR_SORT, CURSOR_ID],
  })
  return {
    items: read.text,
    count: countOf(read.results[1]!),
    next: read.read > q.limit && read.last ? cursorOf(read.last) : null,
  }
}

/**
 * The SQL conditions of `filters` over `fields` (wire field → SQL expression), with their args: `eq`, `like` (a
 * substring, `%` and `_` literal) and `in`. Filters on fields not in `fields` are ignored.
 */
export function filterConditions(
  fields: Record<string, string>,
  filters: readonly Filter[],
): { conds: string[]; args: InValue[] } {
  const conds: string[] = []
  const args: InValue[] = []
  for (const f of filters) {
    const expr = fields[f.field]
    if (!expr) continue
    if (f.op === 'eq') {
      conds.push(`${expr} = ?`)
      args.push(f.value as InValue)
    } else if (f.op === 'like') {
      conds.push(`${expr} LIKE ? ESCAPE '\\'`)
      args.push(`%${String(f.value).replace(/[\\%_]/g, (m) => `\\${m}`)}%`)
    } else {
      const values = f.value as InValue[]
      if (values.length === 0) continue
      conds.push(`${expr} IN (${values.map(() => '?').join(',')})`)
      args.push(...values)
    }
  }
  return { conds, args }
}

/** A list's two reads (the page and its count, to run in one read transaction) and how their rows make the page. */
export interface ListQuery {
  statements: [Statement, Statement]
  page(rows: Row[], count: Row[]): Page
}

/**
 * `fromCol >= startTime` and `toCol <= endTime` for the bounds `q` gives, with their arguments (a row's time: both
 * the same column; a span of times such as an event block: overlap or containment).
 */
export function timeBounds(q: ListArgs, fromCol: string, toCol: string) {
  const conds: string[] = []
  const args: InValue[] = []
  if (q.startTime !== undefined) {
    conds.push(`${fromCol} >= ?`)
    args.push(q.startTime)
  }
  if (q.endTime !== undefined) {
    conds.push(`${toCol} <= ?`)
    args.push(q.endTime)
  }
  return { conds, args }
}

/** The page query and count of `q` over `spec` (see listPage), to run where the caller reads more alongside. */
export function listQuery(spec: ListSpec, baseArgs: InValue[], q: ListArgs): ListQuery {
  const filtered = filterConditions(spec.fields, q.filters)
  const bounds = timeBounds(q, spec.timeField, spec.timeField)
  const conds = [spec.where, ...filtered.conds, ...bounds.conds]
  const args: InValue[] = [...baseArgs, ...filtered.args, ...bounds.args]
  const where = conds.map((c) => `(${c})`).join(' AND ')
  const baseOnly =
    spec.count &&
    q.filters.every((f) => spec.fields[f.field]?.startsWith(`${spec.count!.baseAlias}.`))
  const countFrom = baseOnly ? spec.count!.from : spec.from
  const sortExpr = sortExpression(spec, q.sort)
  const dir = q.order === 'asc' ? 'ASC' : q.order === 'desc' ? 'DESC' : q.sort ? 'ASC' : 'DESC'
  const known = q.filters.filter((f) => spec.fields[f.field])
  const counted =
    q.startTime === undefined && q.endTime === undefined
      ? spec.counter?.(baseArgs, known)
      : undefined
  const order = `ORDER BY ${sortExpr} ${dir}, ${spec.idField} ${dir}`
  // keyset: the rows after the cursor's (sort value, id); the record's own sort and time fields are never null
  const notNull = sortExpr === spec.timeField || sortExpr === spec.idField
  const after = q.after ? keyset(sortExpr, spec.idField, dir, q.after, notNull) : undefined
  const offset = q.after ? 0 : (q.page - 1) * q.limit
  const pageWhere = after ? `${where} AND ${after.sql}` : where
  return {
    statements: [
      {
        // one row more than the page: whether a next page exists
        sql: deferredJoin(spec, countFrom, {
          where: pageWhere,
          order,
          sortExpr,
          baseOnly: !!baseOnly,
        }),
        args: [...args, ...(after?.args ?? []), q.limit + 1, offset],
      },
      counted ?? { sql: `SELECT count(*) AS n ${countFrom} WHERE ${where}`, args },
    ],
    page(rows, count) {
      const items = rows.slice(0, q.limit)
      const last = items.at(-1)
      const next = rows.length > q.limit && last ? cursorOf(last) : null
      // the last column first: V8 undoes the newest property of an object cheaply and keeps it in fast mode, where
      // deleting any other property turns it into a slow dictionary just before it is serialized (deferredJoin
      // selects the cursor columns last, sort then id)
      for (const r of rows) {
        delete r[CURSOR_ID]
        delete r[CURSOR_SORT]
      }
      return { items, count: countOf(count), next }
    },
  }
}

/** The position of a page's last row (its cursor columns). */
const cursorOf = (last: Row): Cursor => ({
  v: last[CURSOR_SORT] as string | number | null,
  id: Number(last[CURSOR_ID]),
})

/** The total the count statement of a list read. */
const countOf = (count: Row[]) => Number(count[0]?.n ?? 0)

/** Columns every page row carries for its cursor (removed before the rows are answered). */
const CURSOR_SORT = '_cursor_sort'
const CURSOR_ID = '_cursor_id'

/**
 * The rows after `c` in the order `sortExpr dir, idField dir` (SQLite sorts NULL first ascending, last
 * descending). With a non-null column the predicate is a row-value comparison an index range serves.
 */
function keyset(
  sortExpr: string,
  idField: string,
  dir: 'ASC' | 'DESC',
  c: Cursor,
  notNull: boolean,
): { sql: string; args: InValue[] } {
  const cmp = dir === 'DESC' ? '<' : '>'
  if (c.v === null)
    return dir === 'DESC'
      ? { sql: `(${sortExpr} IS NULL AND ${idField} < ?)`, args: [c.id] }
      : {
          sql: `((${sortExpr} IS NULL AND ${idField} > ?) OR ${sortExpr} IS NOT NULL)`,
          args: [c.id],
        }
  const range = `(${sortExpr}, ${idField}) ${cmp} (?, ?)`
  if (notNull || dir === 'ASC') return { sql: `(${range})`, args: [c.v, c.id] }
  return { sql: `(${range} OR ${sortExpr} IS NULL)`, args: [c.v, c.id] }
}

/**
 * The page query. When the filters, the time field and the sort all live on the base table, the page's ids are
 * chosen first over the base table alone (`LIMIT ? OFFSET ?` steps through its index; skipped rows touch no join),
 * then only those rows are joined (`CROSS JOIN` keeps the chosen ids the outer loop): a deep page of a million
 * devices costs index steps, not a million joins. Otherwise the joins and the page run as one query.
 */
function deferredJoin(
  spec: ListSpec,
  countFrom: string,
  p: { where: string; order: string; sortExpr: string; baseOnly: boolean },
): string {
  const b = spec.count?.baseAlias
  const base = `${b}.`
  const deferred =
    b !== undefined &&
    p.baseOnly &&
    spec.from.startsWith(`${countFrom} `) &&
    spec.idField === `${b}.id` &&
    spec.timeField.startsWith(base) &&
    p.sortExpr.startsWith(base)
  const columns = `${spec.columns}, ${p.sortExpr} AS ${CURSOR_SORT}, ${spec.idField} AS ${CURSOR_ID}`
  if (!deferred) return `${columns} ${spec.from} WHERE ${p.where} ${p.order} LIMIT ? OFFSET ?`
  const ids = `SELECT ${b}.id AS page_id ${countFrom} WHERE ${p.where} ${p.order} LIMIT ? OFFSET ?`
  return `${columns} FROM (${ids}) page CROSS JOIN ${spec.from.slice('FROM '.length)} WHERE ${b}.id = page.page_id ${p.order}`
}

function sortExpression(spec: ListSpec, sort: string | undefined): string {
  if (!sort) return spec.timeField
  return spec.fields[sort] ?? (sort === 'id' ? spec.idField : spec.timeField)
}

/** `?, ?, ?` for an IN list. */
export const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ')
