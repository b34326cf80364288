import type { InStatement, InValue } from '@libsql/client'
import type { Db } from './db.ts'
import type {
  DataStreamInput,
  DataStreamRepository,
  ListArgs,
  ModelProductRef,
  Page,
  Row,
} from '../types.ts'
import { Invalid, NotFound } from '../errors.ts'
import { listPage, marks, type ListSpec } from './list.ts'
import {
  deleteChecked,
  insertOf,
  pointRefs,
  productRef,
  rethrowAsConflict,
  setClause,
} from './product-model.ts'

const POINTS = `(SELECT json_group_array(id) FROM (SELECT sp.data_point_int_id AS id FROM stream_points sp
    WHERE sp.stream_int_id = x.id ORDER BY sp.data_point_int_id)) AS dataPoints,
  (SELECT json_group_array(name) FROM (SELECT d.data_point_name AS name FROM stream_points sp
    JOIN data_points d ON d.id = sp.data_point_int_id WHERE sp.stream_int_id = x.id ORDER BY d.id)) AS dataPointNames`

const BASE = `SELECT x.id AS id, p.product_id AS productID, x.product_int_id AS productIntID, p.product_name AS productName,
  x.stream_name AS streamName, x.stream_type AS streamType, x.stream_data_type AS streamDataType, x.topic AS topic,
  x.detail AS detail, x.user_int_id AS userIntID, x.create_at AS createAt, x.update_at AS updateAt`

const FROM =
  'FROM data_streams x JOIN products p ON p.id = x.product_int_id AND p.tenant_id = x.tenant_id'

const list: ListSpec = {
  columns: BASE,
  from: FROM,
  where: 'x.tenant_id = ?',
  fields: {
    productID: 'p.product_id',
    productName: 'p.product_name',
    streamName: 'x.stream_name',
    topic: 'x.topic',
    streamType: 'x.stream_type',
    streamDataType: 'x.stream_data_type',
    updateAt: 'x.update_at',
  },
  timeField: 'x.create_at',
  idField: 'x.id',
}

const COLS: Record<Exclude<keyof DataStreamInput, 'dataPoints'>, string> = {
  streamName: 'stream_name',
  streamType: 'stream_type',
  streamDataType: 'stream_data_type',
  topic: 'topic',
  detail: 'detail',
}
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
  list(tenant: string, q: ListArgs): Promise<Page> {
    return listPage(this.db, list, [tenant], q)
  }

  /** One stream with its data point ids and names, or NotFound naming `field`. */
  async get(tenant: string, id: number, field = 'id'): Promise<Row> {
    const r = await this.db.one(`${BASE}, ${POINTS} ${FROM} WHERE x.tenant_id = ? AND x.id = ?`, [
      tenant,
      id,
    ])
    if (!r) throw new NotFound(field, `no data stream ${id}`)
    return r as Row
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
  ): Promise<Row> {
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
  async update(tenant: string, id: number, patch: DataStreamInput): Promise<Row> {
    const current = await this.get(tenant, id)
    const links: InStatement[] = []
    if (patch.dataPoints) {
      await pointRefs(this.db, tenant, Number(current.productIntID), patch.dataPoints, 'dataPoints')
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
