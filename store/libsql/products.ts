import type { Db } from './db.ts'
import type { ProductInput, ProductRecord, ProductRepository } from '../types.ts'
import { PRODUCT_TABLE } from '../fields/products.ts'
import { Invalid, NotFound } from '../errors.ts'
import { readRecord } from './records.ts'
import { TableRepo } from './table-repository.ts'

const FROM = 'FROM products p LEFT JOIN users u ON u.id = p.user_int_id'

/** What still uses a product: a delete is refused while any count is above 0. */
const USES = {
  devices: 'SELECT count(*) FROM devices d WHERE d.product_int_id = x.id',
  groups: 'SELECT count(*) FROM groups g WHERE g.product_int_id = x.id',
  dataPoints: 'SELECT count(*) FROM data_points p WHERE p.product_int_id = x.id',
  dataStreams: 'SELECT count(*) FROM data_streams s WHERE s.product_int_id = x.id',
  metrics: 'SELECT count(*) FROM metrics m WHERE m.product_int_id = x.id',
  resources: 'SELECT count(*) FROM product_resources r WHERE r.product_int_id = x.id',
  appTemplates: 'SELECT count(*) FROM app_templates a WHERE a.product_int_id = x.id',
  firmware: 'SELECT count(*) FROM firmware f WHERE f.product_int_id = x.id',
}

/**
 * Products of a tenant, with a generated productID. A delete is refused while a product still has devices,
 * gateways, groups or model records.
 */
export class ProductsRepo
  extends TableRepo<typeof PRODUCT_TABLE, typeof PRODUCT_TABLE, ProductInput>
  implements ProductRepository
{
  constructor(db: Db) {
    super(db, {
      list: PRODUCT_TABLE,
      from: FROM,
      unique: { product_name: 'productName' },
      generatedId: { column: 'product_id', length: 6 },
      remove: {
        nameColumn: 'product_name',
        uses: USES,
        refused: (r) =>
          `product ${r.id} (${r.name}) still has ${r.uses.map(([l, n]) => `${n} ${l}`).join(', ')}`,
      },
    })
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

  create(
    tenant: string,
    userIntID: number | null,
    p: Required<Pick<ProductInput, 'productName' | 'cloudProtocol'>> & ProductInput,
  ) {
    return this.insert(tenant, p, { user_int_id: userIntID })
  }

  /** The protocol of a product that has devices cannot change. */
  override async update(tenant: string, id: number, p: ProductInput) {
    const current = await this.get(tenant, id)
    if (
      p.cloudProtocol !== undefined &&
      p.cloudProtocol !== current.cloudProtocol &&
      current.deviceCount > 0
    )
      throw new Invalid('cloudProtocol', 'cannot change the protocol of a product that has devices')
    return this.write(tenant, id, p)
  }
}
