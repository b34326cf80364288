/**
 * original_data: raw values of a device's data points over a range, whole (bounded by
 * QUERY_MAX_POINTS), downsampled to `maxPoints` (read slice by slice, memory O(maxPoints)), or streamed.
 */
import type { Series, SeriesRange, TelemetryStore } from '../store/telemetry.ts'
import { within, type Deadline } from './deadline.ts'
import { QueryParamError, type QueryRange } from './range.ts'

export interface RawQuery {
  tenantID: string
  deviceID: string
  dataPointIDs: readonly string[]
  range: QueryRange
  /** QUERY_TIMEOUT_MS of the request (none when absent). */
  budget?: Deadline
  /** The zone downsample buckets align to (TIMEZONE; UTC when absent). */
  tz?: string
}

const seriesRange = (q: RawQuery): SeriesRange => ({
  tenantID: q.tenantID,
  deviceID: q.deviceID,
  dataPointIDs: q.dataPointIDs,
  start: q.range.start,
  end: q.range.end,
})

/**
 * The data points a `dataPointID` comma list names, in the product's order (all of them when absent); an id that
 * is not one of `all` is a QueryParamError naming dataPointID.
 */
export function selectPoints<P extends { dataPointID: string }>(
  all: readonly P[],
  list: string | undefined,
): P[] {
  if (list === undefined) return [...all]
  const wanted = new Set(
    list
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  const known = new Set(all.map((p) => p.dataPointID))
  const unknown = [...wanted].filter((id) => !known.has(id))
  if (unknown.length)
    throw new QueryParamError({
      dataPointID: `not a data point of the device's product: ${unknown.slice(0, 10).join(', ')}`,
    })
  return all.filter((p) => wanted.has(p.dataPointID))
}

/** Refuses a range holding more than `limit` raw values, naming the range parameter and the ways out. */
export async function checkRawSize(
  store: TelemetryStore,
  q: RawQuery,
  limit: number,
  hint: string,
) {
  const n = await within(q.budget, store.count(seriesRange(q)))
  if (n > limit)
    throw new QueryParamError({
      [q.range.param]:
        `the range holds ${n} values, more than the limit of ${limit} (QUERY_MAX_POINTS): narrow it, ${hint}`,
    })
}

/** The values of each data point, whole; refused (400) beyond `limit` values. */
export async function readWhole(
  store: TelemetryStore,
  q: RawQuery,
  limit: number,
): Promise<Map<string, Series>> {
  await checkRawSize(
    store,
    q,
    limit,
    'set maxPoints, or export it with format=csv or format=ndjson',
  )
  return within(q.budget, store.readRaw(seriesRange(q)))
}

/**
 * The values of each data point, at most `maxPoints` each: a point with more is downsampled by the store (each
 * bucket's extremes kept, store/downsample.ts); one with fewer is returned whole.
 */
export function readDownsampled(
  store: TelemetryStore,
  q: RawQuery,
  maxPoints: number,
): Promise<Map<string, Series>> {
  return within(q.budget, store.downsample(seriesRange(q), maxPoints, q.tz))
}

/** The range's values slice by slice (CSV and NDJSON exports). */
export function streamRaw(store: TelemetryStore, q: RawQuery) {
  return store.stream(seriesRange(q))
}
