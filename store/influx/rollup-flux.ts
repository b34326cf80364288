import { flux, type ParameterizedQuery } from '@influxdata/influxdb-client'
import type { Tier } from '../telemetry.ts'
import { deviceIn, pointIn, type GroupRead } from './flux.ts'
import { MEASUREMENT } from './options.ts'

/**
 * Flux of the InfluxDB rollups (store/influx/rollups.ts), through the client's `flux` template as every query of
 * the store. The rollup bucket holds three measurements:
 * - `rollup`: one point per window, tags tenant/product/device/point/tier, time = window start, fields min, max,
 *   sum (floats), n (numbers counted), o (values that are not numbers), tmin, tmax (ms from the window start);
 * - `pending`: one point per device and UTC hour that received values, tags tenant/device, time = the hour, fields
 *   seq (a token the writer picks), at (when it was written, epoch ms) and rolled (the seq last rolled up);
 * - `pending_day`: the same for a day of the zone whose day window must be folded again from its hour windows
 *   (fields seq and rolled);
 * - `rollup_state`: one point at STATE_TIME, fields tz and ready: every hour with raw values has rollups or a pending mark.
 */
export const ROLLUP = 'rollup'
export const PENDING = 'pending'
export const PENDING_DAY = 'pending_day'
export const STATE = 'rollup_state'

/** Every raw value of one device in [start, stop), with its point and product. */
export function deviceRawQuery(
  bucket: string,
  tenantID: string,
  deviceID: string,
  start: number,
  stop: number,
): ParameterizedQuery {
  return flux`from(bucket: ${bucket})
  |> range(start: ${new Date(start)}, stop: ${new Date(stop)})
  |> filter(fn: (r) => r._measurement == ${MEASUREMENT} and r.tenant == ${tenantID} and r.device == ${deviceID})
  |> keep(columns: ["_time", "_value", "_field", "point", "product"])`
}

/**
 * The windows of a tier of some points of a device (every point when none are named) starting in [from, to): one
 * row per window, fields as columns.
 */
export function tierQuery(
  rollupBucket: string,
  r: { tenantID: string; deviceID: string; dataPointIDs: readonly string[] },
  tier: Tier,
  from: number,
  to: number,
): ParameterizedQuery {
  return flux`${tierSeries(rollupBucket, r, tier, from, to)}
  |> pivot(rowKey: ["_time"], columnKey: ["_field"], valueColumn: "_value")
  |> keep(columns: ["_time", "point", "product", "min", "max", "sum", "n", "o", "tmin", "tmax"])`
}

/** The window points of a tier of some points of a device (every point when none are named) in [from, to). */
function tierSeries(
  rollupBucket: string,
  r: { tenantID: string; deviceID: string; dataPointIDs: readonly string[] },
  tier: Tier,
  from: number,
  to: number,
): ParameterizedQuery {
  const points = r.dataPointIDs.length
    ? flux`\n  |> filter(fn: (r) => ${pointIn(r.dataPointIDs)})`
    : flux``
  return flux`from(bucket: ${rollupBucket})
  |> range(start: ${new Date(from)}, stop: ${new Date(to)})
  |> filter(fn: (r) => r._measurement == ${ROLLUP} and r.tenant == ${r.tenantID} and r.device == ${r.deviceID} and r.tier == ${tier})${points}`
}

/**
 * The marks (`measurement`: PENDING or PENDING_DAY) in [from, to), of one device or of every device: one row per
 * mark and field (seq, at, rolled), with tenant and device.
 */
export function pendingQuery(
  rollupBucket: string,
  measurement: string,
  from: number,
  to: number,
  device?: { tenantID: string; deviceID: string },
): ParameterizedQuery {
  const which = device
    ? flux` and r.tenant == ${device.tenantID} and r.device == ${device.deviceID}`
    : flux``
  return flux`from(bucket: ${rollupBucket})
  |> range(start: ${new Date(from)}, stop: ${new Date(to)})
  |> filter(fn: (r) => r._measurement == ${measurement}${which})
  |> keep(columns: ["_time", "_value", "_field", "tenant", "device"])`
}

/** The time of the one state point (writers' clocks may differ: its time is fixed). */
export const STATE_TIME = 0

/** The state point's fields (tz, ready). */
export function stateQuery(rollupBucket: string): ParameterizedQuery {
  return flux`from(bucket: ${rollupBucket})
  |> range(start: ${new Date(STATE_TIME)}, stop: ${new Date(STATE_TIME + 1)})
  |> filter(fn: (r) => r._measurement == ${STATE})
  |> last()
  |> keep(columns: ["_value", "_field"])`
}

/**
 * The (tenant, device, UTC hour)s that hold raw values in [from, to): a row per series and hour (backfill). A
 * window aggregate straight after the filter, which InfluxDB pushes down to its storage.
 */
export function hoursWithDataQuery(bucket: string, from: number, to: number): ParameterizedQuery {
  return flux`from(bucket: ${bucket})
  |> range(start: ${new Date(from)}, stop: ${new Date(to)})
  |> filter(fn: (r) => r._measurement == ${MEASUREMENT})
  |> aggregateWindow(every: 1h, fn: count, timeSrc: "_start", createEmpty: false)
  |> keep(columns: ["_time", "tenant", "device"])`
}

/** The first and the last time of each raw series (backfill): first() and last() are pushed down per series. */
export function rawExtentQuery(bucket: string, from: number, to: number): ParameterizedQuery {
  const all = flux`from(bucket: ${bucket})
  |> range(start: ${new Date(from)}, stop: ${new Date(to)})
  |> filter(fn: (r) => r._measurement == ${MEASUREMENT})`
  return flux`union(tables: [${all} |> first(), ${all} |> last()])
  |> keep(columns: ["_time"])`
}
/**
 * How many values the windows of a tier in [from, to) counted, per point and field (n: numbers, o: others): sums
 * per series and field, which InfluxDB pushes down to its storage; the caller adds them per point.
 */
export function tierCountQuery(
  rollupBucket: string,
  r: { tenantID: string; deviceID: string; dataPointIDs: readonly string[] },
  tier: Tier,
  from: number,
  to: number,
): ParameterizedQuery {
  return flux`${tierSeries(rollupBucket, r, tier, from, to)}
  |> filter(fn: (r) => r._field == "n" or r._field == "o")
  |> sum()
  |> keep(columns: ["point", "_value"])`
}

/**
 * The windows of a tier of one data point of some devices (a group's) starting in [from, to): a row per device,
 * window and field a group folds (min, max, sum, n). Not pivoted: InfluxDB sends four times the rows in half the time
 * a pivot takes (a month of hour windows of a hundred devices: 340 against 750 ms).
 */
export function groupTierQuery(
  rollupBucket: string,
  g: GroupRead,
  tier: Tier,
  from: number,
  to: number,
): ParameterizedQuery {
  return flux`from(bucket: ${rollupBucket})
  |> range(start: ${new Date(from)}, stop: ${new Date(to)})
  |> filter(fn: (r) => r._measurement == ${ROLLUP} and r.tenant == ${g.tenantID} and r.point == ${g.dataPointID} and r.tier == ${tier})
  |> filter(fn: (r) => ${deviceIn(g.deviceIDs)})
  |> filter(fn: (r) => r._field == "min" or r._field == "max" or r._field == "sum" or r._field == "n")
  |> keep(columns: ["_time", "device", "_field", "_value"])`
}

/**
 * The `seq` and `rolled` fields of the marks (`measurement`: PENDING or PENDING_DAY) in [from, to) of some devices
 * of a tenant: a row per mark and field; a mark whose `rolled` is not its `seq` is not rolled up yet. Compared by the
 * caller: a pivot comparing them in InfluxDB takes twice as long as sending both.
 */
export function groupPendingQuery(
  rollupBucket: string,
  measurement: string,
  g: Pick<GroupRead, 'tenantID' | 'deviceIDs'>,
  from: number,
  to: number,
): ParameterizedQuery {
  return flux`from(bucket: ${rollupBucket})
  |> range(start: ${new Date(from)}, stop: ${new Date(to)})
  |> filter(fn: (r) => r._measurement == ${measurement} and r.tenant == ${g.tenantID})
  |> filter(fn: (r) => ${deviceIn(g.deviceIDs)})
  |> filter(fn: (r) => r._field == "seq" or r._field == "rolled")
  |> keep(columns: ["_time", "device", "_field", "_value"])`
}
