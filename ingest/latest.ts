import type { DomainEvents, EventBus } from '../src/kernel/events.ts'
import type {
  LastValue,
  TelemetryPoint,
  TelemetryStore,
  TelemetryValue,
} from '../store/telemetry.ts'

/**
 * One device's last values, a slot per data point: its id, time and value at the same index of three arrays. An
 * uplink names its data points in the order of the one before, so a write finds each slot by comparing the id
 * with the slot after the last one written, not by a hash lookup (`slots` answers the rest). A value is written in
 * place: the arrays of a numeric device hold plain doubles, no object a value.
 */
interface DeviceEntry {
  tenantID: string
  deviceID: string
  /** The productID of the device's last written point; unknown for an entry read from the store alone. */
  productID?: string
  ids: string[]
  times: number[]
  values: TelemetryValue[]
  /** data point id → its slot */
  slots: Map<string, number>
  /** True once the store's latest values were merged in (entries made by writes alone are partial). */
  complete: boolean
}

/** An entry with no value yet. */
const newEntry = (tenantID: string, deviceID: string): DeviceEntry => ({
  tenantID,
  deviceID,
  ids: [],
  times: [],
  values: [],
  slots: new Map(),
  complete: false,
})

/** Gives `dataPointID` a new slot holding its first value. */
function addSlot(e: DeviceEntry, dataPointID: string, time: number, value: TelemetryValue): number {
  const slot = e.ids.length
  e.ids.push(dataPointID)
  e.times.push(time)
  e.values.push(value)
  e.slots.set(dataPointID, slot)
  return slot
}

/** Removes a slot; the slots after it move down one. */
function dropSlot(e: DeviceEntry, slot: number) {
  e.slots.delete(e.ids[slot]!)
  e.ids.splice(slot, 1)
  e.times.splice(slot, 1)
  e.values.splice(slot, 1)
  for (let i = slot; i < e.ids.length; i++) e.slots.set(e.ids[i]!, i)
}

/** The entry's values as the store's `latest()` answers them: a map of its own (later writes do not change it). */
function valuesOf(e: DeviceEntry): Map<string, LastValue> {
  const out = new Map<string, LastValue>()
  for (let i = 0; i < e.ids.length; i++)
    out.set(e.ids[i]!, { time: e.times[i]!, value: e.values[i]! })
  return out
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
   * uplink's) finds its entry once, and each point's slot first where the point before it left off.
   */
  update(points: readonly TelemetryPoint[]) {
    let entry: DeviceEntry | undefined
    let last: TelemetryPoint | undefined
    let next = 0
    for (const p of points) {
      if (!entry || p.deviceID !== last!.deviceID || p.tenantID !== last!.tenantID) {
        entry = this.entry(p.tenantID, p.deviceID)
        if (!entry) this.add((entry = newEntry(p.tenantID, p.deviceID)))
        entry.productID = p.productID
        next = 0
      }
      last = p
      const id = p.dataPointID
      let slot = next < entry.ids.length && entry.ids[next] === id ? next : entry.slots.get(id)
      if (slot === undefined) slot = addSlot(entry, id, p.time, p.value)
      else if (entry.times[slot]! <= p.time) {
        entry.times[slot] = p.time
        entry.values[slot] = p.value
      }
      next = slot + 1
    }
  }

  /** The last values of a device's data points (a map of its own: later writes do not change it). */
  async get(tenantID: string, deviceID: string): Promise<Map<string, LastValue>> {
    const entry = this.entry(tenantID, deviceID)
    if (entry?.complete) return valuesOf(entry)
    return this.complete(tenantID, deviceID, await this.telemetry.latest(tenantID, deviceID))
  }

  /** Merges what the store holds into the entry (values written meanwhile stay when newer): now complete. */
  private complete(tenantID: string, deviceID: string, stored: Map<string, LastValue>) {
    let entry = this.entry(tenantID, deviceID)
    if (!entry) this.add((entry = newEntry(tenantID, deviceID)))
    for (const [id, v] of stored) {
      // at an equal time the value written here is the later one
      const slot = entry.slots.get(id)
      if (slot === undefined) addSlot(entry, id, v.time, v.value)
      else if (entry.times[slot]! < v.time) {
        entry.times[slot] = v.time
        entry.values[slot] = v.value
      }
    }
    entry.complete = true
    return valuesOf(entry)
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
      if (entry?.complete) out.set(deviceID, valuesOf(entry))
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
      const slot = entry.slots.get(dataPointID)
      if (slot === undefined) continue
      if (entry.productID === productID) dropSlot(entry, slot)
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
