/**
 * `maxPoints` downsampling (store/telemetry.ts `downsample`, original_data): the range is cut into at most
 * maxPoints/2 buckets: once a bucket is at least a minute wide, whole minutes, hours or days aligned in the zone
 * (store/rollups.ts alignedBuckets: rollups answer them exactly); below, equal whole milliseconds from the range's
 * start (bucketsOf). Each bucket keeps its lowest and its highest
 * number (the first of equal ones; in time order; one when the bucket holds one value), so a chart of 86,400
 * points drawn from 1,000 still shows every peak and trough. Values that are not numbers (strings, booleans) keep
 * the first and the last of each bucket. Fed slice by slice: memory is O(maxPoints). The InfluxDB store computes
 * the same buckets in Flux (`window(every:, offset:)` with max/min/first/last).
 */
import type { Series, SeriesRange, SeriesSlice, TelemetryValue } from './telemetry.ts'
import { alignedBuckets } from './rollups.ts'
import { windowIndex } from './windows.ts'

/** The buckets of a downsample: how many, and their width in whole ms (the last may reach past `end`). */
export function bucketsOf(
  start: number,
  end: number,
  maxPoints: number,
): { count: number; width: number } {
  const count = Math.max(1, Math.floor(maxPoints / 2))
  return { count, width: Math.max(1, Math.ceil((end - start) / count)) }
}

export class Downsampler {
  private readonly buckets: number
  private readonly width: number
  /** The aligned buckets' boundaries, when a bucket is at least a minute wide. */
  private readonly bounds: number[] | undefined
  /** Per bucket: indexes into the kept arrays, -1 when empty. */
  private readonly lo: Int32Array
  private readonly hi: Int32Array
  private readonly time: number[] = []
  private readonly value: TelemetryValue[] = []

  constructor(
    private readonly start: number,
    end: number,
    maxPoints: number,
    tz = 'UTC',
  ) {
    const { count, width } = bucketsOf(start, end, maxPoints)
    this.bounds = alignedBuckets(start, end, maxPoints, tz)?.bounds
    this.buckets = this.bounds ? this.bounds.length - 1 : count
    this.width = width
    this.lo = new Int32Array(this.buckets).fill(-1)
    this.hi = new Int32Array(this.buckets).fill(-1)
  }

  /** Adds time-ascending values. */
  add(time: ArrayLike<number>, value: ArrayLike<TelemetryValue>) {
    for (let i = 0; i < time.length; i++) {
      const t = time[i]!
      const v = value[i]!
      const b = this.bounds
        ? windowIndex(this.bounds, t)
        : Math.min(this.buckets - 1, Math.max(0, Math.floor((t - this.start) / this.width)))
      const lo = this.lo[b]!
      if (lo < 0) {
        this.lo[b] = this.hi[b] = this.keep(t, v)
        continue
      }
      const hi = this.hi[b]!
      const single = hi === lo
      if (typeof v !== 'number') {
        // first and last of the bucket
        if (single) this.hi[b] = this.keep(t, v)
        else this.set(hi, t, v)
        continue
      }
      const vl = this.value[lo]!
      const vh = this.value[hi]!
      if (single) {
        if (typeof vl !== 'number' || v > vl) this.hi[b] = this.keep(t, v)
        else if (v < vl) this.lo[b] = this.keep(t, v)
      } else if (typeof vl === 'number' && typeof vh === 'number') {
        if (v < vl) this.set(lo, t, v)
        else if (v > vh) this.set(hi, t, v)
      }
    }
  }

  /** The kept values in time order. */
  result(): Series {
    const order: number[] = []
    for (let b = 0; b < this.buckets; b++) {
      const lo = this.lo[b]!
      const hi = this.hi[b]!
      if (lo < 0) continue
      if (hi === lo) order.push(lo)
      else if (this.time[lo]! <= this.time[hi]!) order.push(lo, hi)
      else order.push(hi, lo)
    }
    return { time: order.map((i) => this.time[i]!), value: order.map((i) => this.value[i]!) }
  }

  private keep(t: number, v: TelemetryValue): number {
    this.time.push(t)
    this.value.push(v)
    return this.time.length - 1
  }

  private set(i: number, t: number, v: TelemetryValue) {
    this.time[i] = t
    this.value[i] = v
  }
}

/** Downsamples one whole series (see Downsampler); a series of at most maxPoints values is returned as is. */
export function downsample(
  s: Series,
  start: number,
  end: number,
  maxPoints: number,
  tz = 'UTC',
): Series {
  if (s.time.length <= maxPoints) return s
  const d = new Downsampler(start, end, maxPoints, tz)
  d.add(s.time, s.value)
  return d.result()
}

/**
 * TelemetryStore.downsample over a store's stream(): each point's values are kept whole until they pass
 * `maxPoints`, then go through a Downsampler; memory O(maxPoints) per point whatever the range.
 */
export async function downsampleStream(
  slices: AsyncIterable<SeriesSlice>,
  range: SeriesRange,
  maxPoints: number,
  tz = 'UTC',
): Promise<Map<string, Series>> {
  const out = new Map<string, Series>()
  for (const dp of range.dataPointIDs) out.set(dp, { time: [], value: [] })
  const sampling = new Map<string, Downsampler>()
  for await (const slice of slices) {
    const whole = out.get(slice.dataPointID)!
    let d = sampling.get(slice.dataPointID)
    if (!d && whole.time.length + slice.time.length > maxPoints) {
      sampling.set(slice.dataPointID, (d = new Downsampler(range.start, range.end, maxPoints, tz)))
      d.add(whole.time, whole.value)
    }
    if (d) d.add(slice.time, slice.value)
    else
      for (let i = 0; i < slice.time.length; i++) {
        whole.time.push(slice.time[i]!)
        whole.value.push(slice.value[i]!)
      }
  }
  for (const [dp, d] of sampling) out.set(dp, d.result())
  return out
}
