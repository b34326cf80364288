import type { InStatement, InValue } from '@libsql/client'
import type { Db } from './db.ts'
import type {
  ListArgs,
  MetricInput,
  MetricRecord,
  MetricRepository,
  Page,
  PointRef,
} from '../types.ts'
import { METRIC_TABLE, POINT_REF_TABLE } from '../fields/product-model.ts'
import { writeColumns } from '../fields/table.ts'
import { NotFound } from '../errors.ts'
import { listPage, marks, tableList } from './list.ts'
import { readRecord, readRecords } from './records.ts'
import {
  deleteChecked,
  insertOf,
  rethrowAsConflict,
  setClause,
  streamRef,
} from './product-model.ts'

const FROM = `FROM metrics x JOIN products p ON p.id = x.product_int_id AND p.tenant_id = x.tenant_id
  JOIN data_points d ON d.id = x.data_point_int_id LEFT JOIN users u ON u.id = x.user_int_id`

const list = tableList(METRIC_TABLE, {
  from: FROM,
  where: 'x.tenant_id = ?',
  timeField: 'x.create_at',
  idField: 'x.id',
})

const COLS = writeColumns(METRIC_TABLE)
const UNIQUE = { metric_name: 'metricName' }

/** Links a metric (its id from `metricSql`) to the data points its formula reads. */
const insertReads = (metricSql: string, args: InValue[], reads: number[]): InStatement => ({
  sql: `INSERT INTO metric_points (metric_int_id, data_point_int_id) SELECT (${metricSql}), j.value FROM json_each(?) j`,
  args: [...args, JSON.stringify(reads)],
})

/** Formula and aggregate metrics over the data points of a product. */
export class MetricsRepo implements MetricRepository {
  constructor(private readonly db: Db) {}

  /** A page of metrics (list form); `productID` of another tenant matches nothing. */
  list(tenant: string, q: ListArgs): Promise<Page<MetricRecord>> {
    return listPage(this.db, list, [tenant], q)
  }

  /** The tenant's metrics of a product (detail rows with their point's dataPointID), by id; one metricType or all. */
  forProduct(tenant: string, productIntID: number, metricType?: number): Promise<MetricRecord[]> {
    const byType = metricType === undefined ? '' : ' AND x.metric_type = ?'
    const args =
      metricType === undefined ? [tenant, productIntID] : [tenant, productIntID, metricType]
    return readRecords(
      this.db,
      METRIC_TABLE,
      `${FROM} WHERE x.tenant_id = ? AND x.product_int_id = ?${byType} ORDER BY x.id`,
      args,
    )
  }

  /** One metric of the tenant (with its product's id and its point's dataPointID), or NotFound. */
  async get(tenant: string, id: number): Promise<MetricRecord> {
    const r = await readRecord(
      this.db,
      METRIC_TABLE,
      `${FROM} WHERE x.tenant_id = ? AND x.id = ?`,
      [tenant, id],
    )
    if (!r) throw new NotFound('id', `no metric ${id}`)
    return r
  }

  /**
   * The metric's data point (`dataPointIntID` of the tenant, else NotFound naming that field) and every data point
   * of its product: what a formula may name.
   */
  async pointsFor(
    tenant: string,
    dataPointIntID: number,
  ): Promise<{ point: PointRef; points: PointRef[] }> {
    const points = await readRecords(
      this.db,
      POINT_REF_TABLE,
      `FROM data_points x WHERE x.tenant_id = ?
         AND x.product_int_id = (SELECT product_int_id FROM data_points WHERE tenant_id = ? AND id = ?)`,
      [tenant, tenant, dataPointIntID],
    )
    const point = points.find((p) => p.id === dataPointIntID)
    if (!point) throw new NotFound('dataPointIntID', `no data point ${dataPointIntID}`)
    return { point, points }
  }

  /** Creates a metric of `point`'s product with the links to the points its formula `reads`, in one batch. */
  async create(
    tenant: string,
    userIntID: number | null,
    point: PointRef,
    input: MetricInput,
    reads: number[],
  ): Promise<MetricRecord> {
    await this.checkStream(tenant, point.productIntID, input.dataStreamIntID)
    const fixed = {
      tenant_id: tenant,
      product_int_id: point.productIntID,
      user_int_id: userIntID,
      create_at: Date.now(),
    }
    const byName = 'SELECT id FROM metrics WHERE product_int_id = ? AND metric_name = ?'
    try {
      const [r] = await this.db.batch([
        insertOf('metrics', COLS, input, fixed),
        insertReads(byName, [point.productIntID, String(input.metricName)], reads),
      ])
      return this.get(tenant, Number(r!.lastInsertRowid))
    } catch (e) {
      rethrowAsConflict(e, UNIQUE)
    }
  }

  /** Writes the fields of `patch` and replaces the formula links by `reads` (same batch). */
  async update(
    tenant: string,
    id: number,
    patch: MetricInput,
    reads: number[],
  ): Promise<MetricRecord> {
    const current = await this.get(tenant, id)
    await this.checkStream(tenant, current.productIntID, patch.dataStreamIntID)
    const set = setClause(COLS, patch)
    try {
      await this.db.batch([
        {
          sql: `UPDATE metrics SET ${set.sql ? `${set.sql}, ` : ''}update_at = ? WHERE tenant_id = ? AND id = ?`,
          args: [...set.args, Date.now(), tenant, id],
        },
        { sql: 'DELETE FROM metric_points WHERE metric_int_id = ?', args: [id] },
        insertReads('SELECT ?', [id], reads),
      ])
    } catch (e) {
      rethrowAsConflict(e, UNIQUE)
    }
    return this.get(tenant, id)
  }

  /** A dataStreamIntID must be a stream of the metric's product (404 unknown, 422 another product's). */
  private async checkStream(tenant: string, productIntID: number, id: unknown) {
    if (typeof id === 'number')
      await streamRef(this.db, tenant, productIntID, id, 'dataStreamIntID')
  }

  /** All or none (nothing refers to a metric); its formula links go in the same batch. */
  delete(tenant: string, ids: number[]) {
    return deleteChecked(
      this.db,
      tenant,
      {
        table: 'metrics',
        nameColumn: 'metric_name',
        uses: {},
        before: (ids) => [
          {
            sql: `DELETE FROM metric_points WHERE metric_int_id IN (${marks(ids.length)})`,
            args: ids,
          },
        ],
      },
      ids,
    )
  }
}
