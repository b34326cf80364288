import type { InStatement, InValue } from '@libsql/client'
import type { Db } from './db.ts'
import type { Shape } from '../meta/table.ts'
import type { JsonText } from '../list.ts'
import { NotFound, Referenced } from '../errors.ts'
import { marks } from './list.ts'
import { selectSql, type FieldTable, type RecordOf } from '../fields/table.ts'

/** Helpers every record repository shares: writes from a field table's columns, checked deletes. */

/**
 * `col = ?, ...` for the fields of `patch` that `cols` knows (wire field → column); the SQL text comes only from
 * `cols`. Fields listed in `json` are stored as JSON text.
 */
export function setClause(
  cols: Record<string, string>,
  fields: object,
  json: readonly string[] = [],
) {
  const patch = fields as Record<string, unknown>
  const sets: string[] = []
  const args: InValue[] = []
  for (const [field, column] of Object.entries(cols)) {
    if (!(field in patch) || patch[field] === undefined) continue
    sets.push(`${column} = ?`)
    args.push(toValue(patch[field], json.includes(field)))
  }
  return { sql: sets.join(', '), args }
}

/** `INSERT INTO table (cols) VALUES (?...)` of `record` over every column of `cols` plus the fixed columns. */
export function insertOf(
  table: string,
  cols: Record<string, string>,
  record: Record<string, unknown>,
  fixed: Record<string, InValue>,
  json: readonly string[] = [],
): { sql: string; args: InValue[] } {
  const names = [...Object.keys(fixed), ...Object.values(cols)]
  const args = [
    ...Object.values(fixed),
    ...Object.keys(cols).map((f) => toValue(record[f], json.includes(f))),
  ]
  return { sql: `INSERT INTO ${table} (${names.join(', ')}) VALUES (${marks(names.length)})`, args }
}

function toValue(v: unknown, json: boolean): InValue {
  if (v === undefined || v === null) return null
  if (json) return JSON.stringify(v)
  return v as InValue
}

/** A record a delete found still used: its id, name and the non-zero counts of its uses (label, count). */
export interface StillUsed {
  id: number
  name: string
  uses: Array<[label: string, count: number]>
}

export interface DeleteSpec {
  table: string
  /** Column naming a record in the refusal message. */
  nameColumn: string
  /** What still uses a record: label → `count(*)` subquery over the record's alias `x`. */
  uses: Record<string, string>
  /** The args of the `?` in `uses`, given the ids being deleted. */
  usesArgs?: (ids: number[]) => InValue[]
  /** A fixed column value of the records this delete may take (e.g. the devices table's `kind`). */
  scope?: { column: string; value: InValue }
  /** Statements run before the DELETE in the same batch (link rows), over the same ids. */
  before?: (ids: number[]) => InStatement[]
  /** NotFound's message, given the ids that are not the tenant's (none by default). */
  missing?: (ids: number[]) => string
  /** Referenced's message (default: `<id> (<name>) is still used by <count> <label>, ...`). */
  refused?: (r: StillUsed) => string
}

const usedBy = (r: StillUsed) =>
  `${r.id} (${r.name}) is still used by ${r.uses.map(([l, n]) => `${n} ${l}`).join(', ')}`

/**
 * Deletes all of `ids` or none: NotFound `ids` when one is not the tenant's, Referenced `ids` when one is still
 * used (a count of `uses` above 0). The check and the delete are one helper for every repository that refuses
 * to delete what is still used.
 */
export async function deleteChecked(db: Db, tenant: string, spec: DeleteSpec, ids: number[]) {
  const uses = Object.entries(spec.uses)
  const counts = uses.map(([label, sql]) => `(${sql}) AS "${label}"`).join(', ')
  const scope = spec.scope
    ? { sql: ` AND x.${spec.scope.column} = ?`, args: [spec.scope.value] }
    : undefined
  const rows = await db.all(
    `SELECT x.id AS id, x.${spec.nameColumn} AS name${counts ? `, ${counts}` : ''}
     FROM ${spec.table} x WHERE x.tenant_id = ?${scope?.sql ?? ''} AND x.id IN (${marks(ids.length)})`,
    [...(spec.usesArgs?.(ids) ?? []), tenant, ...(scope?.args ?? []), ...ids],
  )
  if (rows.length !== ids.length) {
    const found = new Set(rows.map((r) => Number(r.id)))
    const missing = ids.filter((i) => !found.has(i))
    throw new NotFound('ids', spec.missing?.(missing))
  }
  for (const r of rows) {
    const used: StillUsed = {
      id: Number(r.id),
      name: String(r.name),
      uses: uses.flatMap(([label]): Array<[string, number]> =>
        Number(r[label]) > 0 ? [[label, Number(r[label])]] : [],
      ),
    }
    if (used.uses.length) throw new Referenced('ids', (spec.refused ?? usedBy)(used))
  }
  await db.batch([
    ...(spec.before?.(ids) ?? []),
    {
      sql: `DELETE FROM ${spec.table} WHERE tenant_id = ? AND id IN (${marks(ids.length)})`,
      args: [tenant, ...ids],
    },
  ])
}

/** The record of `table` that `fromWhere` (`FROM ... WHERE ...`) finds, or undefined; selected, not parsed. */
export async function readRecord<T extends FieldTable>(
  db: Db,
  table: T,
  fromWhere: string,
  args: InValue[],
): Promise<RecordOf<T> | undefined> {
  return (await db.one(`${selectSql(table)} ${fromWhere}`, args)) as RecordOf<T> | undefined
}

/** readRecord as the JSON text of its wire form in `shape` (see ProjectedReads), or undefined. */
export async function readRecordText(
  db: Db,
  table: FieldTable,
  fromWhere: string,
  args: InValue[],
  shape: Shape,
): Promise<JsonText | undefined> {
  const read = await db.readProjected([{ sql: `${selectSql(table)} ${fromWhere}`, args }], {
    at: 0,
    ...shape,
    limit: 1,
  })
  // `[{...}]`: the object is the text inside the brackets (one byte each in UTF-8)
  if (read.read === 0) return undefined
  return typeof read.text === 'string' ? read.text.slice(1, -1) : read.text.subarray(1, -1)
}

/** readRecord, or NotFound (on `field`, the wire's default without) when there is none. */
export async function readRequired<T extends FieldTable>(
  db: Db,
  table: T,
  fromWhere: string,
  args: InValue[],
  field?: string,
): Promise<RecordOf<T>> {
  const r = await readRecord(db, table, fromWhere, args)
  if (!r) throw new NotFound(field)
  return r
}

/** The records of `table` that `fromWhere` (`FROM ... WHERE ... ORDER BY ...`) finds; selected, not parsed. */
export async function readRecords<T extends FieldTable>(
  db: Db,
  table: T,
  fromWhere: string,
  args: InValue[],
): Promise<Array<RecordOf<T>>> {
  return (await db.all(`${selectSql(table)} ${fromWhere}`, args)) as Array<RecordOf<T>>
}

/** One read of `readTables`: the records of `table` that `fromWhere` finds. */
export interface TableRead<T extends FieldTable = FieldTable> {
  table: T
  fromWhere: string
  args: InValue[]
}

/**
 * readRecords of several tables in one read transaction (answers that must agree, e.g. a product's points and
 * streams): each statement selects `selectSql` of its table, so each answer is typed `RecordOf` it, not parsed.
 */
export async function readTables<const Q extends readonly TableRead[]>(
  db: Db,
  reads: Q,
): Promise<{ [I in keyof Q]: Array<RecordOf<Q[I]['table']>> }> {
  const answers = await db.read(
    reads.map((r) => ({ sql: `${selectSql(r.table)} ${r.fromWhere}`, args: r.args })),
  )
  return answers as { [I in keyof Q]: Array<RecordOf<Q[I]['table']>> }
}
