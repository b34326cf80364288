/**
 * Telemetry points as they cross to the telemetry worker: columns instead of objects. An uplink's points share
 * their tenant, product and device (one run), and data point ids repeat from message to message, so every
 * string is sent once per batch (a dictionary) and each point costs a dictionary index, a time and a value in
 * typed arrays that move to the worker without a copy (`transfer`). Structured clone of the objects themselves
 * (six fields a point, the property names included) cost the event loop several times as much.
 */
import type { TelemetryPoint, TelemetryValue } from '../../telemetry.ts'
import { invalidPoint } from '../points.ts'

export interface PointColumns {
  /** Every distinct string of the batch. */
  strings: string[]
  /** Four entries a run of points of one device: tenant, product and device (indexes in `strings`), count. */
  runs: Uint32Array
  /** A point's data point id (an index in `strings`). */
  dataPoints: Uint32Array
  times: Float64Array
  /** The values when every one is a number (then `values` is empty). */
  numbers: Float64Array
  values: TelemetryValue[]
}

/**
 * The columns of `points` and the buffers to transfer with them, each point checked as it is read (the store's
 * `invalidPoint`: no pass of its own over them): `invalid` is the index of the first point the store cannot keep
 * (then the columns hold nothing), else -1.
 */
export function encodePoints(points: readonly TelemetryPoint[]): {
  columns: PointColumns
  transfer: ArrayBuffer[]
  invalid: number
} {
  const n = points.length
  const strings: string[] = []
  const index = new Map<string, number>()
  const id = (s: string) => {
    let i = index.get(s)
    if (i === undefined) index.set(s, (i = strings.push(s) - 1))
    return i
  }
  const runs: number[] = []
  const dataPoints = new Uint32Array(n)
  const times = new Float64Array(n)
  let numeric = true
  let last: TelemetryPoint | undefined
  for (let i = 0; i < n; i++) {
    const p = points[i]!
    if (invalidPoint(p)) return { ...encodePoints([]), invalid: i }
    if (
      last === undefined ||
      p.deviceID !== last.deviceID ||
      p.tenantID !== last.tenantID ||
      p.productID !== last.productID
    )
      runs.push(id(p.tenantID), id(p.productID), id(p.deviceID), 0)
    runs[runs.length - 1]!++
    last = p
    dataPoints[i] = id(p.dataPointID)
    times[i] = p.time
    if (typeof p.value !== 'number') numeric = false
  }
  const numbers = numeric ? new Float64Array(n) : new Float64Array(0)
  if (numeric) for (let i = 0; i < n; i++) numbers[i] = points[i]!.value as number
  const columns: PointColumns = {
    strings,
    runs: Uint32Array.from(runs),
    dataPoints,
    times,
    numbers,
    values: numeric ? [] : points.map((p) => p.value),
  }
  return {
    columns,
    transfer: [
      columns.runs.buffer,
      dataPoints.buffer,
      times.buffer,
      numbers.buffer,
    ] as ArrayBuffer[],
    invalid: -1,
  }
}
