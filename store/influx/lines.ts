import { Point, escape } from '@influxdata/influxdb-client'
import { Invalid } from '../errors.ts'
import type { TelemetryPoint, TelemetryValue } from '../telemetry.ts'
import { FIELD, MEASUREMENT, TIME_LIMITS } from './options.ts'

/** Line protocol cannot carry these tag values: empty (the tag vanishes), a trailing `\`, line breaks. */
export function storableTag(value: string): boolean {
  return !(value === '' || value.endsWith('\\') || /[\n\r]/.test(value))
}

function checkTag(field: string, value: string): void {
  if (!storableTag(value))
    throw new Invalid(field, `${field} cannot be stored in InfluxDB: ${JSON.stringify(value)}`)
}

/** `key=value` of the field matching the value's type, serialized by the client's Point; numbers always floats. */
function fieldOf(value: TelemetryValue): string {
  const p = new Point()
  switch (typeof value) {
    case 'number':
      if (!Number.isFinite(value)) throw new Invalid('value', `not a finite number: ${value}`)
      return `${FIELD.number}=${p.floatField(FIELD.number, value).fields[FIELD.number]}`
    case 'string':
      return `${FIELD.string}=${p.stringField(FIELD.string, value).fields[FIELD.string]}`
    case 'boolean':
      return `${FIELD.boolean}=${p.booleanField(FIELD.boolean, value).fields[FIELD.boolean]}`
    default:
      throw new Invalid('value', `unsupported value type: ${typeof value}`)
  }
}

/** `telemetry,device=..,point=..,product=..,tenant=..` (tags in key order, as Point writes them), cached per series. */
function seriesKey(cache: Map<string, string>, t: TelemetryPoint): string {
  const id = `${t.tenantID}\u0000${t.productID}\u0000${t.deviceID}\u0000${t.dataPointID}`
  let key = cache.get(id)
  if (key === undefined) {
    checkTag('tenantID', t.tenantID)
    checkTag('productID', t.productID)
    checkTag('deviceID', t.deviceID)
    checkTag('dataPointID', t.dataPointID)
    key =
      `${escape.measurement(MEASUREMENT)},device=${escape.tag(t.deviceID)},point=${escape.tag(t.dataPointID)}` +
      `,product=${escape.tag(t.productID)},tenant=${escape.tag(t.tenantID)}`
    cache.set(id, key)
  }
  return key
}

/**
 * The line protocol of the points (ms timestamps): measurement `telemetry`, tags tenant/product/device/point, one
 * field. Throws Invalid (before anything is sent) when a point cannot be represented.
 */
export function toLines(points: readonly TelemetryPoint[]): string[] {
  const cache = new Map<string, string>()
  const lines = new Array<string>(points.length)
  for (let i = 0; i < points.length; i++) {
    const t = points[i]!
    if (!Number.isSafeInteger(t.time) || t.time < TIME_LIMITS.min || t.time >= TIME_LIMITS.max)
      throw new Invalid('time', `not an epoch-ms integer InfluxDB can store: ${t.time}`)
    lines[i] = `${seriesKey(cache, t)} ${fieldOf(t.value)} ${t.time}`
  }
  return lines
}
