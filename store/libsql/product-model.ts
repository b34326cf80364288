import type { InStatement, InValue } from '@libsql/client'
import type { Db } from './db.ts'
import type { ModelProductRef } from '../types.ts'
import { Invalid, NotFound } from '../errors.ts'
import { marks } from './list.ts'
import { readRecord, readRecords } from './records.ts'
import { TableRepo, type TableOptions } from './table-repository.ts'
import { PRODUCT_TABLE } from '../fields/products.ts'
import { POINT_REF_TABLE, STREAM_REF_TABLE } from '../fields/product-model.ts'
import type { FieldTable, RecordOf } from '../fields/table.ts'

/** Helpers shared by the product-model repositories: data points, streams, metrics, resources, app templates. */

/** What the product-model repositories read of a product (store/fields/products.ts). */
const PRODUCT_REF = {
  id: PRODUCT_TABLE.id,
  productID: PRODUCT_TABLE.productID,
  productName: PRODUCT_TABLE.productName,
  cloudProtocol: PRODUCT_TABLE.cloudProtocol,
} as const

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
  const r = await readRecord(
    db,
    PRODUCT_REF,
    `FROM products p WHERE p.tenant_id = ? AND ${byInt ? 'p.id' : 'p.product_id'} = ?`,
    [tenant, byInt ? key.productIntID! : (key.productID ?? '')],
  )
  if (!r) throw new NotFound(field, `no product ${byInt ? key.productIntID : key.productID}`)
  return r
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
  return refsOfProduct(db, tenant, productIntID, ids, field, {
    table: POINT_REF_TABLE,
    from: 'data_points',
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
  const [r] = await refsOfProduct(db, tenant, productIntID, [id], field, {
    table: STREAM_REF_TABLE,
    from: 'data_streams',
    what: 'data stream',
  })
  return r!
}

async function refsOfProduct<T extends typeof POINT_REF_TABLE | typeof STREAM_REF_TABLE>(
  db: Db,
  tenant: string,
  productIntID: number,
  ids: number[],
  field: string,
  q: { table: T; from: string; what: string },
): Promise<Array<RecordOf<T>>> {
  if (ids.length === 0) return []
  const rows = await readRecords(
    db,
    q.table,
    `FROM ${q.from} x WHERE x.tenant_id = ? AND x.id IN (${marks(ids.length)})`,
    [tenant, ...ids],
  )
  const byId = new Map(rows.map((r) => [Number(r.id), r]))
  const missing = ids.filter((id) => !byId.has(id))
  if (missing.length) throw new NotFound(field, `no ${q.what} ${missing.join(', ')}`)
  const foreign = ids.filter((id) => Number(byId.get(id)!.productIntID) !== productIntID)
  if (foreign.length)
    throw new Invalid(field, `${q.what} ${foreign.join(', ')} belongs to another product`)
  return ids.map((id) => byId.get(id)!)
}

/**
 * The options of a table whose records belong to one of the tenant's products (`x`, its product `p`, and
 * `joins`); a missing or foreign id is NotFound('id', `no <what> <id>`).
 */
export function modelTable<L extends FieldTable, D extends FieldTable = L>(
  table: string,
  what: string,
  o: Omit<TableOptions<L, D>, 'from' | 'notFound'> & { joins?: string },
): TableOptions<L, D> {
  const { joins = '', ...rest } = o
  return {
    ...rest,
    from: `FROM ${table} x JOIN products p ON p.id = x.product_int_id AND p.tenant_id = x.tenant_id ${joins}`,
    notFound: (id) => new NotFound('id', `no ${what} ${id}`),
  }
}

/** What a record of the product model may reference: a data point and a data stream of its own product. */
export interface ModelRefs {
  dataPointIntID?: number | null
  dataStreamIntID?: number | null
  /** Other fields of the input. */
  [field: string]: unknown
}

/** Checks the references of `input` are of product `productIntID` (404 unknown, 422 another product's). */
export async function checkRefs(db: Db, tenant: string, productIntID: number, input: ModelRefs) {
  if (typeof input.dataPointIntID === 'number')
    await pointRefs(db, tenant, productIntID, [input.dataPointIntID], 'dataPointIntID')
  if (typeof input.dataStreamIntID === 'number')
    await streamRef(db, tenant, productIntID, input.dataStreamIntID, 'dataStreamIntID')
}

/** The columns a record created under product `productIntID` by `userIntID` is stored with. */
export const underProduct = (productIntID: number, userIntID: number | null) => ({
  product_int_id: productIntID,
  user_int_id: userIntID,
})

/**
 * A repository of records created under a product (data points, product resources, app templates): `product`
 * finds the product a create body names by `key`, a create stores the record under it, an update writes the
 * fields of a patch. The data point and stream they reference are checked on both (checkRefs), and
 * `checkUpdate` may refuse a patch.
 */
export abstract class ModelRecordRepo<
  T extends FieldTable,
  P extends ModelRefs,
  K extends number | string,
> extends TableRepo<T, T, P> {
  constructor(
    db: Db,
    options: TableOptions<T, T>,
    private readonly key: K extends number ? 'productIntID' : 'productID',
    private readonly productOf: (r: RecordOf<T>) => number,
  ) {
    super(db, options)
  }

  /** The product a new record goes to (404 naming the key when it is not the tenant's). */
  product(tenant: string, key: K): Promise<ModelProductRef> {
    const by = this.key === 'productID' ? { productID: String(key) } : { productIntID: Number(key) }
    return productRef(this.db, tenant, by, this.key)
  }

  async create(
    tenant: string,
    userIntID: number | null,
    productIntID: number,
    input: P,
  ): Promise<RecordOf<T>> {
    await checkRefs(this.db, tenant, productIntID, input)
    return this.insert(tenant, input, underProduct(productIntID, userIntID))
  }

  override async update(tenant: string, id: number, patch: P): Promise<RecordOf<T>> {
    const current = await this.get(tenant, id)
    await this.checkUpdate(tenant, current, patch)
    await checkRefs(this.db, tenant, this.productOf(current), patch)
    return this.write(tenant, id, patch)
  }

  /** Throws when `patch` may not be written over `current`. */
  protected async checkUpdate(_tenant: string, _current: RecordOf<T>, _patch: P): Promise<void> {}
}

/**
 * The links of one kind of record (its id column `owner` in `table`) to data points; a new record is found by
 * `key`, a column unique in its product of `records`.
 */
export function pointLinks(
  table: 'stream_points' | 'metric_points',
  owner: string,
  records: { table: string; key: string },
) {
  const add = (ownerSql: string, args: InValue[], ids: number[]): InStatement => ({
    sql: `INSERT INTO ${table} (${owner}, data_point_int_id) SELECT (${ownerSql}), j.value FROM json_each(?) j`,
    args: [...args, JSON.stringify(ids)],
  })
  const byKey = `SELECT id FROM ${records.table} WHERE product_int_id = ? AND ${records.key} = ?`
  return {
    /** Links the record of product `productIntID` whose key is `key` (inserted in the same batch) to `ids`. */
    ofNew: (productIntID: number, key: string, ids: number[]) =>
      add(byKey, [productIntID, key], ids),
    /** Replaces the links of record `id` by `ids`. */
    replace: (id: number, ids: number[]): InStatement[] => [
      { sql: `DELETE FROM ${table} WHERE ${owner} = ?`, args: [id] },
      add('SELECT ?', [id], ids),
    ],
    /** Drops the links of the records `ids` (before they are deleted). */
    drop: (ids: number[]): InStatement[] => [
      { sql: `DELETE FROM ${table} WHERE ${owner} IN (${marks(ids.length)})`, args: ids },
    ],
  }
}
