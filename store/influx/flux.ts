import {
  flux,
  fluxDuration,
  fluxExpression,
  type ParameterizedQuery,
} from '@influxdata/influxdb-client'
import type { AggregateFn } from '../telemetry.ts'
import { parseEvery } from '../windows.ts'
import { FIELD, LATEST_RANGE, MEASUREMENT } from './options.ts'

/**
 * Flux for the store's reads, only through the client's `flux` tagged template: every value (bucket, tenant,
 * device, data point ids, times) is a sanitized literal, so an id like `x") |> drop() //` is just a string.
 */

/** `r.point == a or r.point == b ...`: equality (unlike `contains`) is pushed down to the storage engine. */
export function pointIn(ids: readonly string[]): ParameterizedQuery {
  return ids
    .slice(1)
    .reduce((expr, id) => flux`${expr} or r.point == ${id}`, flux`r.point == ${ids[0]}`)
}

/** `r.device == a or r.device == b ...` (equality, pushed down as pointIn's). */
export function deviceIn(ids: readonly string[]): ParameterizedQuery {
  return ids
    .slice(1)
    .reduce((expr, id) => flux`${expr} or r.device == ${id}`, flux`r.device == ${ids[0]}`)
}

/** The device's series in the bucket over [start, stop). */
function deviceSeries(bucket: string, tenantID: string, deviceID: string, start: Date, stop: Date) {
  return flux`from(bucket: ${bucket})
  |> range(start: ${start}, stop: ${stop})
  |> filter(fn: (r) => r._measurement == ${MEASUREMENT} and r.tenant == ${tenantID} and r.device == ${deviceID})`
}

/** Raw values of some data points of a device in [start, end), one table per point and field, time ascending. */
export function readRawQuery(bucket: string, r: ReadRange): ParameterizedQuery {
  return flux`${deviceSeries(bucket, r.tenantID, r.deviceID, new Date(r.start), new Date(r.end))}
  |> filter(fn: (r) => ${pointIn(r.dataPointIDs)})
  |> keep(columns: ["_time", "_value", "_field", "point"])`
}

/** The range of a read: device, data points, [start, end) in epoch ms. */
interface ReadRange {
  tenantID: string
  deviceID: string
  dataPointIDs: readonly string[]
  start: number
  end: number
}

/** Flux's aggregate functions by the port's names: a fixed table, so no caller text reaches the query as code. */
const FLUX_FN: Record<AggregateFn, ParameterizedQuery> = {
  max: flux`${fluxExpression('max')}`,
  min: flux`${fluxExpression('min')}`,
  mean: flux`${fluxExpression('mean')}`,
  sum: flux`${fluxExpression('sum')}`,
}

/**
 * Per-window aggregates of the numeric field of some data points: `aggregateWindow` in the zone's wall clock
 * (`location`), empty windows left out. Flux labels the first window by the range start when the range begins
 * mid-window; the store relabels with store/windows.ts. Throws on a window text that is not a duration.
 */
export function aggregateQuery(
  bucket: string,
  r: ReadRange,
  fn: AggregateFn,
  every: string,
  tz: string,
): ParameterizedQuery {
  if (!parseEvery(every)) throw new TypeError(`not a window duration: ${every}`)
  const f = FLUX_FN[fn]
  if (!f) throw new TypeError(`not an aggregate: ${String(fn)}`)
  return flux`import "timezone"
${deviceSeries(bucket, r.tenantID, r.deviceID, new Date(r.start), new Date(r.end))}
  |> filter(fn: (r) => ${pointIn(r.dataPointIDs)})
  |> filter(fn: (r) => r._field == ${FIELD.number})
  |> aggregateWindow(every: ${fluxDuration(every)}, fn: ${f}, timeSrc: "_start", createEmpty: false,
       location: timezone.location(name: ${tz}))
  |> keep(columns: ["_time", "_value", "_field", "point"])`
}

/** One data point of some devices of a tenant (a group's): its numbers in [start, end). */
export interface GroupRead {
  tenantID: string
  deviceIDs: readonly string[]
  dataPointID: string
  start: number
  end: number
}

/** The numbers of one data point of some devices in [start, end), with their device. */
function groupNumbers(bucket: string, g: GroupRead) {
  return flux`from(bucket: ${bucket})
  |> range(start: ${new Date(g.start)}, stop: ${new Date(g.end)})
  |> filter(fn: (r) => r._measurement == ${MEASUREMENT} and r.tenant == ${g.tenantID} and r.point == ${g.dataPointID})
  |> filter(fn: (r) => ${deviceIn(g.deviceIDs)})
  |> filter(fn: (r) => r._field == ${FIELD.number})`
}

/** The raw numbers of one data point of some devices (a group's) in [start, end): rows with point and device. */
export function groupRawQuery(bucket: string, g: GroupRead): ParameterizedQuery {
  return flux`${groupNumbers(bucket, g)}
  |> keep(columns: ["_time", "_value", "_field", "point", "device"])`
}

/**
 * The min, max, sum and count of each UTC window of `every` (minutes or hours, aligned to the epoch: the caller folds
 * them into its zone's windows) of one data point of some devices, from raw values: rows of `_time` (the window start,
 * or the range start for a cut first window), `_value`, `device` and `fn`. Each branch is a whole chain InfluxDB
 * pushes down to its storage (as extremesQuery's); with a `location` it would not be (a month of a hundred devices:
 * 60 ms against 6.6 s).
 */
export function groupAggregateQuery(
  bucket: string,
  g: GroupRead,
  every: string,
): ParameterizedQuery {
  const e = parseEvery(every)
  if (!e || (e.unit !== 'm' && e.unit !== 'h')) throw new TypeError(`not a UTC grain: ${every}`)
  const d = fluxDuration(every)
  const at = flux`timeSrc: "_start", createEmpty: false`
  const n = groupNumbers(bucket, g)
  return flux`union(tables: [
  ${n} |> aggregateWindow(every: ${d}, fn: min, ${at}) |> set(key: "fn", value: "min"),
  ${n} |> aggregateWindow(every: ${d}, fn: max, ${at}) |> set(key: "fn", value: "max"),
  ${n} |> aggregateWindow(every: ${d}, fn: sum, ${at}) |> set(key: "fn", value: "sum"),
  ${n} |> aggregateWindow(every: ${d}, fn: count, ${at}) |> toFloat() |> set(key: "fn", value: "count"),
])
  |> keep(columns: ["_time", "_value", "device", "fn"])`
}

/** The first and the last row of each table of some data points in [start, end) (`_time` only). */
export function extentQuery(bucket: string, r: ReadRange): ParameterizedQuery {
  const series = flux`${deviceSeries(bucket, r.tenantID, r.deviceID, new Date(r.start), new Date(r.end))}
  |> filter(fn: (r) => ${pointIn(r.dataPointIDs)})`
  return flux`union(tables: [${series} |> first(), ${series} |> last()])
  |> keep(columns: ["_time"])`
}

/** The number of values of each data point in [start, end): one row per point with a value (`point`, `_value`). */
export function countByPointQuery(bucket: string, r: ReadRange): ParameterizedQuery {
  return flux`${deviceSeries(bucket, r.tenantID, r.deviceID, new Date(r.start), new Date(r.end))}
  |> filter(fn: (r) => ${pointIn(r.dataPointIDs)})
  |> count()
  |> group(columns: ["point"])
  |> sum()
  |> keep(columns: ["point", "_value"])`
}

/**
 * The extremes of each downsample bucket (store/downsample.ts): the max and min row of the numeric field, the
 * first and last row of the others, each with its own time. Buckets are `every` windows in the zone (aligned,
 * store/rollups.ts alignedBuckets) or `widthMs` windows shifted so that one starts at r.start. Each branch of the union is a whole `range |> filter |> window |> selector` chain, which
 * InfluxDB pushes down to its storage (one shared `data` variable is not: 380 ms against 20 ms for a day at 1 Hz).
 */
export function extremesQuery(
  bucket: string,
  r: ReadRange,
  buckets: { widthMs: number } | { every: string; tz: string },
): ParameterizedQuery {
  let cut: ParameterizedQuery
  if ('every' in buckets) {
    if (!parseEvery(buckets.every)) throw new TypeError(`not a window duration: ${buckets.every}`)
    cut = flux`window(every: ${fluxDuration(buckets.every)}, location: timezone.location(name: ${buckets.tz}))`
  } else {
    const w = buckets.widthMs
    cut = flux`window(every: ${fluxDuration(`${w}ms`)}, offset: ${fluxDuration(`${((r.start % w) + w) % w}ms`)})`
  }
  const numbers = flux`r._field == ${FIELD.number}`
  const others = flux`r._field == ${FIELD.string} or r._field == ${FIELD.boolean}`
  const windows = (
    field: ParameterizedQuery,
  ) => flux`${deviceSeries(bucket, r.tenantID, r.deviceID, new Date(r.start), new Date(r.end))}
  |> filter(fn: (r) => ${pointIn(r.dataPointIDs)})
  |> filter(fn: (r) => ${field})
  |> ${cut}`
  return flux`import "timezone"
union(tables: [
  ${windows(numbers)} |> max(),
  ${windows(numbers)} |> min(),
  ${windows(others)} |> first(),
  ${windows(others)} |> last(),
])
  |> keep(columns: ["_time", "_value", "_field", "point"])`
}

/** The last value of every data point of a device (one row per point and field). */
export function latestQuery(
  bucket: string,
  tenantID: string,
  deviceID: string,
): ParameterizedQuery {
  return flux`${deviceSeries(bucket, tenantID, deviceID, LATEST_RANGE.start, LATEST_RANGE.stop)}
  |> last()
  |> keep(columns: ["_time", "_value", "_field", "point"])`
}

/** The last value of every data point of some devices of a tenant (one row per device, point and field). */
export function latestOfQuery(
  bucket: string,
  tenantID: string,
  deviceIDs: readonly string[],
): ParameterizedQuery {
  return flux`from(bucket: ${bucket})
  |> range(start: ${LATEST_RANGE.start}, stop: ${LATEST_RANGE.stop})
  |> filter(fn: (r) => r._measurement == ${MEASUREMENT} and r.tenant == ${tenantID})
  |> filter(fn: (r) => ${deviceIn(deviceIDs)})
  |> last()
  |> keep(columns: ["_time", "_value", "_field", "point", "device"])`
}

/** A delete-API predicate string literal: `\`, `"` and newlines escaped as InfluxDB's predicate parser reads them. */
function predicateString(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, '\\n')}"`
}

/** `_measurement="telemetry" AND key="value" ...`: each tag value a predicate string literal. */
export function predicate(
  tags: ReadonlyArray<readonly [string, string]>,
  measurement: string = MEASUREMENT,
): string {
  return [['_measurement', measurement] as const, ...tags]
    .map(([key, value]) => `${key}=${predicateString(value)}`)
    .join(' AND ')
}

/** The delete API's predicate of one product's values in a tenant. */
export function productPredicate(tenantID: string, productID: string): string {
  return predicate([
    ['tenant', tenantID],
    ['product', productID],
  ])
}

/** The delete-API predicate selecting every series of one device of one tenant. */
export function devicePredicate(tenantID: string, deviceID: string): string {
  return predicate([
    ['tenant', tenantID],
    ['device', deviceID],
  ])
}

/** The delete-API predicate selecting one data point's series of every device of one product of one tenant. */
export function dataPointPredicate(
  tenantID: string,
  productID: string,
  dataPointID: string,
): string {
  return predicate([
    ['tenant', tenantID],
    ['product', productID],
    ['point', dataPointID],
  ])
}
