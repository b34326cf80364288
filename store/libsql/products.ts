import type { Db } from './db.ts'
import type { ListArgs, Page, ProductInput, ProductRecord, ProductRepository } from '../types.ts'
import { PRODUCT_TABLE } from '../fields/products.ts'
import { writeColumns } from '../fields/table.ts'
import { Conflict, Invalid, NotFound } from '../errors.ts'
import { listPage, tableList } from './list.ts'
import { deleteChecked, insertOf, readRecord, setClause } from './records.ts'
import { isUniqueViolation, uniqueColumns } from './sql-errors.ts'
import { randomId } from '../../src/kernel/secrets.ts'

const FROM = 'FROM products p LEFT JOIN users u ON u.id = p.user_int_id'

const list = tableList(PRODUCT_TABLE, {
  from: FROM,
  where: 'p.tenant_id = ?',
  timeField: 'p.create_at',
  idField: 'p.id',
})

const COLUMNS = writeColumns(PRODUCT_TABLE)

/** What still uses a product: a delete is refused while any count is above 0. */
const USES = {
  devices: 'SELECT count(*) FROM devices d WHERE d.product_int_id = x.id',
  groups: 'SELECT count(*) FROM groups g WHERE g.product_int_id = x.id',
  dataPoints: 'SELECT count(*) FROM data_points p WHERE p.product_int_id = x.id',
  dataStreams: 'SELECT count(*) FROM data_streams s WHERE s.product_int_id = x.id',
  metrics: 'SELECT count(*) FROM metrics m WHERE m.product_int_id = x.id',
  resources: 'SELECT count(*) FROM product_resources r WHERE r.product_int_id = x.id',
  appTemplates: 'SELECT count(*) FROM app_templates a WHERE a.product_int_id = x.id',
}

/** Products of a tenant. */
export class ProductsRepo implements ProductRepository {
  constructor(private readonly db: Db) {}

  list(tenant: string, q: ListArgs): Promise<Page<ProductRecord>> {
    return listPage(this.db, list, [tenant], q)
  }

  async get(tenant: string, id: number): Promise<ProductRecord> {
    const r = await readRecord(
      this.db,
      PRODUCT_TABLE,
      `${FROM} WHERE p.tenant_id = ? AND p.id = ?`,
      [tenant, id],
    )
    if (!r) throw new NotFound()
    return r
  }

  /** By the string productID; NotFound names `field`. */
  async byProductID(
    tenant: string,
    productID: string,
    field = 'productID',
  ): Promise<ProductRecord> {
    const r = await readRecord(
      this.db,
      PRODUCT_TABLE,
      `${FROM} WHERE p.tenant_id = ? AND p.product_id = ?`,
      [tenant, productID],
    )
    if (!r) throw new NotFound(field, `no product ${productID}`)
    return r
  }

  async create(
    tenant: string,
    userIntID: number | null,
    p: Required<Pick<ProductInput, 'productName' | 'cloudProtocol'>> & ProductInput,
  ) {
    for (let attempt = 0; ; attempt++) {
      try {
        const insert = insertOf(
          'products',
          COLUMNS,
          { ...p, description: p.description ?? null },
          {
            tenant_id: tenant,
            product_id: randomId(6),
            user_int_id: userIntID,
            create_at: Date.now(),
          },
        )
        const r = await this.db.run(insert.sql, insert.args)
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
      current.deviceCount > 0
    )
      throw new Invalid('cloudProtocol', 'cannot change the protocol of a product that has devices')
    const set = setClause(COLUMNS, p)
    try {
      await this.db.run(
        `UPDATE products SET ${set.sql ? `${set.sql}, ` : ''}update_at = ? WHERE tenant_id = ? AND id = ?`,
        [...set.args, Date.now(), tenant, id],
      )
    } catch (e) {
      if (isUniqueViolation(e)) throw new Conflict('productName')
      throw e
    }
    return this.get(tenant, id)
  }

  /** Deletes all of `ids` or none: refused while a product still has devices, gateways, groups or model records. */
  delete(tenant: string, ids: number[]) {
    return deleteChecked(
      this.db,
      tenant,
      {
        table: 'products',
        nameColumn: 'product_name',
        uses: USES,
        refused: (r) =>
          `product ${r.id} (${r.name}) still has ${r.uses.map(([l, n]) => `${n} ${l}`).join(', ')}`,
      },
      ids,
    )
  }
}
