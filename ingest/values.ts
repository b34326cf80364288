import type { TelemetryValue } from '../store/telemetry.ts'

/** What the value check needs of a data point (one row of data_points). */
export interface PointSpec {
  id: number
  dataPointID: string
  dataPointName: string
  pointDataType: number
  upperLimit: number | null
  lowerLimit: number | null
  binarySize: number | null
}

/** A value that fits its data point: what to store, and a note when it is outside the point's limits. */
export type Checked =
  { ok: true; value: TelemetryValue; violation?: string } | { ok: false; reason: string }

const INT32: [number, number] = [-(2 ** 31), 2 ** 31 - 1]
const UINT32: [number, number] = [0, 2 ** 32 - 1]
const INT64: [number, number] = [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]
const UINT64: [number, number] = [0, Number.MAX_SAFE_INTEGER]
const FLOAT32_MAX = 3.4028234663852886e38

/** Integer point types (pointDataType) and their range (64-bit types within JS safe integers). */
const INTEGER_RANGES: Record<number, [number, number]> = {
  15: INT32,
  16: UINT32,
  21: INT64,
  22: UINT64,
}
const FLOAT_TYPES = new Set([1, 17, 18, 25])
const STRING_TYPES = new Set([3, 11, 12])
const BINARY_TYPES = new Set([13, 14])
const BOOLEAN_TYPES = new Set([5, 23])

const fail = (reason: string): Checked => ({ ok: false, reason })

/** A number, or a string that is exactly a finite number; undefined otherwise. */
function asNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v)
    return Number.isFinite(n) ? n : undefined
  }
  return undefined
}

function describe(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v)
  return s.length > 40 ? `${s.slice(0, 40)}...` : s
}

/** Notes a numeric value outside upperLimit/lowerLimit: it is stored anyway, the event records it. */
function limits(p: PointSpec, n: number): Checked {
  if (p.upperLimit !== null && n > p.upperLimit)
    return { ok: true, value: n, violation: `above upperLimit ${p.upperLimit}` }
  if (p.lowerLimit !== null && n < p.lowerLimit)
    return { ok: true, value: n, violation: `below lowerLimit ${p.lowerLimit}` }
  return { ok: true, value: n }
}

function checkNumber(p: PointSpec, v: unknown): Checked {
  const n = asNumber(v)
  if (n === undefined) return fail(`expected a number, got ${describe(v)}`)
  const range = INTEGER_RANGES[p.pointDataType]
  if (range) {
    if (!Number.isInteger(n)) return fail(`expected an integer, got ${describe(v)}`)
    if (n < range[0] || n > range[1]) return fail(`${n} is out of range [${range[0]}, ${range[1]}]`)
  }
  if (p.pointDataType === 17 && Math.abs(n) > FLOAT32_MAX)
    return fail(`${n} does not fit a single float`)
  return limits(p, n)
}

function checkString(p: PointSpec, v: unknown): Checked {
  if (typeof v !== 'string') return fail(`expected a string, got ${describe(v)}`)
  if (p.pointDataType === 11 && p.binarySize !== null && v.length !== p.binarySize)
    return fail(`expected exactly ${p.binarySize} characters, got ${v.length}`)
  return { ok: true, value: v }
}

const HEX = /^(?:[0-9a-fA-F]{2})*$/
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** Binary values arrive as hex or base64 text and are stored as given; a fixed size is checked in bytes. */
function checkBinary(p: PointSpec, v: unknown): Checked {
  if (typeof v !== 'string') return fail(`expected hex or base64 text, got ${describe(v)}`)
  let bytes: number
  if (HEX.test(v)) bytes = v.length / 2
  else if (BASE64.test(v)) bytes = Buffer.byteLength(v, 'base64')
  else return fail('expected hex or base64 text')
  if (p.pointDataType === 13 && p.binarySize !== null && bytes !== p.binarySize)
    return fail(`expected exactly ${p.binarySize} bytes, got ${bytes}`)
  return { ok: true, value: v }
}

function checkBoolean(v: unknown): Checked {
  if (v === true || v === 1 || v === '1' || v === 'true') return { ok: true, value: true }
  if (v === false || v === 0 || v === '0' || v === 'false') return { ok: true, value: false }
  return fail(`expected a boolean (true/false, 0/1), got ${describe(v)}`)
}

/** Geolocation: `{lon, lat}` (also lng/longitude/latitude), `[lon, lat]` or `"lon,lat"` → stored as `"lon,lat"`. */
function checkGeo(v: unknown): Checked {
  let lon: number | undefined
  let lat: number | undefined
  if (typeof v === 'string') {
    const parts = v.split(',')
    if (parts.length === 2) [lon, lat] = [asNumber(parts[0]), asNumber(parts[1])]
  } else if (Array.isArray(v) && v.length === 2) {
    ;[lon, lat] = [asNumber(v[0]), asNumber(v[1])]
  } else if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>
    lon = asNumber(o.lon ?? o.lng ?? o.longitude)
    lat = asNumber(o.lat ?? o.latitude)
  }
  if (lon === undefined || lat === undefined)
    return fail(`expected a location {lon, lat} or "lon,lat", got ${describe(v)}`)
  if (lon < -180 || lon > 180 || lat < -90 || lat > 90)
    return fail(`location ${lon},${lat} is out of range`)
  return { ok: true, value: `${lon},${lat}` }
}

function checkBit(v: unknown): Checked {
  const b = checkBoolean(v)
  return b.ok
    ? { ok: true, value: b.value ? 1 : 0 }
    : fail(`expected a bit (0/1), got ${describe(v)}`)
}

/** Time values: epoch seconds, epoch ms (> 10^12) or a date-time text → epoch ms. */
function checkTime(v: unknown): Checked {
  if (typeof v === 'string' && asNumber(v) === undefined) {
    const ms = Date.parse(v)
    return Number.isFinite(ms)
      ? { ok: true, value: ms }
      : fail(`expected a time, got ${describe(v)}`)
  }
  const n = asNumber(v)
  if (n === undefined || n < 0) return fail(`expected a time, got ${describe(v)}`)
  return { ok: true, value: epochMs(n) }
}

/** Epoch seconds or milliseconds (milliseconds when > 10^12) → milliseconds. */
export function epochMs(n: number): number {
  return n > 1e12 ? Math.round(n) : Math.round(n * 1000)
}

/**
 * True when `v` is stored as it is without a check object: a finite number for a double point (not the single
 * float, whose range is checked) without limits. The common uplink value; checkValue answers the same for it.
 */
export function isPlainNumber(p: PointSpec, v: unknown): v is number {
  const t = p.pointDataType
  return (
    typeof v === 'number' &&
    FLOAT_TYPES.has(t) &&
    t !== 17 &&
    p.upperLimit === null &&
    p.lowerLimit === null &&
    Number.isFinite(v)
  )
}

/**
 * Checks a value against its data point's `pointDataType` and returns what to store:
 * numbers for the numeric, integer, bit and time types, booleans for 5/23, text for strings, binaries (hex or
 * base64) and geolocations (`"lon,lat"`), faults as given (text or number). Never throws.
 */
export function checkValue(p: PointSpec, v: unknown): Checked {
  const t = p.pointDataType
  if (v === null || v === undefined) return fail('no value')
  if (FLOAT_TYPES.has(t) || t in INTEGER_RANGES) return checkNumber(p, v)
  if (STRING_TYPES.has(t)) return checkString(p, v)
  if (BINARY_TYPES.has(t)) return checkBinary(p, v)
  if (BOOLEAN_TYPES.has(t)) return checkBoolean(v)
  if (t === 6) return checkGeo(v)
  if (t === 4)
    return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))
      ? { ok: true, value: v }
      : fail(`expected a fault code (text or number), got ${describe(v)}`)
  if (t === 19) return checkBit(v)
  if (t === 24) return checkTime(v)
  return fail(`unsupported pointDataType ${t}`)
}
