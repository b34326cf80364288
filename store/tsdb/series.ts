/**
 * The series of the embedded telemetry store in memory (store/tsdb/store.ts): per (tenant, device) the
 * series id of each data point and the product the device's values belong to: the product of its latest write.
 * A device's series all carry that product in the `series` table (file.ts moveSeries), so deleting a
 * product's data point finds them here without reading the file. The write path pays one Map lookup a point (a run of one device's points finds the device once).
 */
import type { TelemetryPoint } from '../telemetry.ts'
import type { SeriesRow } from './file.ts'

/** One device's series. */
export interface DeviceSeries {
  tenantID: string
  deviceID: string
  /** The product of the device's latest write; null for series of a version 2 file not written since. */
  productID: string | null
  /** data point → series id */
  points: Map<string, number>
}

/** What resolving one commit's points changed, to store in its transaction (or to undo when it fails). */
export interface SeriesChanges {
  /** New series rows. */
  fresh: SeriesRow[]
  /** Devices written under another product than before, with the product they had. */
  moved: Map<DeviceSeries, string | null>
}

const deviceKey = (tenantID: string, deviceID: string) => `${tenantID}\u0000${deviceID}`

export class SeriesIndex {
  private devices = new Map<string, DeviceSeries>()
  /** The device found last: a run of points of one device (an uplink's) finds it without a key; cleared with any removal. */
  private last: DeviceSeries | undefined

  /** `nextId`: the id of the next new series (ids of deleted series are never given again). */
  constructor(private nextId: number) {}

  /** Adds a series read from the file. */
  remember(s: SeriesRow) {
    const dev = this.device(s.tenantID, s.deviceID, s.productID)
    if (s.productID !== null) dev.productID = s.productID
    dev.points.set(s.dataPointID, s.id)
  }

  /** The device's series, if it has any. */
  of(tenantID: string, deviceID: string): DeviceSeries | undefined {
    return this.devices.get(deviceKey(tenantID, deviceID))
  }

  /** The series id of a point, creating the series (and noting a product change) in `changes` when needed. */
  resolve(p: TelemetryPoint, changes: SeriesChanges): number {
    return this.resolveIds(p.tenantID, p.productID, p.deviceID, p.dataPointID, changes)
  }

  /** resolve() of a point given by its ids. */
  resolveIds(
    tenantID: string,
    productID: string,
    deviceID: string,
    dataPointID: string,
    changes: SeriesChanges,
  ): number {
    const dev = this.device(tenantID, deviceID, productID)
    if (dev.productID !== productID) {
      if (!changes.moved.has(dev)) changes.moved.set(dev, dev.productID)
      dev.productID = productID
    }
    const id = dev.points.get(dataPointID)
    if (id !== undefined) return id
    const fresh = { id: this.nextId++, tenantID, deviceID, dataPointID, productID }
    changes.fresh.push(fresh)
    dev.points.set(dataPointID, fresh.id)
    return fresh.id
  }

  /** Undoes `changes` of a commit that failed (the ids handed out stay unused). */
  undo(changes: SeriesChanges) {
    for (const [dev, productID] of changes.moved) dev.productID = productID
    for (const s of changes.fresh) {
      const dev = this.of(s.tenantID, s.deviceID)
      dev?.points.delete(s.dataPointID)
      if (dev?.points.size === 0) this.forgetDevice(s.tenantID, s.deviceID)
    }
  }

  /** Every series id. */
  allIds(): number[] {
    const out: number[] = []
    for (const dev of this.devices.values()) for (const id of dev.points.values()) out.push(id)
    return out
  }

  /** The series ids of one device. */
  idsOfDevice(tenantID: string, deviceID: string): number[] {
    return [...(this.of(tenantID, deviceID)?.points.values() ?? [])]
  }

  /** The series ids of one data point of every device of a product in a tenant (a scan over the devices). */
  idsOfDataPoint(tenantID: string, productID: string, dataPointID: string): number[] {
    const ids: number[] = []
    for (const dev of this.devices.values()) {
      if (dev.productID !== productID || dev.tenantID !== tenantID) continue
      const id = dev.points.get(dataPointID)
      if (id !== undefined) ids.push(id)
    }
    return ids
  }

  /**
   * Every series with the time before which retention deletes its values: its tenant's and product's rule, else
   * `otherwise`; series neither names are left out.
   */
  cutoffs(
    rules: ReadonlyArray<{ tenantID: string; productID: string; before: number }>,
    otherwise: number | undefined,
  ): Array<[seriesId: number, before: number]> {
    const byProduct = new Map(rules.map((r) => [`${r.tenantID}\u0000${r.productID}`, r.before]))
    const out: Array<[number, number]> = []
    for (const dev of this.devices.values()) {
      const before =
        (dev.productID !== null
          ? byProduct.get(`${dev.tenantID}\u0000${dev.productID}`)
          : undefined) ?? otherwise
      if (before === undefined) continue
      for (const id of dev.points.values()) out.push([id, before])
    }
    return out
  }

  /** Forgets the device's series (they were deleted from the file). */
  forgetDevice(tenantID: string, deviceID: string) {
    this.last = undefined
    this.devices.delete(deviceKey(tenantID, deviceID))
  }

  /** Forgets one data point's series of the product's devices (deleted from the file). */
  forgetDataPoint(tenantID: string, productID: string, dataPointID: string) {
    this.last = undefined
    for (const [key, dev] of this.devices) {
      if (dev.productID !== productID || dev.tenantID !== tenantID) continue
      dev.points.delete(dataPointID)
      if (dev.points.size === 0) this.devices.delete(key)
    }
  }

  private device(tenantID: string, deviceID: string, productID: string | null): DeviceSeries {
    const last = this.last
    if (last !== undefined && last.deviceID === deviceID && last.tenantID === tenantID) return last
    const key = deviceKey(tenantID, deviceID)
    let dev = this.devices.get(key)
    if (!dev) this.devices.set(key, (dev = { tenantID, deviceID, productID, points: new Map() }))
    this.last = dev
    return dev
  }
}
