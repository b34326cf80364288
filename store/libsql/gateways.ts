import type { Db } from './db.ts'
import type {
  CurrentGateway,
  GatewayFields,
  GatewayRecord,
  GatewayRepository,
  ListArgs,
  Page,
} from '../types.ts'
import { NotFound, Referenced } from '../errors.ts'
import { listPage, marks, tableList } from './list.ts'
import { readRecord } from './records.ts'
import {
  GATEWAY_COLUMNS,
  deleteStatements,
  fieldsOf,
  insertRow,
  updateRow,
  type RowKind,
} from './device-columns.ts'
import { GATEWAY_TABLE } from '../fields/devices.ts'

/** How this repository's rows are written. */
const ROW: RowKind<GatewayFields> = {
  kind: 'gateway',
  columns: GATEWAY_COLUMNS,
  nameField: 'gatewayName',
}

const FROM =
  'FROM devices d JOIN products p ON p.id = d.product_int_id LEFT JOIN users u ON u.id = d.user_int_id'

const WHERE = `d.tenant_id = ? AND d.kind = 'gateway'`

const list = tableList(GATEWAY_TABLE, {
  from: FROM,
  where: WHERE,
  timeField: 'd.create_at',
  idField: 'd.id',
  count: { from: 'FROM devices d', baseAlias: 'd' },
})

/** Gateways of a tenant: rows of the devices table with kind 'gateway', so their credentials work like a device's. */
export class GatewaysRepo implements GatewayRepository {
  constructor(private readonly db: Db) {}

  list(tenant: string, q: ListArgs): Promise<Page<GatewayRecord>> {
    return listPage(this.db, list, [tenant], q)
  }

  /** The detail record (with deviceCount); NotFound when not a gateway of the tenant. */
  async get(tenant: string, id: number): Promise<GatewayRecord> {
    const r = await readRecord(this.db, GATEWAY_TABLE, `${FROM} WHERE ${WHERE} AND d.id = ?`, [
      tenant,
      id,
    ])
    if (!r) throw new NotFound()
    return r
  }

  /** The stored fields of a gateway, for merging an edit into them. */
  async current(tenant: string, id: number): Promise<CurrentGateway> {
    const row = await this.get(tenant, id)
    return {
      ...fieldsOf<GatewayFields>(GATEWAY_COLUMNS, row),
      id,
      productID: row.productID,
    }
  }

  /** Stores a new gateway; Conflict names deviceID, gatewayName. */
  async create(tenant: string, userIntID: number | null, f: GatewayFields): Promise<GatewayRecord> {
    return this.get(tenant, await insertRow(this.db, ROW, tenant, userIntID, f))
  }

  /** Replaces every stored field of a gateway with `f` and sets updateAt. */
  async update(tenant: string, id: number, f: GatewayFields): Promise<GatewayRecord> {
    await updateRow(this.db, ROW, tenant, id, f)
    return this.get(tenant, id)
  }

  /**
   * Deletes all of `ids` or none; refused (Referenced) while devices hang off a gateway. Its group, policy and
   * certificate links and subscriptions go with it.
   */
  async delete(tenant: string, ids: number[]): Promise<void> {
    const rows = await this.db.all(
      `SELECT d.id AS id, d.device_name AS name,
         (SELECT count(*) FROM devices c WHERE c.gateway_int_id = d.id) AS devices
       FROM devices d WHERE ${WHERE} AND d.id IN (${marks(ids.length)})`,
      [tenant, ...ids],
    )
    if (rows.length !== ids.length) throw new NotFound('ids')
    const used = rows.find((r) => Number(r.devices) > 0)
    if (used)
      throw new Referenced(
        'ids',
        `gateway ${used.id} (${used.name}) still has ${used.devices} devices`,
      )
    await this.db.batch(deleteStatements(tenant, 'gateway', ids))
  }
}
