import type { IngestRepository } from '../store/types.ts'
import type { EventBus } from '../src/kernel/events.ts'
import type { DeviceIdentity } from './types.ts'

/** Most identities kept in memory; the oldest is dropped first. */
export const DIRECTORY_MAX = 100_000

/**
 * Devices and gateways as ingest sees them (credentials, product, mountpoint parts), read from the metadata
 * store and cached. The cache is bounded and drops a device on `device.changed` / `device.deleted`
 * and a product's devices on `model.changed`; a read that raced with such an event is not cached.
 */
export class DeviceDirectory {
  private byIntID = new Map<number, DeviceIdentity>()
  private idOfDeviceID = new Map<string, number>()
  private idOfUsername = new Map<string, number>()
  /** Bumped on every invalidation: a read started before it must not fill the cache. */
  private generation = 0

  constructor(
    private readonly repo: Pick<IngestRepository, 'device' | 'devicesByDeviceIDs'>,
    bus: EventBus,
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
    return this.load('deviceID', deviceID)
  }

  /**
   * The tenant's devices and gateways among `deviceIDs`, by deviceID: those in memory at once, all the others with
   * one store read (which fills the cache). Another tenant's device, cached or not, is absent like an unknown one.
   */
  async byDeviceIDs(
    tenant: string,
    deviceIDs: Iterable<string>,
  ): Promise<Map<string, DeviceIdentity>> {
    const found = new Map<string, DeviceIdentity>()
    const misses: string[] = []
    for (const deviceID of new Set(deviceIDs)) {
      const id = this.idOfDeviceID.get(deviceID)
      const hit = id === undefined ? undefined : this.byIntID.get(id)
      if (!hit) misses.push(deviceID)
      else if (hit.tenantID === tenant) found.set(deviceID, hit)
    }
    if (!misses.length) return found
    const generation = this.generation
    const loaded = await this.repo.devicesByDeviceIDs(tenant, misses)
    for (const d of loaded) {
      if (generation === this.generation) this.remember(d)
      found.set(d.deviceID, d)
    }
    return found
  }

  /** The device or gateway with that deviceUsername (HTTP Basic credentials); the oldest when several share it. */
  async byUsername(deviceUsername: string): Promise<DeviceIdentity | undefined> {
    const id = this.idOfUsername.get(deviceUsername)
    const hit = id === undefined ? undefined : this.byIntID.get(id)
    if (hit) return hit
    return this.load('deviceUsername', deviceUsername)
  }

  /** The device or gateway with that record id. */
  async byId(id: number): Promise<DeviceIdentity | undefined> {
    return this.byIntID.get(id) ?? this.load('id', id)
  }

  /** Forgets one device (its credentials, blocked flag or product changed, or it was deleted). */
  drop(id: number, deviceID?: string) {
    this.generation++
    const known = this.byIntID.get(id)
    this.byIntID.delete(id)
    for (const key of [deviceID, known?.deviceID])
      if (key && this.idOfDeviceID.get(key) === id) this.idOfDeviceID.delete(key)
    if (known && this.idOfUsername.get(known.deviceUsername) === id)
      this.idOfUsername.delete(known.deviceUsername)
  }

  private dropProduct(productIntID: number) {
    for (const d of [...this.byIntID.values()])
      if (d.productIntID === productIntID) this.drop(d.id, d.deviceID)
  }

  private async load(
    key: 'id' | 'deviceID' | 'deviceUsername',
    value: string | number,
  ): Promise<DeviceIdentity | undefined> {
    const generation = this.generation
    const identity = await this.repo.device(key, value)
    if (identity && generation === this.generation) this.remember(identity)
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
