import type { Db } from './db.ts'
import type {
  ModelProductRef,
  ProductResourceInput,
  ProductResourceRecord,
  ProductResourceRepository,
} from '../types.ts'
import { PRODUCT_RESOURCE_TABLE } from '../fields/product-model.ts'
import { NotFound } from '../errors.ts'
import { pointRefs, productRef } from './product-model.ts'
import { TableRepo } from './table-repository.ts'

/** Product resources: codes of a product, optionally bound to one of its data points. Nothing refers to one. */
export class ProductResourcesRepo
  extends TableRepo<
    typeof PRODUCT_RESOURCE_TABLE,
    typeof PRODUCT_RESOURCE_TABLE,
    ProductResourceInput
  >
  implements ProductResourceRepository
{
  constructor(db: Db) {
    super(db, {
      name: 'product_resources',
      alias: 'x',
      list: PRODUCT_RESOURCE_TABLE,
      from: `FROM product_resources x JOIN products p ON p.id = x.product_int_id AND p.tenant_id = x.tenant_id
        LEFT JOIN data_points d ON d.id = x.data_point_int_id`,
      notFound: (id) => new NotFound('id', `no product resource ${id}`),
      remove: { nameColumn: 'code_value', uses: {} },
    })
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
    return this.insert(tenant, input, { product_int_id: productIntID, user_int_id: userIntID })
  }

  /** A new dataPointIntID is checked as on create. */
  override async update(
    tenant: string,
    id: number,
    patch: ProductResourceInput,
  ): Promise<ProductResourceRecord> {
    const current = await this.get(tenant, id)
    await this.checkPoint(tenant, current.productIntID, patch.dataPointIntID)
    return this.write(tenant, id, patch)
  }

  private async checkPoint(tenant: string, productIntID: number, id: unknown) {
    if (typeof id === 'number')
      await pointRefs(this.db, tenant, productIntID, [id], 'dataPointIntID')
  }
}
