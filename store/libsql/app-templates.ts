import type { Db } from './db.ts'
import type {
  AppTemplateInput,
  AppTemplateRecord,
  AppTemplateRepository,
  ListArgs,
  Page,
} from '../types.ts'
import { APP_TEMPLATE_TABLE } from '../fields/product-model.ts'
import { NotFound } from '../errors.ts'
import { listPage } from './list.ts'
import { ModelRecordRepo, modelTable } from './product-model.ts'

/**
 * App templates: controls of a product's app, bound to one of its data points and streams (checked on create
 * and update). Nothing refers to one.
 */
export class AppTemplatesRepo
  extends ModelRecordRepo<typeof APP_TEMPLATE_TABLE, AppTemplateInput, string>
  implements AppTemplateRepository
{
  constructor(db: Db) {
    super(
      db,
      modelTable('app_templates', 'app template', {
        list: APP_TEMPLATE_TABLE,
        joins: `LEFT JOIN data_points d ON d.id = x.data_point_int_id
          LEFT JOIN data_streams s ON s.id = x.data_stream_int_id`,
        remove: { nameColumn: 'template_name', uses: {} },
      }),
      'productID',
      (r) => r.productIntID,
    )
  }

  /** The templates of the product of device `deviceIntID` (a device of the tenant, else NotFound). */
  async ofDevice(
    tenant: string,
    deviceIntID: number,
    q: ListArgs,
  ): Promise<Page<AppTemplateRecord>> {
    const d = await this.db.one(
      'SELECT product_int_id FROM devices WHERE tenant_id = ? AND id = ?',
      [tenant, deviceIntID],
    )
    if (!d) throw new NotFound('id', `no device ${deviceIntID}`)
    const ofProduct = { ...this.listSpec, where: 'x.tenant_id = ? AND x.product_int_id = ?' }
    return listPage(this.db, ofProduct, [tenant, Number(d.product_int_id)], q)
  }
}
