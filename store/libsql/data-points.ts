import type { Db } from './db.ts'
import type {
  DataPointInput,
  DataPointRecord,
  DataPointRepository,
  ModelProductRef,
} from '../types.ts'
import { DATA_POINT_TABLE } from '../fields/product-model.ts'
import { Invalid, NotFound } from '../errors.ts'
import { productRef } from './product-model.ts'
import { TableRepo } from './table-repository.ts'

/**
 * Data points (functions) of the tenant's products. Records carry the product's cloudProtocol for the rules. A
 * delete is refused while a stream, metric (own point or formula), product resource or app template uses one.
 */
export class DataPointsRepo
  extends TableRepo<typeof DATA_POINT_TABLE, typeof DATA_POINT_TABLE, DataPointInput>
  implements DataPointRepository
{
  constructor(db: Db) {
    super(db, {
      name: 'data_points',
      alias: 'x',
      list: DATA_POINT_TABLE,
      from: `FROM data_points x JOIN products p ON p.id = x.product_int_id AND p.tenant_id = x.tenant_id
        LEFT JOIN users u ON u.id = x.user_int_id`,
      notFound: (id) => new NotFound('id', `no data point ${id}`),
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
    })
  }

  /** The product a new data point goes to (404 errors.productIntID when not the tenant's). */
  product(tenant: string, productIntID: number): Promise<ModelProductRef> {
    return productRef(this.db, tenant, { productIntID }, 'productIntID')
  }

  /** Creates a point of `productIntID` (checked by the caller); DATA_EXISTED on a taken dataPointID or name. */
  create(
    tenant: string,
    userIntID: number | null,
    productIntID: number,
    input: DataPointInput,
  ): Promise<DataPointRecord> {
    return this.insert(tenant, input, { product_int_id: productIntID, user_int_id: userIntID })
  }

  /** A dataPointID that formula metrics read cannot change (their expressions name it). */
  override async update(
    tenant: string,
    id: number,
    patch: DataPointInput,
  ): Promise<DataPointRecord> {
    const current = await this.get(tenant, id)
    if (patch.dataPointID !== undefined && patch.dataPointID !== current.dataPointID) {
      const used = await this.db.one(
        'SELECT count(*) AS n FROM metric_points WHERE data_point_int_id = ?',
        [id],
      )
      if (Number(used?.n) > 0)
        throw new Invalid('dataPointID', `used by the formula of ${used!.n} metric(s)`)
    }
    return this.write(tenant, id, patch)
  }
}
