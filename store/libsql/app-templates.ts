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
import { jsonFields, writeColumns } from '../fields/table.ts'
import { NotFound } from '../errors.ts'
import { listPage, tableList } from './list.ts'
import { readRecord } from './records.ts'
import {
  deleteChecked,
  insertOf,
  pointRefs,
  productRef,
  setClause,
  streamRef,
} from './product-model.ts'

const FROM = `FROM app_templates x JOIN products p ON p.id = x.product_int_id AND p.tenant_id = x.tenant_id
  LEFT JOIN data_points d ON d.id = x.data_point_int_id LEFT JOIN data_streams s ON s.id = x.data_stream_int_id`

/** The list of the tenant's templates, narrowed by `where` (with its `?` args). */
const listOf = (where: string) =>
  tableList(APP_TEMPLATE_TABLE, { from: FROM, where, timeField: 'x.create_at', idField: 'x.id' })
const LIST = listOf('x.tenant_id = ?')
const OF_PRODUCT = listOf('x.tenant_id = ? AND x.product_int_id = ?')

const COLS = writeColumns(APP_TEMPLATE_TABLE)
const JSON_FIELDS = jsonFields(APP_TEMPLATE_TABLE)

/** App templates: controls of a product's app, bound to one of its data points and streams. */
export class AppTemplatesRepo implements AppTemplateRepository {
  constructor(private readonly db: Db) {}

  /** A page of templates; `productID` of another tenant matches nothing. */
  list(tenant: string, q: ListArgs): Promise<Page<AppTemplateRecord>> {
    return listPage(this.db, LIST, [tenant], q)
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
    return listPage(this.db, OF_PRODUCT, [tenant, Number(d.product_int_id)], q)
  }

  /** One template of the tenant, or NotFound. */
  async get(tenant: string, id: number): Promise<AppTemplateRecord> {
    const r = await readRecord(
      this.db,
      APP_TEMPLATE_TABLE,
      `${FROM} WHERE x.tenant_id = ? AND x.id = ?`,
      [tenant, id],
    )
    if (!r) throw new NotFound('id', `no app template ${id}`)
    return r
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
    const fixed = {
      tenant_id: tenant,
      product_int_id: productIntID,
      user_int_id: userIntID,
      create_at: Date.now(),
    }
    const [r] = await this.db.batch([insertOf('app_templates', COLS, input, fixed, JSON_FIELDS)])
    return this.get(tenant, Number(r!.lastInsertRowid))
  }

  /** Writes the fields of `patch` (a new data point or stream is checked as on create). */
  async update(tenant: string, id: number, patch: AppTemplateInput): Promise<AppTemplateRecord> {
    const current = await this.get(tenant, id)
    await this.checkRefs(tenant, current.productIntID, patch)
    const set = setClause(COLS, patch, JSON_FIELDS)
    await this.db.run(
      `UPDATE app_templates SET ${set.sql ? `${set.sql}, ` : ''}update_at = ? WHERE tenant_id = ? AND id = ?`,
      [...set.args, Date.now(), tenant, id],
    )
    return this.get(tenant, id)
  }

  private async checkRefs(tenant: string, productIntID: number, input: AppTemplateInput) {
    if (typeof input.dataPointIntID === 'number')
      await pointRefs(this.db, tenant, productIntID, [input.dataPointIntID], 'dataPointIntID')
    if (typeof input.dataStreamIntID === 'number')
      await streamRef(this.db, tenant, productIntID, input.dataStreamIntID, 'dataStreamIntID')
  }

  /** All or none (nothing refers to an app template). */
  delete(tenant: string, ids: number[]) {
    return deleteChecked(
      this.db,
      tenant,
      { table: 'app_templates', nameColumn: 'template_name', uses: {} },
      ids,
    )
  }
}
