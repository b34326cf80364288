import type { InStatement, InValue } from '@libsql/client'
import type { Db } from './db.ts'
import type {
  DataStreamDetailRecord,
  DataStreamInput,
  DataStreamRecord,
  DataStreamRepository,
  ListArgs,
  ModelProductRef,
  Page,
} from '../types.ts'
import { DATA_STREAM_DETAIL_TABLE, DATA_STREAM_TABLE } from '../fields/product-model.ts'
import { writeColumns } from '../fields/table.ts'
import { Invalid, NotFound } from '../errors.ts'
import { listPage, marks, tableList } from './list.ts'
import { readRecord } from './records.ts'
import {
  deleteChecked,
  insertOf,
  pointRefs,
  productRef,
  rethrowAsConflict,
  setClause,
} from './product-model.ts'

const FROM =
  'FROM data_streams x JOIN products p ON p.id = x.product_int_id AND p.tenant_id = x.tenant_id'

const list = tableList(DATA_STREAM_TABLE, {
  from: FROM,
  where: 'x.tenant_id = ?',
  timeField: 'x.create_at',
  idField: 'x.id',
})

const COLS = writeColumns(DATA_STREAM_TABLE)
const UNIQUE = { topic: 'topic', stream_name: 'streamName' }

/** Links of stream `streamSql` (a subquery giving its id) to the points of `ids`. */
const linkPoints = (streamSql: string, streamArgs: InValue[], ids: number[]): InStatement => ({
  sql: `INSERT INTO stream_points (stream_int_id, data_point_int_id) SELECT (${streamSql}), j.value FROM json_each(?) j`,
  args: [...streamArgs, JSON.stringify(ids)],
})

/** Data streams: topic-bound sets of data points of one product; links in stream_points. */
export class DataStreamsRepo implements DataStreamRepository {
  constructor(private readonly db: Db) {}

  /** A page of streams (list form); `productID` of another tenant matches nothing. */
  list(tenant: string, q: ListArgs): Promise<Page<DataStreamRecord>> {
    return listPage(this.db, list, [tenant], q)
  }

  /** One stream with its data point ids and names, or NotFound naming `field`. */
  async get(tenant: string, id: number, field = 'id'): Promise<DataStreamDetailRecord> {
    const r = await readRecord(
      this.db,
      DATA_STREAM_DETAIL_TABLE,
      `${FROM} WHERE x.tenant_id = ? AND x.id = ?`,
      [tenant, id],
    )
    if (!r) throw new NotFound(field, `no data stream ${id}`)
    return r
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
    const fixed = {
      tenant_id: tenant,
      product_int_id: product.id,
      user_int_id: userIntID,
      create_at: Date.now(),
    }
    const byTopic = 'SELECT id FROM data_streams WHERE product_int_id = ? AND topic = ?'
    try {
      const [r] = await this.db.batch([
        insertOf('data_streams', COLS, input, fixed),
        linkPoints(byTopic, [product.id, String(input.topic)], ids),
      ])
      return this.get(tenant, Number(r!.lastInsertRowid))
    } catch (e) {
      rethrowAsConflict(e, UNIQUE)
    }
  }

  /** Writes the fields of `patch`; `dataPoints`, when given, replaces the links (same batch). */
  async update(
    tenant: string,
    id: number,
    patch: DataStreamInput,
  ): Promise<DataStreamDetailRecord> {
    const current = await this.get(tenant, id)
    const links: InStatement[] = []
    if (patch.dataPoints) {
      await pointRefs(this.db, tenant, current.productIntID, patch.dataPoints, 'dataPoints')
      links.push({ sql: 'DELETE FROM stream_points WHERE stream_int_id = ?', args: [id] })
      links.push(linkPoints('SELECT ?', [id], patch.dataPoints))
    }
    const set = setClause(COLS, patch)
    try {
      await this.db.batch([
        {
          sql: `UPDATE data_streams SET ${set.sql ? `${set.sql}, ` : ''}update_at = ? WHERE tenant_id = ? AND id = ?`,
          args: [...set.args, Date.now(), tenant, id],
        },
        ...links,
      ])
    } catch (e) {
      rethrowAsConflict(e, UNIQUE)
    }
    return this.get(tenant, id)
  }

  /** All or none; refused while an app template or metric references the stream. Links go in the same batch. */
  delete(tenant: string, ids: number[]) {
    return deleteChecked(
      this.db,
      tenant,
      {
        table: 'data_streams',
        nameColumn: 'stream_name',
        uses: {
          appTemplates: 'SELECT count(*) FROM app_templates a WHERE a.data_stream_int_id = x.id',
          metrics: 'SELECT count(*) FROM metrics m WHERE m.data_stream_int_id = x.id',
        },
        before: (ids) => [
          {
            sql: `DELETE FROM stream_points WHERE stream_int_id IN (${marks(ids.length)})`,
            args: ids,
          },
        ],
      },
      ids,
    )
  }
}
