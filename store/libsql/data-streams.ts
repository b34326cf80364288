import type { InStatement } from '@libsql/client'
import type { Db } from './db.ts'
import type {
  DataStreamDetailRecord,
  DataStreamInput,
  DataStreamRepository,
  ModelProductRef,
} from '../types.ts'
import { DATA_STREAM_DETAIL_TABLE, DATA_STREAM_TABLE } from '../fields/product-model.ts'
import { Invalid } from '../errors.ts'
import { modelTable, pointLinks, pointRefs, productRef, underProduct } from './product-model.ts'
import { TableRepo } from './table-repository.ts'

const LINKS = pointLinks('stream_points', 'stream_int_id', { table: 'data_streams', key: 'topic' })

/**
 * Data streams: topic-bound sets of data points of one product; links in stream_points. A record is the list
 * form, `get` answers it with its data point ids and names. A delete is refused while an app template or metric
 * references the stream; its links go in the same transaction.
 */
export class DataStreamsRepo
  extends TableRepo<typeof DATA_STREAM_TABLE, typeof DATA_STREAM_DETAIL_TABLE, DataStreamInput>
  implements DataStreamRepository
{
  constructor(db: Db) {
    super(
      db,
      modelTable('data_streams', 'data stream', {
        list: DATA_STREAM_TABLE,
        detail: DATA_STREAM_DETAIL_TABLE,
        unique: { topic: 'topic', stream_name: 'streamName' },
        remove: {
          nameColumn: 'stream_name',
          uses: {
            appTemplates: 'SELECT count(*) FROM app_templates a WHERE a.data_stream_int_id = x.id',
            metrics: 'SELECT count(*) FROM metrics m WHERE m.data_stream_int_id = x.id',
          },
          before: LINKS.drop,
        },
      }),
    )
  }

  /** The product of a create body: by productIntID when given, else by productID (one of them is required). */
  product(
    tenant: string,
    body: { productID?: string; productIntID?: number },
  ): Promise<ModelProductRef> {
    if (body.productIntID === undefined && body.productID === undefined)
      throw new Invalid('productID', 'required (or productIntID)')
    return productRef(
      this.db,
      tenant,
      body,
      body.productIntID !== undefined ? 'productIntID' : 'productID',
    )
  }

  /** Creates the stream and its point links in one batch; the points must be of the same product. */
  async create(
    tenant: string,
    userIntID: number | null,
    product: ModelProductRef,
    input: DataStreamInput,
  ): Promise<DataStreamDetailRecord> {
    const ids = input.dataPoints ?? []
    await pointRefs(this.db, tenant, product.id, ids, 'dataPoints')
    const links = LINKS.ofNew(product.id, String(input.topic), ids)
    return this.insert(tenant, input, underProduct(product.id, userIntID), { also: [links] })
  }

  /** `dataPoints`, when given, replaces the links (same batch). */
  override async update(
    tenant: string,
    id: number,
    patch: DataStreamInput,
  ): Promise<DataStreamDetailRecord> {
    const current = await this.get(tenant, id)
    let links: InStatement[] = []
    if (patch.dataPoints) {
      await pointRefs(this.db, tenant, current.productIntID, patch.dataPoints, 'dataPoints')
      links = LINKS.replace(id, patch.dataPoints)
    }
    return this.write(tenant, id, patch, { also: links })
  }
}
