/**
 * One data point of a group's devices per window (TelemetryStore.groupSeries), for both telemetry stores: the
 * windows of each device are read from the rollups with raw edges (store/rollup-reads.ts foldFromRollups, through
 * a "group source": a RollupSource whose keys, the `dataPointIDs` of the ranges it is handed, are deviceIDs of one
 * data point) and folded here into the group's min, mean, max and count per window and the shown devices' means.
 * Devices are planned a hundred at a time, so a month of hour windows of a thousand devices never sits in memory
 * at once.
 */
import type { GroupRange, GroupSeries, Resolution, Series, SeriesRange } from './telemetry.ts'
import { foldFromRollups, foldRaw, type RollupSource } from './rollup-reads.ts'
import { coarser } from './rollups.ts'
import { daySlices } from './slices.ts'

/** Devices planned and read together. */
export const GROUP_CHUNK = 100

/** A part of a window's numbers: how many, their least, greatest and sum. */
export interface WindowPart {
  count: number
  min: number
  max: number
  sum: number
}

/** Folds window parts of any device into the group's windows, and those of the shown devices into their own. */
export class GroupFold {
  private readonly min: Float64Array
  private readonly max: Float64Array
  private readonly sum: Float64Array
  private readonly count: Float64Array
  private readonly shown = new Map<string, { sum: Float64Array; count: Float64Array }>()

  /** `bounds`: the answer windows (store/windows.ts windowBounds); `shown`: the devices answered one by one. */
  constructor(
    private readonly bounds: readonly number[],
    shown: readonly string[],
  ) {
    const n = bounds.length - 1
    this.min = new Float64Array(n).fill(Infinity)
    this.max = new Float64Array(n).fill(-Infinity)
    this.sum = new Float64Array(n)
    this.count = new Float64Array(n)
    for (const d of shown)
      this.shown.set(d, { sum: new Float64Array(n), count: new Float64Array(n) })
  }

  /** Adds a part of window `w` of device `deviceID` (parts without numbers are ignored). */
  readonly add = (deviceID: string, w: number, s: WindowPart) => {
    if (s.count <= 0 || w < 0 || w >= this.count.length) return
    if (s.min < this.min[w]!) this.min[w] = s.min
    if (s.max > this.max[w]!) this.max[w] = s.max
    this.sum[w]! += s.sum
    this.count[w]! += s.count
    const d = this.shown.get(deviceID)
    if (d) {
      d.sum[w]! += s.sum
      d.count[w]! += s.count
    }
  }

  /** The answer: windows holding numbers, in time order. */
  result(resolution: Resolution): GroupSeries {
    const group: GroupSeries['group'] = { time: [], min: [], mean: [], max: [], count: [] }
    for (let w = 0; w < this.count.length; w++) {
      const n = this.count[w]!
      if (n === 0) continue
      group.time.push(this.bounds[w]!)
      group.min.push(this.min[w]!)
      group.mean.push(this.sum[w]! / n)
      group.max.push(this.max[w]!)
      group.count.push(n)
    }
    const devices: GroupSeries['devices'] = new Map()
    for (const [id, d] of this.shown) {
      const s = { time: [] as number[], value: [] as number[] }
      for (let w = 0; w < d.count.length; w++)
        if (d.count[w]! > 0) {
          s.time.push(this.bounds[w]!)
          s.value.push(d.sum[w]! / d.count[w]!)
        }
      devices.set(id, s)
    }
    return { devices, group, resolution }
  }
}

/** The ranges of a group source: the group's devices as keys, GROUP_CHUNK at a time. */
export function* deviceChunks(
  range: GroupRange,
  deviceIDs = range.deviceIDs,
): Generator<SeriesRange> {
  const unique = [...new Set(deviceIDs)]
  for (let i = 0; i < unique.length; i += GROUP_CHUNK)
    yield {
      tenantID: range.tenantID,
      deviceID: '',
      dataPointIDs: unique.slice(i, i + GROUP_CHUNK),
      start: range.start,
      end: range.end,
    }
}

/**
 * Folds every device of the range from the rollups of `src` (a group source) into `fold`; answers the coarsest
 * tier read and the devices the rollups could not plan (the store reads those its own way). `pause` runs before
 * each hundred devices but the first.
 */
export async function groupFromRollups(
  src: RollupSource,
  range: GroupRange,
  bounds: number[],
  fold: GroupFold,
  pause?: () => Promise<void>,
): Promise<{ resolution: Resolution; unplanned: string[] }> {
  let resolution: Resolution = 'raw'
  const unplanned: string[] = []
  if (range.start >= range.end) return { resolution, unplanned }
  let first = true
  for (const part of deviceChunks(range)) {
    if (!first) await pause?.()
    first = false
    const got = await foldFromRollups(src, part, bounds, fold.add)
    resolution = coarser(resolution, got.resolution)
    unplanned.push(...got.unplanned)
  }
  return { resolution, unplanned }
}

/**
 * Folds the raw values of some devices into `fold`, a day and GROUP_CHUNK devices at a time (`readRaw` answers the
 * values of one data point of the devices it is given, by deviceID); `pause` runs before each read.
 */
export async function groupFromRaw(
  readRaw: (
    deviceIDs: readonly string[],
    start: number,
    end: number,
  ) => Promise<Map<string, Series>>,
  range: GroupRange,
  deviceIDs: readonly string[],
  bounds: readonly number[],
  fold: GroupFold,
  pause?: () => Promise<void>,
) {
  for (const part of deviceChunks(range, deviceIDs))
    for (const day of daySlices(part)) {
      await pause?.()
      for (const [id, s] of await readRaw(part.dataPointIDs, day.start, day.end))
        foldRaw(bounds, s.time, s.value, 0, s.time.length, (w, st) => fold.add(id, w, st))
    }
}
