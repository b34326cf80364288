import { flux, type ParameterizedQuery } from '@influxdata/influxdb-client'
import { LATEST_RANGE, MEASUREMENT } from './options.ts'

/**
 * Flux for the store's reads, only through the client's `flux` tagged template: every value (bucket, tenant,
 * device, data point ids, times) is a sanitized literal, so an id like `x") |> drop() //` is just a string.
 */

/** `r.point == a or r.point == b ...`: equality (unlike `contains`) is pushed down to the storage engine. */
function pointIn(ids: readonly string[]): ParameterizedQuery {
  return ids
    .slice(1)
    .reduce((expr, id) => flux`${expr} or r.point == ${id}`, flux`r.point == ${ids[0]}`)
}

/** The device's series in the bucket over [start, stop). */
function deviceSeries(bucket: string, tenantID: string, deviceID: string, start: Date, stop: Date) {
  return flux`from(bucket: ${bucket})
  |> range(start: ${start}, stop: ${stop})
  |> filter(fn: (r) => r._measurement == ${MEASUREMENT} and r.tenant == ${tenantID} and r.device == ${deviceID})`
}

/** Raw values of some data points of a device in [start, end), one table per point and field, time ascending. */
export function readRawQuery(
  bucket: string,
  r: { tenantID: string; deviceID: string; dataPointIDs: readonly string[]; start: number; end: number },
): ParameterizedQuery {
  return flux`${deviceSeries(bucket, r.tenantID, r.deviceID, new Date(r.start), new Date(r.end))}
  |> filter(fn: (r) => ${pointIn(r.dataPointIDs)})
  |> keep(columns: ["_time", "_value", "_field", "point"])`
}

/** The last value of every data point of a device (one row per point and field). */
export function latestQuery(bucket: string, tenantID: string, deviceID: string): ParameterizedQuery {
  return flux`${deviceSeries(bucket, tenantID, deviceID, LATEST_RANGE.start, LATEST_RANGE.stop)}
  |> last()
  |> keep(columns: ["_time", "_value", "_field", "point"])`
}

/** A delete-API predicate string literal: `\`, `"` and newlines escaped as InfluxDB's predicate parser reads them. */
function predicateString(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, '\\n')}"`
}

/** The delete-API predicate selecting every series of one device of one tenant. */
export function devicePredicate(tenantID: string, deviceID: string): string {
  return `_measurement=${predicateString(MEASUREMENT)} AND tenant=${predicateString(tenantID)} AND device=${predicateString(deviceID)}`
}
