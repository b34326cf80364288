import type { Db } from './db.ts'
import type {
  DataPointInput,
  DataPointRecord,
  DataPointRepository,
  ListArgs,
  ModelProductRef,
  Page,
} from '../types.ts'
import { DATA_POINT_TABLE } from '../fields/product-model.ts'
import { jsonFields, writeColumns } from '../fields/table.ts'
import { Invalid, NotFound } from '../errors.ts'
import { listPage, tableList } from './list.ts'
import { readRecord } from './records.ts'
import {
  deleteChecked,
  insertOf,
  productRef,
  rethrowAsConflict,
  setClause,
} from './product-model.ts'

const FROM = `FROM data_points x JOIN products p ON p.id = x.product_int_id AND p.tenant_id = x.tenant_id
  LEFT JOIN users u ON u.id = x.user_int_id`

const list = tableList(DATA_POINT_TABLE, {
  from: FROM,
  where: 'x.tenant_id = ?',
  timeField: 'x.create_at',
  idField: 'x.id',
})

/** Writable wire fields → columns (productIntID only on insert). */
const COLS = writeColumns(DATA_POINT_TABLE)
const JSON_FIELDS = jsonFields(DATA_POINT_TABLE)
const UNIQUE = { data_point_id: 'dataPointID', data_point_name: 'dataPointName' }

/** Data points (functions) of the tenant's products. Rows carry the product's cloudProtocol for the rules. */
export class DataPointsRepo implements DataPointRepository {
  constructor(private readonly db: Db) {}

  /** A page of data points; `productID` of another tenant matches nothing. */
  list(tenant: string, q: ListArgs): Promise<Page<DataPointRecord>> {
    return listPage(this.db, list, [tenant], q)
  }

  /** One data point of the tenant, or NotFound naming `field`. */
  async get(tenant: string, id: number, field = 'id'): Promise<DataPointRecord> {
    const r = await readRecord(
      this.db,
      DATA_POINT_TABLE,
      `${FROM} WHERE x.tenant_id = ? AND x.id = ?`,
      [tenant, id],
    )
    if (!r) throw new NotFound(field, `no data point ${id}`)
    return r
  }

  /** The product a new data point goes to (404 errors.productIntID when not the tenant's). */
  product(tenant: string, productIntID: number): Promise<ModelProductRef> {
    return productRef(this.db, tenant, { productIntID }, 'productIntID')
  }

  /** Creates a point of `productIntID` (checked by the caller); DATA_EXISTED on a taken dataPointID or name. */
  async create(
    tenant: string,
    userIntID: number | null,
    productIntID: number,
    input: DataPointInput,
  ): Promise<DataPointRecord> {
    const fixed = {
      tenant_id: tenant,
      product_int_id: productIntID,
      user_int_id: userIntID,
      create_at: Date.now(),
    }
    try {
      const [r] = await this.db.batch([insertOf('data_points', COLS, input, fixed, JSON_FIELDS)])
      return this.get(tenant, Number(r!.lastInsertRowid))
    } catch (e) {
      rethrowAsConflict(e, UNIQUE)
    }
  }

  /**
   * Writes the fields of `patch`. A dataPointID that formula metrics read cannot change (their expressions name it).
   */
  async update(tenant: string, id: number, patch: DataPointInput): Promise<DataPointRecord> {
    const current = await this.get(tenant, id)
    if (patch.dataPointID !== undefined && patch.dataPointID !== current.dataPointID) {
      const used = await this.db.one(
        'SELECT count(*) AS n FROM metric_points WHERE data_point_int_id = ?',
        [id],
      )
      if (Number(used?.n) > 0)
        throw new Invalid('dataPointID', `used by the formula of ${used!.n} metric(s)`)
    }
    const set = setClause(COLS, patch, JSON_FIELDS)
    try {
      await this.db.run(
        `UPDATE data_points SET ${set.sql ? `${set.sql}, ` : ''}update_at = ? WHERE tenant_id = ? AND id = ?`,
        [...set.args, Date.now(), tenant, id],
      )
    } catch (e) {
      rethrowAsConflict(e, UNIQUE)
    }
    return this.get(tenant, id)
  }

  /** All or none; refused while a stream, metric (own point or formula), product resource or app template uses one. */
  delete(tenant: string, ids: number[]) {
    return deleteChecked(
      this.db,
      tenant,
      {
        table: 'data_points',
        nameColumn: 'data_point_name',
        uses: {
          dataStreams: 'SELECT count(*) FROM stream_points s WHERE s.data_point_int_id = x.id',
          metrics: `SELECT count(*) FROM metrics m WHERE m.data_point_int_id = x.id OR m.id IN
          (SELECT mp.metric_int_id FROM metric_points mp WHERE mp.data_point_int_id = x.id)`,
          productResources:
            'SELECT count(*) FROM product_resources r WHERE r.data_point_int_id = x.id',
          appTemplates: 'SELECT count(*) FROM app_templates a WHERE a.data_point_int_id = x.id',
        },
      },
      ids,
    )
  }
}
