/**
 * Binary encodings of the embedded telemetry store (store/tsdb/store.ts). Typed arrays use the platform's
 * byte order (little-endian on every machine Node supports in practice); libSQL takes and returns the bytes as is.
 *
 * WAL row (one per committed group of write() calls), 8-byte aligned sections:
 *   u32 n, u32 string-bytes | f64 times[n] | f64 nums[n] | u32 seriesIds[n] | u8 kinds[n] | UTF-8 JSON string[]
 *   kind 0 = number (nums[i]), 1 = boolean (nums[i] is 0 or 1), 2 = string (nums[i] indexes the JSON array).
 *
 * Chunk (one row per series and hour bucket). `kind` says how both blobs are written: its low bits the values,
 * KIND_TIMES_PACKED the times.
 * - times: [t0, step] as Float64 (16 bytes: a regular series, any n ≥ 2); with KIND_TIMES_PACKED the integer
 *   milliseconds packed (pack.ts: a first time, then the gaps in blocks of a bit width each); otherwise
 *   (files written before packing, or times no packing holds) [t0, t1 - t0, ...] as Float64.
 * - values: KIND_PACKED (2), numbers with at most 6 decimals as integers scaled by 10^d, packed (first byte d);
 *   KIND_F64 (0), the Float64 bytes of numbers that do not pack; KIND_JSON (1), the JSON array of the values (keeps
 *   strings, booleans and numbers apart).
 * Beside the blobs a chunk row keeps min, max, sum and count of its numbers. Where a chunk is stored, a times blob
 * of 64 bytes or more is shared with the chunks of identical times (KIND_TIMES_SHARED, file.ts), and a
 * compacted chunk's values blob lives in its device's pack for the hour: readers get both blobs themselves from SQL
 * (CHUNK_TIMES_SQL, CHUNK_VALS_SQL), so nothing here sees the difference.
 */
import type { TelemetryValue } from '../telemetry.ts'
import { packInts, unpackInts } from './pack.ts'

export const KIND_F64 = 0
export const KIND_JSON = 1
export const KIND_PACKED = 2
/** Flag of `kind`: the times blob is packed. */
export const KIND_TIMES_PACKED = 4
/**
 * Flag of `kind`: the times blob is shared with other chunks of the same times; the row keeps its hash
 * (file.ts `chunk_times`). Readers get the blob itself through CHUNK_TIMES_SQL.
 */
export const KIND_TIMES_SHARED = 8
const VALUE_KIND = 3
/** Most decimals a packed value keeps (more: Float64). */
const MAX_DECIMALS = 6
const SCALES = Array.from({ length: MAX_DECIMALS + 1 }, (_, d) => 10 ** d)

/** The fewest decimals d (≤ MAX_DECIMALS) with every value exactly v = round(v·10^d) / 10^d; -1 when none. */
function decimalsOf(values: ArrayLike<TelemetryValue>, from: number, n: number): number {
  let d = 0
  for (let i = from; i < from + n; i++) {
    const v = values[i] as number
    for (;;) {
      const scale = SCALES[d]!
      const scaled = Math.round(v * scale)
      if (scaled / scale === v && Math.abs(scaled) < 2 ** 52) break
      if (++d > MAX_DECIMALS) return -1
    }
  }
  return d
}

/** The values packed as scaled integers (KIND_PACKED), or undefined when they do not pack. */
function packValues(values: ArrayLike<TelemetryValue>, from: number, n: number) {
  const d = decimalsOf(values, from, n)
  if (d < 0) return undefined
  const scale = SCALES[d]!
  const ints = new Float64Array(n)
  for (let i = 0; i < n; i++) ints[i] = Math.round((values[from + i] as number) * scale)
  return packInts(ints, [d])
}

/** Numbers packed as scaled integers (the decimals in the first byte), or undefined when they do not pack. */
export const packNumbers = (values: ArrayLike<number>) => packValues(values, 0, values.length)

/** The `n` numbers packNumbers wrote. */
export function unpackNumbers(bytes: Uint8Array, n: number): number[] {
  const scale = SCALES[bytes[0]!]!
  const ints = unpackInts(bytes, n, 1)
  if (scale !== 1) for (let i = 0; i < n; i++) ints[i] = ints[i]! / scale
  return ints
}

/** The times packed (integer milliseconds), or undefined when they do not pack. */
function packTimes(times: ArrayLike<number>, from: number, n: number) {
  for (let i = from; i < from + n; i++) if (!Number.isSafeInteger(times[i]!)) return undefined
  return packInts(Array.prototype.slice.call(times, from, from + n) as number[])
}

/** The decoded content of WAL rows: parallel arrays. */
export interface WalBatch {
  seriesIds: Uint32Array
  times: Float64Array
  values: TelemetryValue[]
}

/** Encodes the points of one commit (series ids resolved) into one WAL blob. */
export function encodeWal(
  seriesIds: Uint32Array,
  times: Float64Array,
  values: readonly TelemetryValue[],
): Uint8Array {
  const n = seriesIds.length
  const strings: string[] = []
  const nums = new Float64Array(n)
  const kinds = new Uint8Array(n)
  for (let i = 0; i < n; i++) {
    const v = values[i]!
    if (typeof v === 'number') nums[i] = v
    else if (typeof v === 'boolean') {
      nums[i] = v ? 1 : 0
      kinds[i] = 1
    } else {
      nums[i] = strings.push(v) - 1
      kinds[i] = 2
    }
  }
  const text = strings.length ? Buffer.from(JSON.stringify(strings)) : Buffer.alloc(0)
  const out = new Uint8Array(8 + 16 * n + 5 * n + text.length)
  const head = new Uint32Array(out.buffer, 0, 2)
  head[0] = n
  head[1] = text.length
  new Float64Array(out.buffer, 8, n).set(times)
  new Float64Array(out.buffer, 8 + 8 * n, n).set(nums)
  new Uint32Array(out.buffer, 8 + 16 * n, n).set(seriesIds)
  out.set(kinds, 8 + 20 * n)
  out.set(text, 8 + 21 * n)
  return out
}

/** Decodes a WAL blob written by encodeWal. */
export function decodeWal(blob: ArrayBuffer): WalBatch {
  const head = new Uint32Array(blob, 0, 2)
  const n = head[0]!
  const times = new Float64Array(blob.slice(8, 8 + 8 * n))
  const nums = new Float64Array(blob, 8 + 8 * n, n)
  const seriesIds = new Uint32Array(blob.slice(8 + 16 * n, 8 + 20 * n))
  const kinds = new Uint8Array(blob, 8 + 20 * n, n)
  const strings = head[1]
    ? (JSON.parse(Buffer.from(blob, 8 + 21 * n, head[1]).toString('utf8')) as string[])
    : []
  const values: TelemetryValue[] = new Array<TelemetryValue>(n)
  for (let i = 0; i < n; i++) {
    const k = kinds[i]
    values[i] = k === 0 ? nums[i]! : k === 1 ? nums[i] === 1 : strings[nums[i]!]!
  }
  return { seriesIds, times, values }
}

/** Min, max, sum and count of a chunk's numeric values (count 0: none), so aggregates can skip decoding it. */
export interface ChunkStats {
  min: number
  max: number
  sum: number
  count: number
}

/** An encoded chunk ready for INSERT. */
export interface EncodedChunk {
  n: number
  tStart: number
  tEnd: number
  kind: number
  times: Uint8Array
  vals: Uint8Array
  stats: ChunkStats
}

/** Encodes sorted, duplicate-free times and their values (from index `from`, `n` of them). */
export function encodeChunk(
  times: ArrayLike<number>,
  values: ArrayLike<TelemetryValue>,
  from: number,
  n: number,
): EncodedChunk {
  const t0 = times[from]!
  const step = n >= 2 ? times[from + 1]! - t0 : 0
  let regular = n >= 2
  for (let i = from + 2; regular && i < from + n; i++) regular = times[i]! - times[i - 1]! === step
  let timeBytes: Uint8Array | undefined
  let timesPacked = false
  if (regular) timeBytes = new Uint8Array(new Float64Array([t0, step]).buffer)
  else if ((timeBytes = packTimes(times, from, n))) timesPacked = true
  else {
    const t = new Float64Array(n)
    t[0] = t0
    for (let i = 1; i < n; i++) t[i] = times[from + i]! - times[from + i - 1]!
    timeBytes = new Uint8Array(t.buffer)
  }
  let numeric = true
  const stats: ChunkStats = { min: Infinity, max: -Infinity, sum: 0, count: 0 }
  for (let i = from; i < from + n; i++) {
    const v = values[i]
    if (typeof v !== 'number') {
      numeric = false
      continue
    }
    if (v < stats.min) stats.min = v
    if (v > stats.max) stats.max = v
    stats.sum += v
    stats.count++
  }
  let vals: Uint8Array | undefined
  let kind: number
  if (numeric && (vals = packValues(values, from, n))) kind = KIND_PACKED
  else if (numeric) {
    const f = new Float64Array(n)
    for (let i = 0; i < n; i++) f[i] = values[from + i] as number
    vals = new Uint8Array(f.buffer)
    kind = KIND_F64
  } else {
    vals = Buffer.from(JSON.stringify(Array.prototype.slice.call(values, from, from + n)))
    kind = KIND_JSON
  }
  if (stats.count === 0) stats.min = stats.max = 0
  return {
    n,
    tStart: t0,
    tEnd: times[from + n - 1]!,
    kind: kind | (timesPacked ? KIND_TIMES_PACKED : 0),
    times: timeBytes,
    vals,
    stats,
  }
}

/** Decodes the times of a chunk (`kind`: the chunk's, KIND_TIMES_PACKED says how they are written). */
export function decodeTimes(blob: ArrayBuffer, n: number, kind: number): number[] {
  if (kind & KIND_TIMES_PACKED) return unpackInts(new Uint8Array(blob), n)
  const f = new Float64Array(blob)
  const out: number[] = new Array<number>(n)
  if (f.length === 2 && n >= 2) {
    for (let i = 0; i < n; i++) out[i] = f[0]! + i * f[1]!
    return out
  }
  let t = 0
  for (let i = 0; i < n; i++) out[i] = t += f[i]!
  return out
}

/** Decodes the values of a chunk. */
export function decodeValues(blob: ArrayBuffer, n: number, kind: number): TelemetryValue[] {
  const k = kind & VALUE_KIND
  if (k === KIND_JSON) return JSON.parse(Buffer.from(blob).toString('utf8')) as TelemetryValue[]
  if (k === KIND_PACKED) return unpackNumbers(new Uint8Array(blob), n)
  const f = new Float64Array(blob)
  const out: number[] = new Array<number>(n)
  for (let i = 0; i < n; i++) out[i] = f[i]!
  return out
}

/** The last value of a chunk without decoding the others when the values are numbers. */
export function lastValue(blob: ArrayBuffer, n: number, kind: number): TelemetryValue {
  if ((kind & VALUE_KIND) === KIND_F64) return new Float64Array(blob, (n - 1) * 8, 1)[0]!
  return decodeValues(blob, n, kind)[n - 1]!
}
