import type { DomainEvents, EventBus } from '../src/kernel/events.ts'
import type { LastValue, TelemetryPoint, TelemetryStore } from '../store/telemetry.ts'

interface DeviceEntry {
  tenantID: string
  deviceID: string
  /** The productID of the device's last written point; unknown for an entry read from the store alone. */
  productID?: string
  values: Map<string, LastValue>
  /** True once the store's latest values were merged in (entries made by writes alone are partial). */
  complete: boolean
}

const MAX_DEVICES = 100_000

/**
 * The last value of each data point per device: updated after each committed flush, completed from
 * `telemetry.latest()` on the first read of a device (values written before a restart). Bounded: the oldest
 * devices are forgotten first (they are read from the store again when asked). With `listen(bus)`, a deleted
 * device or data point is forgotten at once.
 */
export class LatestValuesCache {
  /**
   * Entries by tenantID, then deviceID: keyed by the strings the points carry (their hashes kept with them), not
   * by a joined key built and hashed for every uplink.
   */
  private tenants = new Map<string, Map<string, DeviceEntry>>()
  /** Every entry, the oldest first (what the bound forgets). */
  private order = new Set<DeviceEntry>()

  constructor(
    private telemetry: Pick<TelemetryStore, 'latest' | 'latestOf'>,
    private maxDevices = MAX_DEVICES,
  ) {}

  private entry(tenantID: string, deviceID: string): DeviceEntry | undefined {
    return this.tenants.get(tenantID)?.get(deviceID)
  }

  /** Holds a device the cache has no entry for (every caller looked it up first). */
  private add(entry: DeviceEntry) {
    if (this.order.size >= this.maxDevices) this.remove(this.order.values().next().value!)
    let devices = this.tenants.get(entry.tenantID)
    if (!devices) {
      devices = new Map()
      this.tenants.set(entry.tenantID, devices)
    }
    devices.set(entry.deviceID, entry)
    this.order.add(entry)
  }

  private remove(entry: DeviceEntry) {
    this.order.delete(entry)
    const devices = this.tenants.get(entry.tenantID)!
    devices.delete(entry.deviceID)
    if (!devices.size) this.tenants.delete(entry.tenantID)
  }

  /**
   * Records committed points; an older time never replaces a newer one. A run of points of one device (an
   * uplink's) finds its entry once.
   */
  update(points: readonly TelemetryPoint[]) {
    let entry: DeviceEntry | undefined
    let last: TelemetryPoint | undefined
    for (const p of points) {
      if (!entry || p.deviceID !== last!.deviceID || p.tenantID !== last!.tenantID) {
        entry = this.entry(p.tenantID, p.deviceID)
        if (!entry) {
          entry = { tenantID: p.tenantID, deviceID: p.deviceID, values: new Map(), complete: false }
          this.add(entry)
        }
      }
      last = p
      entry.productID = p.productID
      const cur = entry.values.get(p.dataPointID)
      if (!cur) entry.values.set(p.dataPointID, { time: p.time, value: p.value })
      else if (cur.time <= p.time) {
        // in place: a new object a value would be young garbage the old map keeps alive until it is promoted
        cur.time = p.time
        cur.value = p.value
      }
    }
  }

  /** The last values of a device's data points: live (later writes change them), to read before the next await. */
  async get(tenantID: string, deviceID: string): Promise<Map<string, LastValue>> {
    const entry = this.entry(tenantID, deviceID)
    if (entry?.complete) return entry.values
    return this.complete(tenantID, deviceID, await this.telemetry.latest(tenantID, deviceID))
  }

  /** Merges what the store holds into the entry (values written meanwhile stay when newer): now complete. */
  private complete(tenantID: string, deviceID: string, stored: Map<string, LastValue>) {
    const now = this.entry(tenantID, deviceID)
    if (!now) {
      this.add({ tenantID, deviceID, values: stored, complete: true })
      return stored
    }
    for (const [id, v] of stored) {
      const cur = now.values.get(id)
      if (!cur || cur.time < v.time) now.values.set(id, v)
    }
    now.complete = true
    return now.values
  }

  /**
   * The last values of many devices of a tenant: what is held complete here, the rest in one `latestOf` read of
   * the store (merged with values written meanwhile, as get() does). Every asked deviceID gets an entry.
   */
  async getMany(
    tenantID: string,
    deviceIDs: readonly string[],
  ): Promise<Map<string, Map<string, LastValue>>> {
    const out = new Map<string, Map<string, LastValue>>()
    const missing: string[] = []
    for (const deviceID of new Set(deviceIDs)) {
      const entry = this.entry(tenantID, deviceID)
      if (entry?.complete) out.set(deviceID, entry.values)
      else missing.push(deviceID)
    }
    if (!missing.length) return out
    const stored = await this.telemetry.latestOf(tenantID, missing)
    for (const deviceID of missing)
      out.set(
        deviceID,
        this.complete(tenantID, deviceID, stored.get(deviceID) ?? new Map<string, LastValue>()),
      )
    return out
  }

  /** Forgets a device (deleted). */
  forget(tenantID: string, deviceID: string) {
    const entry = this.entry(tenantID, deviceID)
    if (entry) this.remove(entry)
  }

  /**
   * Forgets one data point of a product's devices (the point and its values were deleted). A device whose product
   * is not known here and that has a value of that dataPointID is forgotten whole (read again when asked).
   */
  forgetDataPoint(tenantID: string, productID: string, dataPointID: string) {
    for (const entry of [...(this.tenants.get(tenantID)?.values() ?? [])]) {
      if (!entry.values.has(dataPointID)) continue
      if (entry.productID === productID) entry.values.delete(dataPointID)
      else if (entry.productID === undefined) this.remove(entry)
    }
  }

  /** Forgets what the bus says is deleted ('device.deleted', 'dataPoint.deleted'); returns the unsubscribe. */
  listen(bus: EventBus): () => void {
    const onDevice = (...[e]: DomainEvents['device.deleted']) => this.forget(e.tenantID, e.deviceID)
    const onPoint = (...[e]: DomainEvents['dataPoint.deleted']) =>
      this.forgetDataPoint(e.tenantID, e.productID, e.dataPointID)
    bus.on('device.deleted', onDevice)
    bus.on('dataPoint.deleted', onPoint)
    return () => {
      bus.off('device.deleted', onDevice)
      bus.off('dataPoint.deleted', onPoint)
    }
  }
}
