import type { Db } from './db.ts'
import type {
  DeviceKey,
  IngestDevice,
  IngestRepository,
  ModelPoint,
  ModelStream,
} from '../types.ts'
import { readRecord, readRecords, readTables } from './records.ts'
import { marks } from './list.ts'
import {
  INGEST_DEVICE_TABLE,
  MODEL_POINT_TABLE,
  MODEL_STREAM_TABLE,
  PRODUCT_POINT_TABLE,
  STREAM_POINT_TABLE,
} from '../fields/ingest.ts'

const DEVICE_FROM = 'FROM devices d JOIN products p ON p.id = d.product_int_id'

/** Most deviceIDs in one `IN (...)` list. */
const IN_CHUNK = 500

const POINTS_OF = 'FROM data_points x WHERE x.product_int_id = ? ORDER BY x.id'

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
  devicesByUsername(username: string): Promise<IngestDevice[]> {
    return readRecords(this.db, INGEST_DEVICE_TABLE, `${DEVICE_FROM} WHERE d.device_username = ?`, [
      username,
    ])
  }

  /** The device or gateway with this deviceID (unique across tenants), if any. */
  deviceByDeviceID(deviceID: string): Promise<IngestDevice | undefined> {
    return this.device('deviceID', deviceID)
  }

  /**
   * The tenant's devices and gateways among `deviceIDs`: one read of a statement per IN_CHUNK ids, each list padded
   * to a power of two (its last id repeated) so that few SQL texts exist whatever the count.
   */
  async devicesByDeviceIDs(tenant: string, deviceIDs: readonly string[]): Promise<IngestDevice[]> {
    const ids = [...new Set(deviceIDs)]
    if (!ids.length) return []
    const reads = []
    for (let k = 0; k < ids.length; k += IN_CHUNK) {
      const chunk = ids.slice(k, k + IN_CHUNK)
      const size = Math.min(IN_CHUNK, 2 ** Math.ceil(Math.log2(chunk.length)))
      while (chunk.length < size) chunk.push(chunk[chunk.length - 1]!)
      reads.push({
        table: INGEST_DEVICE_TABLE,
        fromWhere: `${DEVICE_FROM} WHERE d.tenant_id = ? AND d.device_id IN (${marks(size)})`,
        args: [tenant, ...chunk],
      })
    }
    return (await readTables(this.db, reads)).flat()
  }

  /** The device or gateway whose `key` is `value`; the oldest when several share a deviceUsername. */
  device(key: DeviceKey, value: string | number): Promise<IngestDevice | undefined> {
    return readRecord(
      this.db,
      INGEST_DEVICE_TABLE,
      `${DEVICE_FROM} WHERE ${DEVICE_KEYS[key]} = ? ORDER BY d.id LIMIT 1`,
      [value],
    )
  }

  /** The devices connected through gateway `gatewayIntID`. */
  childrenOf(gatewayIntID: number): Promise<IngestDevice[]> {
    return readRecords(this.db, INGEST_DEVICE_TABLE, `${DEVICE_FROM} WHERE d.gateway_int_id = ?`, [
      gatewayIntID,
    ])
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
    const [points, streams, links] = await readTables(this.db, [
      { table: MODEL_POINT_TABLE, fromWhere: POINTS_OF, args: [productIntID] },
      {
        table: MODEL_STREAM_TABLE,
        fromWhere: 'FROM data_streams x WHERE x.product_int_id = ? ORDER BY x.id',
        args: [productIntID],
      },
      {
        table: STREAM_POINT_TABLE,
        fromWhere: `FROM stream_points sp JOIN data_streams s ON s.id = sp.stream_int_id
          WHERE s.product_int_id = ?`,
        args: [productIntID],
      },
    ])
    const byStream = new Map<number, number[]>()
    for (const l of links) {
      const list = byStream.get(l.streamIntID) ?? []
      list.push(l.pointIntID)
      byStream.set(l.streamIntID, list)
    }
    return {
      points,
      streams: streams.map((s) => ({ ...s, pointIntIDs: byStream.get(s.id) ?? [] })),
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
    const device = await readRecord(
      this.db,
      INGEST_DEVICE_TABLE,
      `${DEVICE_FROM} WHERE d.tenant_id = ? AND ${column} = ?`,
      [tenant, key],
    )
    if (!device) return undefined
    const points = await readRecords(this.db, MODEL_POINT_TABLE, POINTS_OF, [device.productIntID])
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
    const [devices, points] = await readTables(this.db, [
      {
        table: INGEST_DEVICE_TABLE,
        fromWhere: `${DEVICE_FROM} WHERE d.tenant_id = ? AND d.device_id IN (SELECT value FROM json_each(?))`,
        args: [tenant, ids],
      },
      {
        table: PRODUCT_POINT_TABLE,
        fromWhere: `FROM data_points x WHERE x.product_int_id IN (SELECT d.product_int_id FROM devices d
            WHERE d.tenant_id = ? AND d.device_id IN (SELECT value FROM json_each(?)))
          ORDER BY x.id`,
        args: [tenant, ids],
      },
    ])
    const byProduct = new Map<number, ModelPoint[]>()
    for (const { productIntID, ...p } of points) {
      const list = byProduct.get(productIntID) ?? []
      list.push(p)
      byProduct.set(productIntID, list)
    }
    for (const device of devices) {
      out.set(device.deviceID, { device, points: byProduct.get(device.productIntID) ?? [] })
    }
    return out
  }
}
