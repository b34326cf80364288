import type { Db } from './db.ts'
import type {
  ListArgs,
  ModelProductRef,
  Page,
  ProductResourceInput,
  ProductResourceRepository,
  Row,
} from '../types.ts'
import { NotFound } from '../errors.ts'
import { listPage, type ListSpec } from './list.ts'
import { deleteChecked, insertOf, pointRefs, productRef, setClause } from './product-model.ts'

const COLUMNS = `SELECT x.id AS id, x.code_value AS codeValue, coalesce(x.item_name, x.code_value) AS codeValueLabel,
  x.data_point_int_id AS dataPointIntID, d.data_point_name AS dataPointName, p.product_id AS productID,
  x.product_int_id AS productIntID, p.product_name AS productName, x.product_item_int_id AS productItemIntID,
  x.item_name AS itemName, x.create_at AS createAt, x.update_at AS updateAt`

const FROM = `FROM product_resources x JOIN products p ON p.id = x.product_int_id AND p.tenant_id = x.tenant_id
  LEFT JOIN data_points d ON d.id = x.data_point_int_id`

const list: ListSpec = {
  columns: COLUMNS,
  from: FROM,
  where: 'x.tenant_id = ?',
  fields: {
    productID: 'p.product_id',
    codeValue: 'x.code_value',
    itemName: 'x.item_name',
    dataPointIntID: 'x.data_point_int_id',
    updateAt: 'x.update_at',
  },
  timeField: 'x.create_at',
  idField: 'x.id',
}

const COLS: Record<keyof ProductResourceInput, string> = {
  codeValue: 'code_value',
  dataPointIntID: 'data_point_int_id',
  productItemIntID: 'product_item_int_id',
  itemName: 'item_name',
}

/** Product resources: codes of a product, optionally bound to one of its data points. */
export class ProductResourcesRepo implements ProductResourceRepository {
  constructor(private readonly db: Db) {}

  /** A page of resources; `productID` of another tenant matches nothing. */
  list(tenant: string, q: ListArgs): Promise<Page> {
    return listPage(this.db, list, [tenant], q)
  }

  /** One resource of the tenant, or NotFound. */
  async get(tenant: string, id: number): Promise<Row> {
    const r = await this.db.one(`${COLUMNS} ${FROM} WHERE x.tenant_id = ? AND x.id = ?`, [
      tenant,
      id,
    ])
    if (!r) throw new NotFound('id', `no product resource ${id}`)
    return r as Row
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
  ): Promise<Row> {
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
  async update(tenant: string, id: number, patch: ProductResourceInput): Promise<Row> {
    const current = await this.get(tenant, id)
    await this.checkPoint(tenant, Number(current.productIntID), patch.dataPointIntID)
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
