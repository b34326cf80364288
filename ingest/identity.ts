import type { Db, Row } from '../store/libsql/db.ts'
import type { Bus } from '../src/bus.ts'
import type { DeviceIdentity } from './types.ts'

/** Most identities kept in memory; the oldest is dropped first. */
export const DIRECTORY_MAX = 100_000

const SELECT = `SELECT d.id AS id, d.tenant_id AS tenantID, d.kind AS kind, d.device_id AS deviceID,
  d.device_name AS deviceName, d.device_username AS deviceUsername, d.token AS token, d.auth_type AS authType,
  d.blocked AS blocked, d.product_int_id AS productIntID, p.product_id AS productID,
  p.cloud_protocol AS cloudProtocol, d.gateway_int_id AS gatewayIntID, d.parent_device_int_id AS parentDeviceIntID
  FROM devices d JOIN products p ON p.id = d.product_int_id`

function identityOf(r: Row): DeviceIdentity {
  return {
    id: Number(r.id),
    tenantID: String(r.tenantID),
    kind: r.kind === 'gateway' ? 'gateway' : 'device',
    deviceID: String(r.deviceID),
    deviceName: String(r.deviceName),
    deviceUsername: String(r.deviceUsername),
    token: String(r.token),
    authType: r.authType === null || r.authType === undefined ? null : Number(r.authType),
    blocked: Number(r.blocked),
    productIntID: Number(r.productIntID),
    productID: String(r.productID),
    cloudProtocol: Number(r.cloudProtocol),
    gatewayIntID: r.gatewayIntID === null || r.gatewayIntID === undefined ? null : Number(r.gatewayIntID),
    parentDeviceIntID:
      r.parentDeviceIntID === null || r.parentDeviceIntID === undefined ? null : Number(r.parentDeviceIntID),
  }
}

/**
 * Devices and gateways as ingest sees them (credentials, product, mountpoint parts), read from the devices table
 * joined with products and cached. The cache is bounded and drops a device on `device.changed` / `device.deleted`
 * and a product's devices on `model.changed`; a read that raced with such an event is not cached.
 */
export class DeviceDirectory {
  private byIntID = new Map<number, DeviceIdentity>()
  private idOfDeviceID = new Map<string, number>()
  private idOfUsername = new Map<string, number>()
  /** Bumped on every invalidation: a read started before it must not fill the cache. */
  private generation = 0

  constructor(
    private readonly db: Db,
    bus: Bus,
    private readonly max = DIRECTORY_MAX,
  ) {
    bus.on('device.changed', (e) => this.drop(e.id, e.deviceID))
    bus.on('device.deleted', (e) => this.drop(e.id, e.deviceID))
    bus.on('model.changed', (e) => this.dropProduct(e.productIntID))
  }

  /** The device or gateway whose deviceID (the MQTT client id) is `deviceID`. */
  async byDeviceID(deviceID: string): Promise<DeviceIdentity | undefined> {
    const id = this.idOfDeviceID.get(deviceID)
    const hit = id === undefined ? undefined : this.byIntID.get(id)
    if (hit) return hit
    return this.load('d.device_id = ?', deviceID)
  }

  /** The device or gateway with that deviceUsername (HTTP Basic credentials); the oldest when several share it. */
  async byUsername(deviceUsername: string): Promise<DeviceIdentity | undefined> {
    const id = this.idOfUsername.get(deviceUsername)
    const hit = id === undefined ? undefined : this.byIntID.get(id)
    if (hit) return hit
    return this.load('d.device_username = ?', deviceUsername)
  }

  /** The device or gateway with that record id. */
  async byId(id: number): Promise<DeviceIdentity | undefined> {
    return this.byIntID.get(id) ?? this.load('d.id = ?', id)
  }

  /** Forgets one device (its credentials, blocked flag or product changed, or it was deleted). */
  drop(id: number, deviceID?: string) {
    this.generation++
    const known = this.byIntID.get(id)
    this.byIntID.delete(id)
    for (const key of [deviceID, known?.deviceID]) if (key && this.idOfDeviceID.get(key) === id) this.idOfDeviceID.delete(key)
    if (known && this.idOfUsername.get(known.deviceUsername) === id) this.idOfUsername.delete(known.deviceUsername)
  }

  private dropProduct(productIntID: number) {
    for (const d of [...this.byIntID.values()]) if (d.productIntID === productIntID) this.drop(d.id, d.deviceID)
  }

  private async load(where: string, arg: string | number): Promise<DeviceIdentity | undefined> {
    const generation = this.generation
    const row = await this.db.one(`${SELECT} WHERE ${where} ORDER BY d.id LIMIT 1`, [arg])
    if (!row) return undefined
    const identity = identityOf(row)
    if (generation === this.generation) this.remember(identity)
    return identity
  }

  private remember(d: DeviceIdentity) {
    if (!this.byIntID.has(d.id) && this.byIntID.size >= this.max) {
      const oldest = this.byIntID.keys().next().value
      if (oldest !== undefined) this.drop(oldest)
    }
    this.byIntID.set(d.id, d)
    this.idOfDeviceID.set(d.deviceID, d.id)
    if (!this.idOfUsername.has(d.deviceUsername)) this.idOfUsername.set(d.deviceUsername, d.id)
  }
}
