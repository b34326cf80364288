import type { InValue } from '@libsql/client'
import type { Db } from './db.ts'
import type {
  CurrentDevice,
  DeviceFields,
  DeviceListOpts,
  DeviceRecord,
  DeviceRepository,
  ListArgs,
  LocatedDevice,
  Page,
  ProductRef,
  Shape,
  TextPage,
} from '../types.ts'
import { NotFound } from '../errors.ts'
import { listPage, listPageText, marks, type TableListSpec } from './list.ts'
import { countedDevices } from './device-counts.ts'
import { readRecord } from './records.ts'
import { DEVICE_COLUMNS, deviceUnique, everyColumn, fieldsOf } from './device-columns.ts'
import { GatewaysRepo } from './gateways.ts'
import { TableRepo } from './table-repository.ts'
import { DEVICE_TABLE } from '../fields/devices.ts'

const FROM = `FROM devices d JOIN products p ON p.id = d.product_int_id
  LEFT JOIN devices g ON g.id = d.gateway_int_id
  LEFT JOIN devices pd ON pd.id = d.parent_device_int_id
  LEFT JOIN users u ON u.id = d.user_int_id`

const IN_GROUP = `EXISTS (SELECT 1 FROM group_devices gd JOIN groups gr ON gr.id = gd.group_int_id
  WHERE gd.device_int_id = d.id AND gr.tenant_id = d.tenant_id AND gr.group_id = ?)`

/**
 * Devices of a tenant (kind 'device' of the devices table); gateways are `.gateways`. A delete is refused
 * (Referenced) while a device has child devices that are not deleted with it. Group memberships, policy and
 * certificate bindings and proxy subscriptions are links, not records in use: the triggers of migration 020
 * remove them with the device, in the same statement, and those of 070 its connection logs, uplink and downlink
 * messages and alerts.
 */
export class DevicesRepo
  extends TableRepo<typeof DEVICE_TABLE, typeof DEVICE_TABLE, DeviceFields>
  implements DeviceRepository
{
  readonly gateways: GatewaysRepo

  constructor(db: Db) {
    super(db, {
      list: DEVICE_TABLE,
      from: FROM,
      scope: { column: 'kind', value: 'device' },
      count: { from: 'FROM devices d', baseAlias: 'd' },
      counter: countedDevices,
      unique: deviceUnique('deviceName'),
      remove: {
        nameColumn: 'device_name',
        uses: {
          children: `SELECT count(*) FROM devices c
            WHERE c.parent_device_int_id = x.id AND c.id NOT IN (SELECT value FROM json_each(?))`,
        },
        usesArgs: (ids) => [JSON.stringify(ids)],
        refused: (r) => `device ${r.id} (${r.name}) still has ${r.uses[0]![1]} child devices`,
      },
    })
    this.gateways = new GatewaysRepo(db)
  }

  /**
   * A page of devices; `groupID` narrows to members of that group; `kinds` (default devices only) may take
   * gateways in too, as rows of the same columns.
   */
  override list(
    tenant: string,
    q: ListArgs,
    opts: DeviceListOpts = {},
  ): Promise<Page<DeviceRecord>> {
    const [spec, args] = this.listOf(tenant, opts)
    return listPage(this.db, spec, args, q)
  }

  override listText(
    tenant: string,
    q: ListArgs,
    shape: Shape,
    opts: DeviceListOpts = {},
  ): Promise<TextPage> {
    const [spec, args] = this.listOf(tenant, opts)
    return listPageText(this.db, spec, args, q, shape)
  }

  /** The list spec of `opts` (kinds, group) and its base args. */
  private listOf(
    tenant: string,
    opts: DeviceListOpts,
  ): [TableListSpec<typeof DEVICE_TABLE>, InValue[]] {
    const kinds = opts.kinds ?? ['device']
    const where = `d.tenant_id = ? AND d.kind IN (${marks(kinds.length)})`
    if (opts.groupID === undefined) return [{ ...this.listSpec, where }, [tenant, ...kinds]]
    return [
      { ...this.listSpec, where: `${where} AND ${IN_GROUP}`, counter: undefined },
      [tenant, ...kinds, opts.groupID],
    ]
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

  /**
   * A page of the tenant's devices a map can place, by id after `afterID`: those with a latitude and a longitude,
   * and those (without) whose product has a geolocation data point (pointDataType 6), their latest value of it
   * being where they are. A few columns each: a map of 100,000 devices reads them in 20 pages of 5,000.
   */
  async located(tenant: string, afterID: number, limit: number): Promise<LocatedDevice[]> {
    const rows = await this.db.all(
      `SELECT d.id, d.device_id AS deviceID, d.device_name AS deviceName, d.device_status AS deviceStatus,
         p.product_id AS productID, d.latitude, d.longitude
       FROM devices d JOIN products p ON p.id = d.product_int_id
       WHERE d.tenant_id = ? AND d.kind = 'device' AND d.id > ?
         AND ((d.latitude IS NOT NULL AND d.longitude IS NOT NULL)
           OR d.product_int_id IN (SELECT product_int_id FROM data_points
                                   WHERE tenant_id = ? AND point_data_type = 6))
       ORDER BY d.id LIMIT ?`,
      [tenant, afterID, tenant, limit],
    )
    const num = (v: unknown) => (v === null || v === undefined ? null : Number(v))
    return rows.map((r) => ({
      id: Number(r.id),
      deviceID: String(r.deviceID),
      deviceName: String(r.deviceName),
      deviceStatus: Number(r.deviceStatus ?? 0),
      productID: String(r.productID),
      latitude: num(r.latitude),
      longitude: num(r.longitude),
    }))
  }

  /** Stores a new device; Conflict names deviceID, deviceName or modBusIndex. */
  create(tenant: string, userIntID: number | null, f: DeviceFields): Promise<DeviceRecord> {
    return this.insert(tenant, f, { user_int_id: userIntID })
  }

  /** Replaces every stored field of a device with `f` and sets updateAt. */
  override update(tenant: string, id: number, f: DeviceFields): Promise<DeviceRecord> {
    return this.write(tenant, id, everyColumn(DEVICE_COLUMNS, f))
  }
}
