import type { LastValue, TelemetryPoint, TelemetryStore } from '../store/telemetry.ts'

interface DeviceEntry {
  values: Map<string, LastValue>
  /** True once the store's latest values were merged in (entries made by writes alone are partial). */
  complete: boolean
}

const MAX_DEVICES = 100_000

/**
 * The last value of each data point per device: updated after each committed flush, completed from
 * `telemetry.latest()` on the first read of a device (values written before a restart). Bounded: the oldest
 * devices are forgotten first (they are read from the store again when asked).
 */
export class LatestValues {
  private devices = new Map<string, DeviceEntry>()

  constructor(private telemetry: Pick<TelemetryStore, 'latest'>) {}

  private static key(tenantID: string, deviceID: string) {
    return `${tenantID}\u0000${deviceID}`
  }

  /** Records committed points; an older time never replaces a newer one. */
  update(points: readonly TelemetryPoint[]) {
    for (const p of points) {
      const key = LatestValues.key(p.tenantID, p.deviceID)
      let entry = this.devices.get(key)
      if (!entry) {
        if (this.devices.size >= MAX_DEVICES) this.devices.delete(this.devices.keys().next().value!)
        entry = { values: new Map(), complete: false }
        this.devices.set(key, entry)
      }
      const cur = entry.values.get(p.dataPointID)
      if (!cur || cur.time <= p.time)
        entry.values.set(p.dataPointID, { time: p.time, value: p.value })
    }
  }

  /** The last values of a device's data points. */
  async get(tenantID: string, deviceID: string): Promise<Map<string, LastValue>> {
    const key = LatestValues.key(tenantID, deviceID)
    const entry = this.devices.get(key)
    if (entry?.complete) return entry.values
    const stored = await this.telemetry.latest(tenantID, deviceID)
    const now = this.devices.get(key)
    if (now) {
      for (const [id, v] of stored) {
        const cur = now.values.get(id)
        if (!cur || cur.time < v.time) now.values.set(id, v)
      }
      now.complete = true
      return now.values
    }
    if (this.devices.size >= MAX_DEVICES) this.devices.delete(this.devices.keys().next().value!)
    this.devices.set(key, { values: stored, complete: true })
    return stored
  }

  /** Forgets a device (deleted). */
  forget(tenantID: string, deviceID: string) {
    this.devices.delete(LatestValues.key(tenantID, deviceID))
  }
}
