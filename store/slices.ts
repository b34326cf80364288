/**
 * Reading a long range a day at a time, so no read holds more than a day of a data point's values: the stores'
 * stream() and the embedded aggregate, and formula metrics in query/metrics.ts.
 */
import type { Series, SeriesRange, SeriesSlice } from './telemetry.ts'

/** The length of a slice. */
export const SLICE_MS = 86_400_000

/** The ranges of [range.start, range.end) cut into slices of SLICE_MS, in time order. */
export function* daySlices<R extends { start: number; end: number }>(range: R): Generator<R> {
  for (let t = range.start; t < range.end; t += SLICE_MS) yield { ...range, start: t, end: Math.min(t + SLICE_MS, range.end) }
}

/**
 * TelemetryStore.stream() over a store's readRaw: data point by data point (in the order requested), a day at a
 * time, non-empty slices only. `pause` runs before each read (the embedded store lets the event loop turn).
 */
export async function* streamByDay(
  range: SeriesRange,
  readRaw: (range: SeriesRange) => Promise<Map<string, Series>>,
  pause?: () => Promise<void>,
): AsyncIterable<SeriesSlice> {
  for (const dp of new Set(range.dataPointIDs)) {
    for (const slice of daySlices({ ...range, dataPointIDs: [dp] })) {
      await pause?.()
      const s = (await readRaw(slice)).get(dp)!
      if (s.time.length) yield { dataPointID: dp, time: s.time, value: s.value }
    }
  }
}
