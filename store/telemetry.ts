/**
 * The telemetry store port: raw data point values of devices, one series per (tenant, device, data point).
 * Two implementations pass one contract suite (test/store/telemetry.contract.ts): the embedded libSQL store
 * (store/libsql/telemetry.ts, the default) and InfluxDB 2.x (store/influx/telemetry.ts, when INFLUX_URL is set).
 * `createTelemetryStore(config)` in store/index.ts picks one.
 */

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
}

/** The last value of a data point. */
export interface LastValue {
  time: number
  value: TelemetryValue
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
  /** The last value of each data point of a device that has one. */
  latest(tenantID: string, deviceID: string): Promise<Map<string, LastValue>>
  /** Deletes every value of a device (the device was deleted). */
  deleteDevice(tenantID: string, deviceID: string): Promise<void>
  /** Flushes what is buffered and releases resources. */
  close(): Promise<void>
}
