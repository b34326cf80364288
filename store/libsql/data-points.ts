import type { Db } from './db.ts'
import type { DataPointInput, DataPointRecord, DataPointRepository } from '../types.ts'
import { DATA_POINT_TABLE } from '../fields/product-model.ts'
import { Invalid } from '../errors.ts'
import { ModelRecordRepo, modelTable } from './product-model.ts'

/**
 * Data points (functions) of the tenant's products. Records carry the product's cloudProtocol for the rules. A
 * delete is refused while a stream, metric (own point or formula), product resource or app template uses one.
 */
export class DataPointsRepo
  extends ModelRecordRepo<typeof DATA_POINT_TABLE, DataPointInput, number>
  implements DataPointRepository
{
  constructor(db: Db) {
    super(
      db,
      modelTable('data_points', 'data point', {
        list: DATA_POINT_TABLE,
        joins: 'LEFT JOIN users u ON u.id = x.user_int_id',
        unique: { data_point_id: 'dataPointID', data_point_name: 'dataPointName' },
        remove: {
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
      }),
      'productIntID',
      (r) => r.productIntID,
    )
  }

  /** A dataPointID that formula metrics read cannot change (their expressions name it). */
  protected override async checkUpdate(
    _tenant: string,
    current: DataPointRecord,
    patch: DataPointInput,
  ) {
    if (patch.dataPointID === undefined || patch.dataPointID === current.dataPointID) return
    const used = await this.db.one(
      'SELECT count(*) AS n FROM metric_points WHERE data_point_int_id = ?',
      [current.id],
    )
    if (Number(used?.n) > 0)
      throw new Invalid('dataPointID', `used by the formula of ${Number(used!.n)} metric(s)`)
  }
}
