import type { Db } from './db.ts'
import type { ProductResourceInput, ProductResourceRepository } from '../types.ts'
import { PRODUCT_RESOURCE_TABLE } from '../fields/product-model.ts'
import { ModelRecordRepo, modelTable } from './product-model.ts'

/**
 * Product resources: codes of a product, optionally bound to one of its data points (checked on create and
 * update). Nothing refers to one.
 */
export class ProductResourcesRepo
  extends ModelRecordRepo<typeof PRODUCT_RESOURCE_TABLE, ProductResourceInput, number>
  implements ProductResourceRepository
{
  constructor(db: Db) {
    super(
      db,
      modelTable('product_resources', 'product resource', {
        list: PRODUCT_RESOURCE_TABLE,
        joins: 'LEFT JOIN data_points d ON d.id = x.data_point_int_id',
        remove: { nameColumn: 'code_value', uses: {} },
      }),
      'productIntID',
      (r) => r.productIntID,
    )
  }
}
