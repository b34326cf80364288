import type { Db } from './db.ts'
import type {
  AppTemplateInput,
  AppTemplateRepository,
  ListArgs,
  ModelProductRef,
  Page,
  Row,
} from '../types.ts'
import { NotFound } from '../errors.ts'
import { listPage, type ListSpec } from './list.ts'
import {
  deleteChecked,
  insertOf,
  pointRefs,
  productRef,
  setClause,
  streamRef,
} from './product-model.ts'

const COLUMNS = `SELECT x.id AS id, x.template_name AS templateName, x.template_type AS templateType,
  p.product_id AS productID, x.product_int_id AS productIntID, p.product_name AS productName,
  x.product_item_int_id AS productItemIntID, x.topic AS topic, x.data_point_int_id AS dataPointIntID,
  d.data_point_id AS dataPointID, d.data_point_name AS dataPointName, x.data_stream_int_id AS dataStreamIntID,
  s.stream_name AS dataStreamName, x.data_trans_type AS dataTransType, x.enum AS enum, x.places AS places,
  x.instance_id AS instanceID, x.item_id AS itemID, x.item_name AS itemName, x.item_operations AS itemOperations,
  x.object_id AS objectID, x.create_at AS createAt, x.update_at AS updateAt, x.default_values AS defaultValues`

const FROM = `FROM app_templates x JOIN products p ON p.id = x.product_int_id AND p.tenant_id = x.tenant_id
  LEFT JOIN data_points d ON d.id = x.data_point_int_id LEFT JOIN data_streams s ON s.id = x.data_stream_int_id`

/** The list of the tenant's templates, narrowed by `where` (with its `?` args). */
const listOf = (where: string): ListSpec => ({
  columns: COLUMNS,
  from: FROM,
  where,
  fields: {
    productID: 'p.product_id',
    templateName: 'x.template_name',
    templateType: 'x.template_type',
    dataPointIntID: 'x.data_point_int_id',
    dataStreamIntID: 'x.data_stream_int_id',
    updateAt: 'x.update_at',
  },
  timeField: 'x.create_at',
  idField: 'x.id',
})
const LIST = listOf('x.tenant_id = ?')
const OF_PRODUCT = listOf('x.tenant_id = ? AND x.product_int_id = ?')

const COLS: Record<keyof AppTemplateInput, string> = {
  templateName: 'template_name',
  templateType: 'template_type',
  topic: 'topic',
  dataPointIntID: 'data_point_int_id',
  dataStreamIntID: 'data_stream_int_id',
  dataTransType: 'data_trans_type',
  enum: 'enum',
  places: 'places',
  instanceID: 'instance_id',
  itemID: 'item_id',
  itemName: 'item_name',
  itemOperations: 'item_operations',
  objectID: 'object_id',
  productItemIntID: 'product_item_int_id',
  defaultValues: 'default_values',
}
const JSON_FIELDS = ['enum', 'places', 'defaultValues']

/** App templates: controls of a product's app, bound to one of its data points and streams. */
export class AppTemplatesRepo implements AppTemplateRepository {
  constructor(private readonly db: Db) {}

  /** A page of templates; `productID` of another tenant matches nothing. */
  list(tenant: string, q: ListArgs): Promise<Page> {
    return listPage(this.db, LIST, [tenant], q)
  }

  /** The templates of the product of device `deviceIntID` (a device of the tenant, else NotFound). */
  async ofDevice(tenant: string, deviceIntID: number, q: ListArgs): Promise<Page> {
    const d = await this.db.one(
      'SELECT product_int_id FROM devices WHERE tenant_id = ? AND id = ?',
      [tenant, deviceIntID],
    )
    if (!d) throw new NotFound('id', `no device ${deviceIntID}`)
    return listPage(this.db, OF_PRODUCT, [tenant, Number(d.product_int_id)], q)
  }

  /** One template of the tenant, or NotFound. */
  async get(tenant: string, id: number): Promise<Row> {
    const r = await this.db.one(`${COLUMNS} ${FROM} WHERE x.tenant_id = ? AND x.id = ?`, [
      tenant,
      id,
    ])
    if (!r) throw new NotFound('id', `no app template ${id}`)
    return r as Row
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
  ): Promise<Row> {
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
  async update(tenant: string, id: number, patch: AppTemplateInput): Promise<Row> {
    const current = await this.get(tenant, id)
    await this.checkRefs(tenant, Number(current.productIntID), patch)
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
