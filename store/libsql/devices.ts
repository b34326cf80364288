import type { Db } from './db.ts'
import type {
  CurrentDevice,
  DeviceFields,
  DeviceRecord,
  DeviceRepository,
  ListArgs,
  Page,
  ProductRef,
} from '../types.ts'
import { NotFound, Referenced } from '../errors.ts'
import { listPage, marks, tableList } from './list.ts'
import { readRecord } from './records.ts'
import {
  DEVICE_COLUMNS,
  deleteStatements,
  fieldsOf,
  insertRow,
  updateRow,
  type RowKind,
} from './device-columns.ts'
import { GatewaysRepo } from './gateways.ts'
import { DEVICE_TABLE } from '../fields/devices.ts'

/** How this repository's rows are written. */
const ROW: RowKind<DeviceFields> = {
  kind: 'device',
  columns: DEVICE_COLUMNS,
  nameField: 'deviceName',
}

const FROM = `FROM devices d JOIN products p ON p.id = d.product_int_id
  LEFT JOIN devices g ON g.id = d.gateway_int_id
  LEFT JOIN devices pd ON pd.id = d.parent_device_int_id
  LEFT JOIN users u ON u.id = d.user_int_id`

const WHERE = `d.tenant_id = ? AND d.kind = 'device'`

const list = tableList(DEVICE_TABLE, {
  from: FROM,
  where: WHERE,
  timeField: 'd.create_at',
  idField: 'd.id',
  count: { from: 'FROM devices d', baseAlias: 'd' },
})

type RowKindName = 'device' | 'gateway'

const IN_GROUP = `EXISTS (SELECT 1 FROM group_devices gd JOIN groups gr ON gr.id = gd.group_int_id
  WHERE gd.device_int_id = d.id AND gr.tenant_id = d.tenant_id AND gr.group_id = ?)`

/** Devices of a tenant (kind 'device' of the devices table); gateways are `.gateways`. */
export class DevicesRepo implements DeviceRepository {
  readonly gateways: GatewaysRepo

  constructor(private readonly db: Db) {
    this.gateways = new GatewaysRepo(db)
  }

  /**
   * A page of devices; `groupID` narrows to members of that group; `kinds` (default devices only) may take
   * gateways in too, as rows of the same columns.
   */
  list(
    tenant: string,
    q: ListArgs,
    opts: { groupID?: string; kinds?: readonly RowKindName[] } = {},
  ): Promise<Page<DeviceRecord>> {
    const kinds = opts.kinds ?? ['device']
    const where = `d.tenant_id = ? AND d.kind IN (${marks(kinds.length)})`
    if (opts.groupID === undefined)
      return listPage(this.db, { ...list, where }, [tenant, ...kinds], q)
    return listPage(
      this.db,
      { ...list, where: `${where} AND ${IN_GROUP}` },
      [tenant, ...kinds, opts.groupID],
      q,
    )
  }

  /** The detail record of a device or a gateway (its `kind` says which); NotFound when neither. */
  async getAny(tenant: string, id: number): Promise<DeviceRecord> {
    const r = await readRecord(
      this.db,
      DEVICE_TABLE,
      `${FROM} WHERE d.tenant_id = ? AND d.kind IN ('device', 'gateway') AND d.id = ?`,
      [tenant, id],
    )
    if (!r) throw new NotFound()
    return r
  }

  /** The detail record (wire names, JSON as text, times as epoch ms); NotFound when not in the tenant. */
  async get(tenant: string, id: number): Promise<DeviceRecord> {
    const r = await readRecord(this.db, DEVICE_TABLE, `${FROM} WHERE ${WHERE} AND d.id = ?`, [
      tenant,
      id,
    ])
    if (!r) throw new NotFound()
    return r
  }

  /** The stored fields of a device, for merging an edit into them. */
  async current(tenant: string, id: number): Promise<CurrentDevice> {
    const row = await this.get(tenant, id)
    return { ...fieldsOf<DeviceFields>(DEVICE_COLUMNS, row), id, productID: row.productID }
  }

  /** The tenant's product with that productID, or undefined. */
  async product(tenant: string, productID: string): Promise<ProductRef | undefined> {
    const r = await this.db.one(
      `SELECT id, product_id AS productID, cloud_protocol AS cloudProtocol
       FROM products WHERE tenant_id = ? AND product_id = ?`,
      [tenant, productID],
    )
    return r
      ? { id: Number(r.id), productID: String(r.productID), cloudProtocol: Number(r.cloudProtocol) }
      : undefined
  }

  /** True when `id` is a gateway of the tenant. */
  async gatewayExists(tenant: string, id: number): Promise<boolean> {
    const r = await this.db.one(
      `SELECT 1 FROM devices WHERE tenant_id = ? AND kind = 'gateway' AND id = ?`,
      [tenant, id],
    )
    return r !== undefined
  }

  /**
   * The chain of device ids from `id` up through its parents ([id, parent, grandparent ...]); empty when `id` is
   * not a device of the tenant. A device whose chain contains itself would close a cycle.
   */
  async ancestry(tenant: string, id: number): Promise<number[]> {
    const rows = await this.db.all(
      `WITH RECURSIVE up(id, parent, depth) AS (
         SELECT id, parent_device_int_id, 0 FROM devices WHERE tenant_id = ? AND kind = 'device' AND id = ?
         UNION SELECT d.id, d.parent_device_int_id, up.depth + 1 FROM devices d JOIN up ON d.id = up.parent
           WHERE up.depth < 1000)
       SELECT id FROM up ORDER BY depth`,
      [tenant, id],
    )
    return rows.map((r) => Number(r.id))
  }

  /** Stores a new device; Conflict names deviceID, deviceName or modBusIndex. */
  async create(tenant: string, userIntID: number | null, f: DeviceFields): Promise<DeviceRecord> {
    return this.get(tenant, await insertRow(this.db, ROW, tenant, userIntID, f))
  }

  /** Replaces every stored field of a device with `f` and sets updateAt. */
  async update(tenant: string, id: number, f: DeviceFields): Promise<DeviceRecord> {
    await updateRow(this.db, ROW, tenant, id, f)
    return this.get(tenant, id)
  }

  /**
   * Deletes all of `ids` or none. Refused (Referenced) while a device has child devices that are not deleted with
   * it. Group memberships, policy and certificate bindings and proxy subscriptions are links, not records in use:
   * the triggers of migration 020 remove them with the device, in the same statement, and those of 070 its
   * connection logs, uplink and downlink messages and alerts.
   */
  async delete(tenant: string, ids: number[]): Promise<void> {
    const m = marks(ids.length)
    const rows = await this.db.all(
      `SELECT d.id AS id, d.device_name AS name,
         (SELECT count(*) FROM devices c WHERE c.parent_device_int_id = d.id AND c.id NOT IN (${m})) AS children
       FROM devices d WHERE ${WHERE} AND d.id IN (${m})`,
      [...ids, tenant, ...ids],
    )
    if (rows.length !== ids.length) throw new NotFound('ids')
    const used = rows.find((r) => Number(r.children) > 0)
    if (used)
      throw new Referenced(
        'ids',
        `device ${used.id} (${used.name}) still has ${used.children} child devices`,
      )
    await this.db.batch(deleteStatements(tenant, 'device', ids))
  }
}
