import type { Db } from './db.ts'
import type { CurrentGateway, GatewayFields, GatewayRecord, GatewayRepository } from '../types.ts'
import { GATEWAY_COLUMNS, deviceUnique, everyColumn, fieldsOf } from './device-columns.ts'
import { TableRepo } from './table-repository.ts'
import { GATEWAY_TABLE } from '../fields/devices.ts'
import { countedDevices } from './device-counts.ts'

/**
 * Gateways of a tenant: rows of the devices table with kind 'gateway', so their credentials work like a
 * device's. A delete is refused (Referenced) while devices hang off a gateway; its group, policy and
 * certificate links and subscriptions go with it.
 */
export class GatewaysRepo
  extends TableRepo<typeof GATEWAY_TABLE, typeof GATEWAY_TABLE, GatewayFields>
  implements GatewayRepository
{
  constructor(db: Db) {
    super(db, {
      list: GATEWAY_TABLE,
      from: 'FROM devices d JOIN products p ON p.id = d.product_int_id LEFT JOIN users u ON u.id = d.user_int_id',
      scope: { column: 'kind', value: 'gateway' },
      count: { from: 'FROM devices d', baseAlias: 'd' },
      counter: countedDevices,
      unique: deviceUnique('gatewayName'),
      remove: {
        nameColumn: 'device_name',
        uses: { devices: 'SELECT count(*) FROM devices c WHERE c.gateway_int_id = x.id' },
        refused: (r) => `gateway ${r.id} (${r.name}) still has ${r.uses[0]![1]} devices`,
      },
    })
  }

  /** The stored fields of a gateway, for merging an edit into them. */
  async current(tenant: string, id: number): Promise<CurrentGateway> {
    const row = await this.get(tenant, id)
    return { ...fieldsOf<GatewayFields>(GATEWAY_COLUMNS, row), id, productID: row.productID }
  }

  /** Stores a new gateway; Conflict names deviceID, gatewayName. */
  create(tenant: string, userIntID: number | null, f: GatewayFields): Promise<GatewayRecord> {
    return this.insert(tenant, f, { user_int_id: userIntID })
  }

  /** Replaces every stored field of a gateway with `f` and sets updateAt. */
  override update(tenant: string, id: number, f: GatewayFields): Promise<GatewayRecord> {
    return this.write(tenant, id, everyColumn(GATEWAY_COLUMNS, f))
  }
}
