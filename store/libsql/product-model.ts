import type { Db } from './db.ts'
import type { ModelProductRef } from '../types.ts'
import { Invalid, NotFound } from '../errors.ts'
import { marks } from './list.ts'
import { readRecord, readRecords } from './records.ts'
import { PRODUCT_TABLE } from '../fields/products.ts'
import { POINT_REF_TABLE, STREAM_REF_TABLE } from '../fields/product-model.ts'
import type { RecordOf } from '../fields/table.ts'

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
