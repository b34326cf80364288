import type { Db } from './db.ts'
import type { ListArgs, Page, Row } from '../types.ts'
import { NotFound, Referenced } from '../errors.ts'
import { listPage, marks, type ListSpec } from './list.ts'
import {
  GATEWAY_COLUMNS,
  deleteStatements,
  fieldsOf,
  insertRow,
  updateRow,
  type GatewayFields,
  type RowKind,
} from './device-columns.ts'

/** How this repository's rows are written. */
const ROW: RowKind<GatewayFields> = {
  kind: 'gateway',
  columns: GATEWAY_COLUMNS,
  nameField: 'gatewayName',
}

const COLUMNS = `SELECT d.id AS id, d.device_name AS gatewayName, d.device_id AS deviceID,
  d.device_username AS deviceUsername, d.token AS token, d.auth_type AS authType, d.blocked AS blocked,
  d.device_status AS deviceStatus,
  (SELECT count(*) FROM devices c WHERE c.gateway_int_id = d.id AND c.kind = 'device') AS deviceCount,
  d.gateway_protocol AS gatewayProtocol, d.up_link_network AS upLinkNetwork, d.up_link_protocol AS upLinkProtocol,
  d.mac AS mac, p.product_id AS productID, p.id AS productIntID, p.product_name AS productName,
  d.manufacturer AS manufacturer, d.serial_number AS serialNumber, d.soft_version AS softVersion,
  d.hardware_version AS hardwareVersion, d.description AS description, d.location AS location,
  d.device_console_ip AS deviceConsoleIP, d.device_console_port AS deviceConsolePort,
  d.device_console_username AS deviceConsoleUsername, u.username AS createUser, d.user_int_id AS userIntID,
  d.create_at AS createAt, d.update_at AS updateAt`

const FROM =
  'FROM devices d JOIN products p ON p.id = d.product_int_id LEFT JOIN users u ON u.id = d.user_int_id'

const WHERE = `d.tenant_id = ? AND d.kind = 'gateway'`

const list: ListSpec = {
  columns: COLUMNS,
  from: FROM,
  where: WHERE,
  fields: {
    gatewayName: 'd.device_name',
    deviceID: 'd.device_id',
    productID: 'p.product_id',
    productName: 'p.product_name',
    gatewayProtocol: 'd.gateway_protocol',
    upLinkNetwork: 'd.up_link_network',
    upLinkProtocol: 'd.up_link_protocol',
    authType: 'd.auth_type',
    blocked: 'd.blocked',
    deviceStatus: 'd.device_status',
    mac: 'd.mac',
    updateAt: 'd.update_at',
  },
  timeField: 'd.create_at',
  idField: 'd.id',
  count: { from: 'FROM devices d', baseAlias: 'd' },
}

/** A stored gateway as a write's fields, plus its id and productID. */
export type CurrentGateway = GatewayFields & { id: number; productID: string }

/** Gateways of a tenant: rows of the devices table with kind 'gateway', so their credentials work like a device's. */
export class GatewaysRepo {
  constructor(
    readonly db: Db,
    readonly tz: string,
  ) {}

  list(tenant: string, q: ListArgs): Promise<Page> {
    return listPage(this.db, list, [tenant], q, this.tz)
  }

  /** The detail row (with deviceCount); NotFound when not a gateway of the tenant. */
  async get(tenant: string, id: number): Promise<Row> {
    const r = await this.db.one(`${COLUMNS} ${FROM} WHERE ${WHERE} AND d.id = ?`, [tenant, id])
    if (!r) throw new NotFound()
    return r as Row
  }

  /** The stored fields of a gateway, for merging an edit into them. */
  async current(tenant: string, id: number): Promise<CurrentGateway> {
    const row = await this.get(tenant, id)
    return {
      ...fieldsOf<GatewayFields>(GATEWAY_COLUMNS, row),
      id,
      productID: String(row.productID),
    }
  }

  /** Stores a new gateway; Conflict names deviceID, gatewayName. */
  async create(tenant: string, userIntID: number | null, f: GatewayFields): Promise<Row> {
    return this.get(tenant, await insertRow(this.db, ROW, tenant, userIntID, f))
  }

  /** Replaces every stored field of a gateway with `f` and sets updateAt. */
  async update(tenant: string, id: number, f: GatewayFields): Promise<Row> {
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
