/**
 * The telemetry store port: raw data point values of devices, one series per (tenant, device, data point).
 * Two implementations pass one contract suite (test/store/telemetry.contract.ts): the embedded libSQL store
 * (store/tsdb/store.ts, the default) and InfluxDB 2.x (store/influx/telemetry.ts, when INFLUX_URL is set).
 * `createTelemetryStore(config)` in store/index.ts picks one.
 */

/** A rollup tier (store/rollups.ts): 1-minute, 1-hour or 1-day windows. */
export type Tier = '1m' | '1h' | '1d'
/** What served an answer: raw values or a rollup tier. */
export type Resolution = 'raw' | Tier

/** A stored value: numeric point types are numbers (stored as floats), others strings or booleans. */
export type TelemetryValue = number | string | boolean

/** One data point value of one device at one time. */
export interface TelemetryPoint {
  tenantID: string
  productID: string
  deviceID: string
  dataPointID: string
  /** Epoch milliseconds. */
  time: number
  value: TelemetryValue
}

/** Which series and which half-open time range [start, end) a read covers. */
export interface SeriesRange {
  tenantID: string
  deviceID: string
  /** The data points to read; every one gets an entry in the answer, empty when it has no values. */
  dataPointIDs: readonly string[]
  /** Epoch ms, inclusive. */
  start: number
  /** Epoch ms, exclusive. */
  end: number
}

/** The values of one data point, time ascending; `time` and `value` have equal length. */
export interface Series {
  time: number[]
  value: TelemetryValue[]
  /**
   * What served an aggregate or a downsample (store/rollups.ts): the coarsest rollup tier read for it, or `raw`
   * (absent: raw).
   */
  resolution?: Resolution
}

/** What an aggregate computes per window (aggregateType 1 max, 2 min, 3 mean, 4 sum). */
export type AggregateFn = 'max' | 'min' | 'mean' | 'sum'

/**
 * Windows of an aggregate, in the time zone `tz` (an IANA name). `every` is a duration `<n><unit>` with unit
 * `s`, `m`, `h` (fixed lengths, aligned to multiples of the length on the zone's wall clock: hourly windows start
 * at local full hours), `d` (local calendar days: 23 or 25 hours long across a daylight-saving change) or `mo`
 * (local calendar months). A window is labelled by its start; windows without values are omitted.
 * store/windows.ts is the one definition (both stores use it; Flux's `aggregateWindow(location:)` agrees).
 */
export interface WindowSpec {
  every: string
  tz: string
}

/** A slice of one data point's values, as stream() yields them. */
export interface SeriesSlice {
  dataPointID: string
  time: number[]
  value: TelemetryValue[]
}

/** The last value of a data point. */
/** Values of one product of one tenant older than `before` (epoch ms) are deleted by retention. */
export interface RetentionRule {
  tenantID: string
  productID: string
  before: number
}

export interface LastValue {
  time: number
  value: TelemetryValue
}

/** One data point of a group's devices over [start, end) (TelemetryStore.groupSeries). */
export interface GroupRange {
  tenantID: string
  /** Every member's deviceID: the group's own windows fold the values of all of them. */
  deviceIDs: readonly string[]
  /** The members whose own series are answered too (a few of deviceIDs, in the order wanted). */
  shown: readonly string[]
  dataPointID: string
  /** Epoch ms, inclusive. */
  start: number
  /** Epoch ms, exclusive. */
  end: number
}

/**
 * The group's windows holding numbers, time ascending (labelled by their start): the least, mean (sum / count:
 * every value weighs the same, whichever device sent it), greatest and count of all members' numbers in each.
 */
export interface GroupWindows {
  time: number[]
  min: number[]
  mean: number[]
  max: number[]
  count: number[]
}

/** What groupSeries answers. */
export interface GroupSeries {
  /**
   * Every deviceID of `shown`, in that order: the mean of its numbers per window, windows without values left out
   * (a device without values in the range has empty arrays).
   */
  devices: Map<string, { time: number[]; value: number[] }>
  group: GroupWindows
  /** The coarsest rollup tier read for the answer, or `raw`. */
  resolution: Resolution
}

export interface TelemetryStore {
  /** `embedded` or `influxdb`, for logs and benchmarks. */
  readonly kind: string
  /**
   * Stores the points durably: when the promise resolves they survive a crash of this process (kill -9).
   * Writing the same (tenant, device, data point, time) again stores one value, the last written.
   * Rejects (and stores nothing of this call it can avoid storing) when the store is unavailable.
   */
  write(points: readonly TelemetryPoint[]): Promise<void>
  /** Raw values per data point in the range, time ascending, duplicates resolved. */
  readRaw(range: SeriesRange): Promise<Map<string, Series>>
  /**
   * Per window aggregates of each data point's numeric values in the range (non-numeric values are ignored),
   * windows time-ascending; every requested data point gets an entry (empty when it has no values).
   */
  aggregate(range: SeriesRange, fn: AggregateFn, window: WindowSpec): Promise<Map<string, Series>>
  /**
   * One data point of many devices (a group's) per window (store/windows.ts semantics): each shown device's mean,
   * and the min, mean, max and count of every device's numbers together (non-numbers ignored). Read from the
   * rollups (store/group-series.ts), so a month of a thousand devices reads hour or day windows, not raw values.
   */
  groupSeries(range: GroupRange, window: WindowSpec): Promise<GroupSeries>
  /**
   * Each data point's values in the range, at most `maxPoints` (≥ 2) of them: a point with more has the range cut
   * into at most maxPoints/2 buckets (store/downsample.ts: whole minutes, hours or days aligned in `tz` once a
   * bucket is a minute wide, else equal milliseconds from `start`), each keeping its lowest and highest number
   * (the first of equal ones) or, for other values, its first and last; time ascending. Every requested data
   * point gets an entry. The embedded store answers from rollups where they serve (`resolution`).
   */
  downsample(range: SeriesRange, maxPoints: number, tz?: string): Promise<Map<string, Series>>
  /**
   * How many raw values the range holds (all requested data points together), to refuse too large reads. May
   * over-count a value written twice at the same time until the store merges them (never under-counts).
   */
  count(range: SeriesRange): Promise<number>
  /**
   * A part [start, end) of the range that holds every value of the requested data points in it (it may be wider
   * than the values, never narrower), or undefined when there are none: long reads skip the empty rest.
   */
  extent(range: SeriesRange): Promise<{ start: number; end: number } | undefined>
  /**
   * The raw values of the range in slices, data point by data point (in the order requested), each time-ascending,
   * without holding the whole range in memory (CSV and NDJSON exports of a month at 1 Hz).
   */
  stream(range: SeriesRange): AsyncIterable<SeriesSlice>
  /** The last value of each data point of a device that has one. */
  latest(tenantID: string, deviceID: string): Promise<Map<string, LastValue>>
  /**
   * latest() of many devices of one tenant in one read (or a few batched ones, never one per device): deviceID →
   * its last values; devices without values (unknown, another tenant's) have no entry.
   */
  latestOf(
    tenantID: string,
    deviceIDs: readonly string[],
  ): Promise<Map<string, Map<string, LastValue>>>
  /** Deletes every value of a device (the device was deleted). */
  deleteDevice(tenantID: string, deviceID: string): Promise<void>
  /**
   * Deletes every value of one data point of every device of a product in a tenant (the product's data point was
   * deleted): the same dataPointID of other products or tenants, and the product's other data points, stay.
   * Resolves once reads, latest() included, no longer see them; later writes of the data point are stored anew.
   * Which product a value belongs to: the one it was written with (InfluxDB, a tag per value); the embedded store
   * keeps one product per device, the one its latest write named (a device moved to another product moves whole).
   */
  deleteDataPoint(tenantID: string, productID: string, dataPointID: string): Promise<void>
  /**
   * Retention: deletes the values of each rule's tenant and product older than its `before` (epoch ms), in small
   * steps that leave room for writes. A value younger than its limit is never deleted; an older one may stay a
   * while (the embedded store deletes whole hour chunks once their last value is older, and values still in its
   * memtable at their next flush's following run). The embedded store also applies `otherwise` to series of a
   * product no rule names (InfluxDB cannot express "no rule": it ignores it). `rollupsBefore` deletes the rollups
   * (every product) whose windows end before it (RETENTION_ROLLUP_DAYS). Answers about how many values went.
   */
  deleteBefore(
    rules: readonly RetentionRule[],
    otherwise?: number,
    rollupsBefore?: number,
  ): Promise<number>
  /** A cheap round trip to the store (readiness checks): resolves when it answers, rejects with Unavailable if not. */
  ping(): Promise<void>
  /** Flushes what is buffered and releases resources. */
  close(): Promise<void>
}
