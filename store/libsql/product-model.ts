import type { InStatement, InValue } from '@libsql/client'
import type { Db } from './db.ts'
import type { ModelProductRef, PointRef, StreamRef } from '../types.ts'
import { Conflict, Invalid, NotFound, Referenced } from '../errors.ts'
import { marks } from './list.ts'
import { isUniqueViolation, uniqueColumns } from './sql-errors.ts'

/** Helpers shared by the product-model repositories: data points, streams, metrics, resources, app templates. */

/**
 * The tenant's product by record id or by string productID (whichever is given); NotFound names `field`.
 * Another tenant's product is not found, like a missing one.
 */
export async function productRef(
  db: Db,
  tenant: string,
  key: { productIntID?: number | null; productID?: string | null },
  field: string,
): Promise<ModelProductRef> {
  const byInt = key.productIntID !== undefined && key.productIntID !== null
  const r = await db.one(
    `SELECT id, product_id AS productID, product_name AS productName, cloud_protocol AS cloudProtocol
     FROM products WHERE tenant_id = ? AND ${byInt ? 'id' : 'product_id'} = ?`,
    [tenant, byInt ? key.productIntID! : (key.productID ?? '')],
  )
  if (!r) throw new NotFound(field, `no product ${byInt ? key.productIntID : key.productID}`)
  return r as unknown as ModelProductRef
}

/**
 * The tenant's data points `ids`, each of which must belong to product `productIntID`: an id not in the tenant is
 * NotFound, a point of another product is Invalid; both name `field` and the offending id.
 */
export async function pointRefs(
  db: Db,
  tenant: string,
  productIntID: number,
  ids: number[],
  field: string,
) {
  return refsOfProduct<PointRef>(db, tenant, productIntID, ids, field, {
    sql: `SELECT id, data_point_id AS dataPointID, data_point_name AS dataPointName, product_int_id AS productIntID
          FROM data_points`,
    what: 'data point',
  })
}

/** The tenant's data stream `id`, which must be a stream of product `productIntID` (see pointRefs). */
export async function streamRef(
  db: Db,
  tenant: string,
  productIntID: number,
  id: number,
  field: string,
) {
  const [r] = await refsOfProduct<StreamRef>(db, tenant, productIntID, [id], field, {
    sql: 'SELECT id, stream_name AS streamName, product_int_id AS productIntID FROM data_streams',
    what: 'data stream',
  })
  return r!
}

async function refsOfProduct<T extends { id: unknown; productIntID: unknown }>(
  db: Db,
  tenant: string,
  productIntID: number,
  ids: number[],
  field: string,
  q: { sql: string; what: string },
): Promise<T[]> {
  if (ids.length === 0) return []
  const rows = (await db.all(`${q.sql} WHERE tenant_id = ? AND id IN (${marks(ids.length)})`, [
    tenant,
    ...ids,
  ])) as unknown as T[]
  const byId = new Map(rows.map((r) => [Number(r.id), r]))
  const missing = ids.filter((id) => !byId.has(id))
  if (missing.length) throw new NotFound(field, `no ${q.what} ${missing.join(', ')}`)
  const foreign = ids.filter((id) => Number(byId.get(id)!.productIntID) !== productIntID)
  if (foreign.length)
    throw new Invalid(field, `${q.what} ${foreign.join(', ')} belongs to another product`)
  return ids.map((id) => byId.get(id)!)
}

/**
 * `col = ?, ...` for the fields of `patch` that `cols` knows (wire field → column); the SQL text comes only from
 * `cols`. Fields listed in `json` are stored as JSON text.
 */
export function setClause(
  cols: Record<string, string>,
  patch: Record<string, unknown>,
  json: readonly string[] = [],
) {
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
): InStatement {
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

/** Rethrows a UNIQUE violation as Conflict on the wire field of the first matching column of `fields`. */
export function rethrowAsConflict(e: unknown, fields: Record<string, string>): never {
  if (isUniqueViolation(e)) {
    const cols = uniqueColumns(e).map((c) => c.split('.').pop())
    for (const [column, field] of Object.entries(fields))
      if (cols.includes(column)) throw new Conflict(field)
  }
  throw e
}

export interface DeleteSpec {
  table: string
  /** Column naming a record in the refusal message. */
  nameColumn: string
  /** What still uses a record: label → `count(*)` subquery over the record's alias `x`. */
  uses: Record<string, string>
  /** Statements run before the DELETE in the same batch (link rows), over the same ids. */
  before?: (ids: number[]) => InStatement[]
}

/** Deletes all of `ids` or none: NotFound when one is not the tenant's, Referenced when one is still used. */
export async function deleteChecked(db: Db, tenant: string, spec: DeleteSpec, ids: number[]) {
  const uses = Object.entries(spec.uses)
  const counts = uses.map(([label, sql]) => `(${sql}) AS "${label}"`).join(', ')
  const rows = await db.all(
    `SELECT x.id AS id, x.${spec.nameColumn} AS name${counts ? `, ${counts}` : ''}
     FROM ${spec.table} x WHERE x.tenant_id = ? AND x.id IN (${marks(ids.length)})`,
    [tenant, ...ids],
  )
  if (rows.length !== ids.length) throw new NotFound('ids')
  for (const r of rows) {
    const used = uses
      .filter(([label]) => Number(r[label]) > 0)
      .map(([label]) => `${r[label]} ${label}`)
    if (used.length)
      throw new Referenced('ids', `${r.id} (${r.name}) is still used by ${used.join(', ')}`)
  }
  await db.batch([
    ...(spec.before?.(ids) ?? []),
    {
      sql: `DELETE FROM ${spec.table} WHERE tenant_id = ? AND id IN (${marks(ids.length)})`,
      args: [tenant, ...ids],
    },
  ])
}
