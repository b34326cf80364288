import type { Db } from './db.ts'
import type {
  AppTemplateInput,
  AppTemplateRecord,
  AppTemplateRepository,
  ListArgs,
  ModelProductRef,
  Page,
} from '../types.ts'
import { APP_TEMPLATE_TABLE } from '../fields/product-model.ts'
import { NotFound } from '../errors.ts'
import { listPage } from './list.ts'
import { pointRefs, productRef, streamRef } from './product-model.ts'
import { TableRepo } from './table-repository.ts'

/** App templates: controls of a product's app, bound to one of its data points and streams. Nothing refers to one. */
export class AppTemplatesRepo
  extends TableRepo<typeof APP_TEMPLATE_TABLE, typeof APP_TEMPLATE_TABLE, AppTemplateInput>
  implements AppTemplateRepository
{
  constructor(db: Db) {
    super(db, {
      name: 'app_templates',
      alias: 'x',
      list: APP_TEMPLATE_TABLE,
      from: `FROM app_templates x JOIN products p ON p.id = x.product_int_id AND p.tenant_id = x.tenant_id
        LEFT JOIN data_points d ON d.id = x.data_point_int_id
        LEFT JOIN data_streams s ON s.id = x.data_stream_int_id`,
      notFound: (id) => new NotFound('id', `no app template ${id}`),
      remove: { nameColumn: 'template_name', uses: {} },
    })
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

  /** The product of a new template (404 errors.productID when not the tenant's). */
  product(tenant: string, productID: string): Promise<ModelProductRef> {
    return productRef(this.db, tenant, { productID }, 'productID')
  }

  /** Creates a template of `productIntID`; its data point and stream must be of that product. */
  async create(
    tenant: string,
    userIntID: number | null,
    productIntID: number,
    input: AppTemplateInput,
  ): Promise<AppTemplateRecord> {
    await this.checkRefs(tenant, productIntID, input)
    return this.insert(tenant, input, { product_int_id: productIntID, user_int_id: userIntID })
  }

  /** A new data point or stream is checked as on create. */
  override async update(
    tenant: string,
    id: number,
    patch: AppTemplateInput,
  ): Promise<AppTemplateRecord> {
    const current = await this.get(tenant, id)
    await this.checkRefs(tenant, current.productIntID, patch)
    return this.write(tenant, id, patch)
  }

  private async checkRefs(tenant: string, productIntID: number, input: AppTemplateInput) {
    if (typeof input.dataPointIntID === 'number')
      await pointRefs(this.db, tenant, productIntID, [input.dataPointIntID], 'dataPointIntID')
    if (typeof input.dataStreamIntID === 'number')
      await streamRef(this.db, tenant, productIntID, input.dataStreamIntID, 'dataStreamIntID')
  }
}
