/**
 * Reading a long range a day at a time, so no read holds more than a day of a data point's values: the stores'
 * stream() and the embedded aggregate, and formula metrics in query/metrics.ts.
 */
import type { Series, SeriesRange, SeriesSlice } from './telemetry.ts'

/** The length of a slice. */
export const SLICE_MS = 86_400_000

/** The ranges of [range.start, range.end) cut into slices of SLICE_MS, in time order. */
export function* daySlices<R extends { start: number; end: number }>(range: R): Generator<R> {
  for (let t = range.start; t < range.end; t += SLICE_MS)
    yield { ...range, start: t, end: Math.min(t + SLICE_MS, range.end) }
}

/** What a day-by-day read needs of a store. */
export interface DayReader {
  readRaw(range: SeriesRange): Promise<Map<string, Series>>
  extent(range: SeriesRange): Promise<{ start: number; end: number } | undefined>
}

/** The range narrowed to the store's extent of its values (undefined: no values), so empty years are not read. */
export async function narrowed<R extends SeriesRange>(
  store: Pick<DayReader, 'extent'>,
  range: R,
): Promise<R | undefined> {
  const e = await store.extent(range)
  return e && { ...range, start: Math.max(range.start, e.start), end: Math.min(range.end, e.end) }
}

/**
 * TelemetryStore.stream() over a store's readRaw: data point by data point (in the order requested), a day at a
 * time over the point's extent, non-empty slices only. `pause` runs before each read (the embedded store lets the
 * event loop turn).
 */
export async function* streamByDay(
  range: SeriesRange,
  store: DayReader,
  pause?: () => Promise<void>,
): AsyncIterable<SeriesSlice> {
  for (const dp of new Set(range.dataPointIDs)) {
    const part = await narrowed(store, { ...range, dataPointIDs: [dp] })
    if (!part) continue
    for (const slice of daySlices(part)) {
      await pause?.()
      const s = (await store.readRaw(slice)).get(dp)!
      if (s.time.length) yield { dataPointID: dp, time: s.time, value: s.value }
    }
  }
}
