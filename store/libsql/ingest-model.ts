import type { Db, Row } from './db.ts'
import type {
  DeviceKey,
  IngestDevice,
  IngestRepository,
  ModelPoint,
  ModelStream,
} from '../types.ts'

const DEVICE_SELECT = `SELECT d.id, d.tenant_id AS tenantID, d.kind, d.device_id AS deviceID, d.device_name AS deviceName,
  d.device_username AS deviceUsername, d.token, d.auth_type AS authType, d.blocked, d.product_int_id AS productIntID,
  p.product_id AS productID, p.cloud_protocol AS cloudProtocol, d.gateway_int_id AS gatewayIntID,
  d.parent_device_int_id AS parentDeviceIntID
  FROM devices d JOIN products p ON p.id = d.product_int_id`

const POINT_COLUMNS = `id, data_point_id AS dataPointID, data_point_name AS dataPointName,
  point_data_type AS pointDataType, upper_limit AS upperLimit, lower_limit AS lowerLimit, binary_size AS binarySize,
  fault_value AS faultValue`

const POINT_SELECT = `SELECT ${POINT_COLUMNS} FROM data_points WHERE product_int_id = ? ORDER BY id`

const asDevice = (r: Row) => r as unknown as IngestDevice

/** The lookup keys of a device identity. */
const DEVICE_KEYS: Record<DeviceKey, string> = {
  id: 'd.id',
  deviceID: 'd.device_id',
  deviceUsername: 'd.device_username',
}

/** The reads of the uplink pipeline and HTTP ingest: device identities and product models. */
export class IngestModelRepo implements IngestRepository {
  constructor(private readonly db: Db) {}

  /** Devices and gateways with this deviceUsername (not unique: the caller compares tokens). */
  async devicesByUsername(username: string): Promise<IngestDevice[]> {
    return (await this.db.all(`${DEVICE_SELECT} WHERE d.device_username = ?`, [username])).map(
      asDevice,
    )
  }

  /** The device or gateway with this deviceID (unique across tenants), if any. */
  deviceByDeviceID(deviceID: string): Promise<IngestDevice | undefined> {
    return this.device('deviceID', deviceID)
  }

  /** The device or gateway whose `key` is `value`; the oldest when several share a deviceUsername. */
  async device(key: DeviceKey, value: string | number): Promise<IngestDevice | undefined> {
    const r = await this.db.one(
      `${DEVICE_SELECT} WHERE ${DEVICE_KEYS[key]} = ? ORDER BY d.id LIMIT 1`,
      [value],
    )
    return r && asDevice(r)
  }

  /** The devices connected through gateway `gatewayIntID`. */
  async childrenOf(gatewayIntID: number): Promise<IngestDevice[]> {
    return (await this.db.all(`${DEVICE_SELECT} WHERE d.gateway_int_id = ?`, [gatewayIntID])).map(
      asDevice,
    )
  }

  /** The groupIDs of the groups device `deviceIntID` is a member of (groups of its own product). */
  async groupsOf(deviceIntID: number): Promise<string[]> {
    const rows = await this.db.all(
      `SELECT g.group_id AS groupID FROM group_devices gd
       JOIN groups g ON g.id = gd.group_int_id
       JOIN devices d ON d.id = gd.device_int_id AND d.product_int_id = g.product_int_id
         AND d.tenant_id = g.tenant_id
       WHERE gd.device_int_id = ? ORDER BY g.id`,
      [deviceIntID],
    )
    return rows.map((r) => String(r.groupID))
  }

  /** A product's data points and data streams (with their points), for decoding uplinks. */
  async productModel(
    productIntID: number,
  ): Promise<{ points: ModelPoint[]; streams: ModelStream[] }> {
    const [points, streams, links] = await this.db.read([
      { sql: POINT_SELECT, args: [productIntID] },
      {
        sql: 'SELECT id, topic, stream_type AS streamType FROM data_streams WHERE product_int_id = ? ORDER BY id',
        args: [productIntID],
      },
      {
        sql: `SELECT sp.stream_int_id AS streamIntID, sp.data_point_int_id AS pointIntID FROM stream_points sp
              JOIN data_streams s ON s.id = sp.stream_int_id WHERE s.product_int_id = ?`,
        args: [productIntID],
      },
    ])
    const byStream = new Map<number, number[]>()
    for (const l of links!) {
      const list = byStream.get(Number(l.streamIntID)) ?? []
      list.push(Number(l.pointIntID))
      byStream.set(Number(l.streamIntID), list)
    }
    return {
      points: points as unknown as ModelPoint[],
      streams: streams!.map((s) => ({
        id: Number(s.id),
        topic: String(s.topic),
        streamType: Number(s.streamType),
        pointIntIDs: byStream.get(Number(s.id)) ?? [],
      })),
    }
  }

  /**
   * The tenant's device or gateway whose record id (a number) or deviceID (a string) is `key`, with its product's
   * data points; undefined when the tenant has none such.
   */
  async deviceWithPoints(
    tenant: string,
    key: number | string,
  ): Promise<{ device: IngestDevice; points: ModelPoint[] } | undefined> {
    const column = typeof key === 'number' ? 'd.id' : 'd.device_id'
    const d = await this.db.one(`${DEVICE_SELECT} WHERE d.tenant_id = ? AND ${column} = ?`, [
      tenant,
      key,
    ])
    if (!d) return undefined
    const device = asDevice(d)
    const points = (await this.db.all(POINT_SELECT, [
      device.productIntID,
    ])) as unknown as ModelPoint[]
    return { device, points }
  }

  /** deviceWithPoints of many deviceIDs of a tenant: two SELECTs in one read, whatever their number. */
  async devicesWithPoints(
    tenant: string,
    deviceIDs: readonly string[],
  ): Promise<Map<string, { device: IngestDevice; points: ModelPoint[] }>> {
    const out = new Map<string, { device: IngestDevice; points: ModelPoint[] }>()
    if (!deviceIDs.length) return out
    const ids = JSON.stringify(deviceIDs)
    const [devices, points] = await this.db.read([
      {
        sql: `${DEVICE_SELECT} WHERE d.tenant_id = ? AND d.device_id IN (SELECT value FROM json_each(?))`,
        args: [tenant, ids],
      },
      {
        sql: `SELECT product_int_id AS productIntID, ${POINT_COLUMNS} FROM data_points
              WHERE product_int_id IN (SELECT d.product_int_id FROM devices d
                WHERE d.tenant_id = ? AND d.device_id IN (SELECT value FROM json_each(?)))
              ORDER BY id`,
        args: [tenant, ids],
      },
    ])
    const byProduct = new Map<number, ModelPoint[]>()
    for (const { productIntID, ...p } of points!) {
      const list = byProduct.get(Number(productIntID)) ?? []
      list.push(p as unknown as ModelPoint)
      byProduct.set(Number(productIntID), list)
    }
    for (const row of devices!) {
      const device = asDevice(row)
      out.set(device.deviceID, { device, points: byProduct.get(device.productIntID) ?? [] })
    }
    return out
  }
}
