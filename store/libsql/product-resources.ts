import type { Db } from './db.ts'
import type {
  ListArgs,
  ModelProductRef,
  Page,
  ProductResourceInput,
  ProductResourceRecord,
  ProductResourceRepository,
} from '../types.ts'
import { PRODUCT_RESOURCE_TABLE } from '../fields/product-model.ts'
import { writeColumns } from '../fields/table.ts'
import { NotFound } from '../errors.ts'
import { listPage, tableList } from './list.ts'
import { readRecord } from './records.ts'
import { deleteChecked, insertOf, pointRefs, productRef, setClause } from './product-model.ts'

const FROM = `FROM product_resources x JOIN products p ON p.id = x.product_int_id AND p.tenant_id = x.tenant_id
  LEFT JOIN data_points d ON d.id = x.data_point_int_id`

const list = tableList(PRODUCT_RESOURCE_TABLE, {
  from: FROM,
  where: 'x.tenant_id = ?',
  timeField: 'x.create_at',
  idField: 'x.id',
})

const COLS = writeColumns(PRODUCT_RESOURCE_TABLE)

/** Product resources: codes of a product, optionally bound to one of its data points. */
export class ProductResourcesRepo implements ProductResourceRepository {
  constructor(private readonly db: Db) {}

  /** A page of resources; `productID` of another tenant matches nothing. */
  list(tenant: string, q: ListArgs): Promise<Page<ProductResourceRecord>> {
    return listPage(this.db, list, [tenant], q)
  }

  /** One resource of the tenant, or NotFound. */
  async get(tenant: string, id: number): Promise<ProductResourceRecord> {
    const r = await readRecord(
      this.db,
      PRODUCT_RESOURCE_TABLE,
      `${FROM} WHERE x.tenant_id = ? AND x.id = ?`,
      [tenant, id],
    )
    if (!r) throw new NotFound('id', `no product resource ${id}`)
    return r
  }

  /** The product of a new resource (404 errors.productIntID when not the tenant's). */
  product(tenant: string, productIntID: number): Promise<ModelProductRef> {
    return productRef(this.db, tenant, { productIntID }, 'productIntID')
  }

  /** Creates a resource of `productIntID`; its dataPointIntID must be a point of that product. */
  async create(
    tenant: string,
    userIntID: number | null,
    productIntID: number,
    input: ProductResourceInput,
  ): Promise<ProductResourceRecord> {
    await this.checkPoint(tenant, productIntID, input.dataPointIntID)
    const fixed = {
      tenant_id: tenant,
      product_int_id: productIntID,
      user_int_id: userIntID,
      create_at: Date.now(),
    }
    const [r] = await this.db.batch([insertOf('product_resources', COLS, input, fixed)])
    return this.get(tenant, Number(r!.lastInsertRowid))
  }

  /** Writes the fields of `patch` (a new dataPointIntID is checked as on create). */
  async update(
    tenant: string,
    id: number,
    patch: ProductResourceInput,
  ): Promise<ProductResourceRecord> {
    const current = await this.get(tenant, id)
    await this.checkPoint(tenant, current.productIntID, patch.dataPointIntID)
    const set = setClause(COLS, patch)
    await this.db.run(
      `UPDATE product_resources SET ${set.sql ? `${set.sql}, ` : ''}update_at = ? WHERE tenant_id = ? AND id = ?`,
      [...set.args, Date.now(), tenant, id],
    )
    return this.get(tenant, id)
  }

  private async checkPoint(tenant: string, productIntID: number, id: unknown) {
    if (typeof id === 'number')
      await pointRefs(this.db, tenant, productIntID, [id], 'dataPointIntID')
  }

  /** All or none (nothing refers to a product resource). */
  delete(tenant: string, ids: number[]) {
    return deleteChecked(
      this.db,
      tenant,
      { table: 'product_resources', nameColumn: 'code_value', uses: {} },
      ids,
    )
  }
}
