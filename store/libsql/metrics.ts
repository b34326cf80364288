import type { Db } from './db.ts'
import type { MetricInput, MetricRecord, MetricRepository, PointRef } from '../types.ts'
import { METRIC_TABLE, POINT_REF_TABLE } from '../fields/product-model.ts'
import { NotFound } from '../errors.ts'
import { readRecords } from './records.ts'
import { modelTable, pointLinks, streamRef, underProduct } from './product-model.ts'
import { TableRepo } from './table-repository.ts'

/** The links of a metric to the data points its formula reads. */
const READS = pointLinks('metric_points', 'metric_int_id', { table: 'metrics', key: 'metric_name' })

const OPTIONS = modelTable('metrics', 'metric', {
  list: METRIC_TABLE,
  joins:
    'JOIN data_points d ON d.id = x.data_point_int_id LEFT JOIN users u ON u.id = x.user_int_id',
  unique: { metric_name: 'metricName' },
  remove: { nameColumn: 'metric_name', uses: {}, before: READS.drop },
})

/**
 * Formula and aggregate metrics over the data points of a product. Nothing refers to a metric: a delete takes
 * its formula links in the same transaction.
 */
export class MetricsRepo
  extends TableRepo<typeof METRIC_TABLE, typeof METRIC_TABLE, MetricInput>
  implements MetricRepository
{
  constructor(db: Db) {
    super(db, OPTIONS)
  }

  /** The tenant's metrics of a product (detail rows with their point's dataPointID), by id; one metricType or all. */
  forProduct(tenant: string, productIntID: number, metricType?: number): Promise<MetricRecord[]> {
    const byType = metricType === undefined ? '' : ' AND x.metric_type = ?'
    const args =
      metricType === undefined ? [tenant, productIntID] : [tenant, productIntID, metricType]
    return readRecords(
      this.db,
      METRIC_TABLE,
      `${OPTIONS.from} WHERE x.tenant_id = ? AND x.product_int_id = ?${byType} ORDER BY x.id`,
      args,
    )
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
    const links = READS.ofNew(point.productIntID, String(input.metricName), reads)
    return this.insert(tenant, input, underProduct(point.productIntID, userIntID), {
      also: [links],
    })
  }

  /** Writes the fields of `patch` and replaces the formula links by `reads` (same batch). */
  override async update(
    tenant: string,
    id: number,
    patch: MetricInput,
    reads: number[] = [],
  ): Promise<MetricRecord> {
    const current = await this.get(tenant, id)
    await this.checkStream(tenant, current.productIntID, patch.dataStreamIntID)
    return this.write(tenant, id, patch, { also: READS.replace(id, reads) })
  }

  /** A dataStreamIntID must be a stream of the metric's product (404 unknown, 422 another product's). */
  private async checkStream(tenant: string, productIntID: number, id: unknown) {
    if (typeof id === 'number')
      await streamRef(this.db, tenant, productIntID, id, 'dataStreamIntID')
  }
}
