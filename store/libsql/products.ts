import type { Db } from './db.ts'
import type { ListArgs, Page, ProductInput, ProductRepository, Row } from '../types.ts'
import { Conflict, Invalid, NotFound, Referenced } from '../errors.ts'
import { listPage, marks, type ListSpec } from './list.ts'
import { isUniqueViolation, uniqueColumns } from './sql-errors.ts'
import { randomId } from '../../src/kernel/secrets.ts'

const COUNTS = `
  (SELECT count(*) FROM devices d WHERE d.product_int_id = p.id AND d.kind = 'device') AS deviceCount,
  (SELECT count(*) FROM app_templates a WHERE a.product_int_id = p.id) AS appCount,
  (SELECT count(*) FROM data_points x WHERE x.product_int_id = p.id) AS dataPointCount,
  (SELECT count(*) FROM data_streams s WHERE s.product_int_id = p.id) AS dataStreamCount,
  (SELECT count(*) FROM product_resources r WHERE r.product_int_id = p.id) AS itemCount`

const COLUMNS = `SELECT p.id AS id, p.product_id AS productID, p.product_name AS productName,
  p.description AS description, p.cloud_protocol AS cloudProtocol, p.user_int_id AS userIntID,
  u.username AS createUser, p.create_at AS createAt, p.update_at AS updateAt, ${COUNTS}`

const FROM = 'FROM products p LEFT JOIN users u ON u.id = p.user_int_id'

const list: ListSpec = {
  columns: COLUMNS,
  from: FROM,
  where: 'p.tenant_id = ?',
  fields: {
    productName: 'p.product_name',
    productID: 'p.product_id',
    cloudProtocol: 'p.cloud_protocol',
    description: 'p.description',
    updateAt: 'p.update_at',
  },
  timeField: 'p.create_at',
  idField: 'p.id',
}

/** Products of a tenant. */
export class ProductsRepo implements ProductRepository {
  constructor(private readonly db: Db) {}

  list(tenant: string, q: ListArgs): Promise<Page> {
    return listPage(this.db, list, [tenant], q)
  }

  async get(tenant: string, id: number): Promise<Row> {
    const r = await this.db.one(`${COLUMNS} ${FROM} WHERE p.tenant_id = ? AND p.id = ?`, [
      tenant,
      id,
    ])
    if (!r) throw new NotFound()
    return r as Row
  }

  /** By the string productID; NotFound names `field`. */
  async byProductID(tenant: string, productID: string, field = 'productID'): Promise<Row> {
    const r = await this.db.one(`${COLUMNS} ${FROM} WHERE p.tenant_id = ? AND p.product_id = ?`, [
      tenant,
      productID,
    ])
    if (!r) throw new NotFound(field, `no product ${productID}`)
    return r as Row
  }

  async create(
    tenant: string,
    userIntID: number | null,
    p: Required<Pick<ProductInput, 'productName' | 'cloudProtocol'>> & ProductInput,
  ) {
    for (let attempt = 0; ; attempt++) {
      try {
        const r = await this.db.run(
          `INSERT INTO products (tenant_id, product_id, product_name, description, cloud_protocol, user_int_id, create_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
          [
            tenant,
            randomId(6),
            p.productName,
            p.description ?? null,
            p.cloudProtocol,
            userIntID,
            Date.now(),
          ],
        )
        return this.get(tenant, r.lastId)
      } catch (e) {
        if (!isUniqueViolation(e)) throw e
        if (uniqueColumns(e).includes('products.product_name')) throw new Conflict('productName')
        if (attempt > 5) throw e
      }
    }
  }

  async update(tenant: string, id: number, p: ProductInput) {
    const current = await this.get(tenant, id)
    if (
      p.cloudProtocol !== undefined &&
      p.cloudProtocol !== current.cloudProtocol &&
      Number(current.deviceCount) > 0
    )
      throw new Invalid('cloudProtocol', 'cannot change the protocol of a product that has devices')
    try {
      await this.db.run(
        `UPDATE products SET product_name = coalesce(?, product_name), cloud_protocol = coalesce(?, cloud_protocol),
           description = CASE WHEN ? THEN ? ELSE description END, update_at = ? WHERE tenant_id = ? AND id = ?`,
        [
          p.productName ?? null,
          p.cloudProtocol ?? null,
          p.description !== undefined ? 1 : 0,
          p.description ?? null,
          Date.now(),
          tenant,
          id,
        ],
      )
    } catch (e) {
      if (isUniqueViolation(e)) throw new Conflict('productName')
      throw e
    }
    return this.get(tenant, id)
  }

  /** Deletes all of `ids` or none: refused while a product still has devices, gateways, groups or model records. */
  async delete(tenant: string, ids: number[]) {
    const rows = await this.db.all(
      `SELECT p.id AS id, p.product_name AS name,
         (SELECT count(*) FROM devices d WHERE d.product_int_id = p.id) AS devices,
         (SELECT count(*) FROM groups g WHERE g.product_int_id = p.id) AS groups,
         (SELECT count(*) FROM data_points x WHERE x.product_int_id = p.id) AS dataPoints,
         (SELECT count(*) FROM data_streams s WHERE s.product_int_id = p.id) AS dataStreams,
         (SELECT count(*) FROM metrics m WHERE m.product_int_id = p.id) AS metrics,
         (SELECT count(*) FROM product_resources r WHERE r.product_int_id = p.id) AS resources,
         (SELECT count(*) FROM app_templates a WHERE a.product_int_id = p.id) AS appTemplates
       FROM products p WHERE p.tenant_id = ? AND p.id IN (${marks(ids.length)})`,
      [tenant, ...ids],
    )
    if (rows.length !== ids.length) throw new NotFound('ids')
    for (const r of rows) {
      const used = [
        'devices',
        'groups',
        'dataPoints',
        'dataStreams',
        'metrics',
        'resources',
        'appTemplates',
      ]
        .filter((k) => Number(r[k]) > 0)
        .map((k) => `${r[k]} ${k}`)
      if (used.length)
        throw new Referenced('ids', `product ${r.id} (${r.name}) still has ${used.join(', ')}`)
    }
    await this.db.run(`DELETE FROM products WHERE tenant_id = ? AND id IN (${marks(ids.length)})`, [
      tenant,
      ...ids,
    ])
  }
}
