/**
 * In-memory parts of the embedded telemetry store: the memtable (time-sorted arrays per series holding what the
 * WAL holds and the chunks do not yet) and the merge of several sorted runs with "same time → last written wins".
 */
import type { Series, TelemetryValue } from '../telemetry.ts'
import { lowerBound } from '../rollups.ts'

/** A sorted, duplicate-free run of values; a later run in a merge wins over an earlier one at the same time. */
export interface Run {
  time: number[]
  value: TelemetryValue[]
}

/** The values of one series not yet in chunks. Appends in time order cost O(1); others sort lazily. */
export class SeriesBuffer {
  time: number[] = []
  value: TelemetryValue[] = []
  private sorted = true

  /** Adds one value; a later add of the same time replaces the earlier one. */
  add(t: number, v: TelemetryValue) {
    const n = this.time.length
    const last = n ? this.time[n - 1]! : -Infinity
    if (t === last) this.value[n - 1] = v
    else {
      this.time.push(t)
      this.value.push(v)
      if (t < last) this.sorted = false
    }
  }

  get size() {
    return this.time.length
  }

  /** Sorts by time (stable) and keeps the last written value of each time. */
  normalize(): Run {
    if (this.sorted) return this
    const merged = dedupeSorted(stableSortByTime(this.time, this.value))
    this.time = merged.time
    this.value = merged.value
    this.sorted = true
    return this
  }

  /** A copy of the values in [start, end). */
  slice(start: number, end: number): Run {
    this.normalize()
    const a = lowerBound(this.time, start)
    const b = lowerBound(this.time, end)
    return { time: this.time.slice(a, b), value: this.value.slice(a, b) }
  }

  /** The last value, if any. */
  last(): { time: number; value: TelemetryValue } | undefined {
    this.normalize()
    const n = this.time.length
    return n ? { time: this.time[n - 1]!, value: this.value[n - 1]! } : undefined
  }
}

/**
 * Series buffers by series id, with the total number of values held. While a flush writes a memtable out in
 * steps, that memtable sits `under` the one taking new writes: reads see both (this one winning at equal times)
 * until the flush has committed every chunk and drops it.
 */
export class Memtable {
  readonly series = new Map<number, SeriesBuffer>()
  points = 0
  under: Memtable | undefined

  add(seriesId: number, t: number, v: TelemetryValue) {
    let buf = this.series.get(seriesId)
    if (!buf) this.series.set(seriesId, (buf = new SeriesBuffer()))
    const before = buf.size
    buf.add(t, v)
    this.points += buf.size - before
  }

  get(seriesId: number): SeriesBuffer | undefined {
    return this.series.get(seriesId)
  }

  /** Adds every value of a newer memtable (which wins at equal times). */
  absorb(newer: Memtable) {
    for (const [id, buf] of newer.series)
      for (let i = 0; i < buf.time.length; i++) this.add(id, buf.time[i]!, buf.value[i]!)
  }

  /** A copy of the series' values in [start, end), over both layers (undefined: none held). */
  slice(seriesId: number, start: number, end: number): Run | undefined {
    const top = this.series.get(seriesId)?.slice(start, end)
    const low = this.under?.slice(seriesId, start, end)
    if (!low?.time.length) return top
    if (!top?.time.length) return low
    return mergeRuns([low, top])
  }

  /** The series' value of the latest time over both layers (this one's at an equal time). */
  last(seriesId: number): { time: number; value: TelemetryValue } | undefined {
    const top = this.series.get(seriesId)?.last()
    const low = this.under?.last(seriesId)
    return low && (!top || low.time > top.time) ? low : top
  }

  /** Drops the series' values, in both layers. */
  delete(seriesId: number) {
    this.under?.delete(seriesId)
    const buf = this.series.get(seriesId)
    if (!buf) return
    this.points -= buf.size
    this.series.delete(seriesId)
  }
}

export { lowerBound }

/** Restricts a sorted run to [start, end) without copying when it lies inside. */
export function clip(run: Run, start: number, end: number): Run {
  const n = run.time.length
  if (n === 0 || (run.time[0]! >= start && run.time[n - 1]! < end)) return run
  const a = lowerBound(run.time, start)
  const b = lowerBound(run.time, end, a)
  return { time: run.time.slice(a, b), value: run.value.slice(a, b) }
}

/**
 * Merges sorted runs given oldest first: the result is time ascending and at equal times the value of the latest
 * run wins. Runs that do not overlap (the usual case: an hour chunk after another) are simply concatenated.
 */
export function mergeRuns(runs: Run[]): Series {
  const live = runs.filter((r) => r.time.length > 0)
  if (live.length === 0) return { time: [], value: [] }
  if (live.length === 1) return { time: live[0]!.time, value: live[0]!.value }
  const byStart = [...live].sort((a, b) => a.time[0]! - b.time[0]!)
  let disjoint = true
  for (let i = 1; disjoint && i < byStart.length; i++)
    disjoint = byStart[i]!.time[0]! > byStart[i - 1]!.time[byStart[i - 1]!.time.length - 1]!
  if (disjoint) {
    const time: number[] = []
    const value: TelemetryValue[] = []
    for (const r of byStart)
      for (let i = 0; i < r.time.length; i++) {
        time.push(r.time[i]!)
        value.push(r.value[i]!)
      }
    return { time, value }
  }
  const time: number[] = []
  const value: TelemetryValue[] = []
  for (const r of live)
    for (let i = 0; i < r.time.length; i++) {
      time.push(r.time[i]!)
      value.push(r.value[i]!)
    }
  return dedupeSorted(stableSortByTime(time, value))
}

/** Sorts parallel arrays by time; equal times keep their order (so the later written stays later). */
function stableSortByTime(time: number[], value: TelemetryValue[]): Run {
  const idx = Array.from({ length: time.length }, (_, i) => i)
  idx.sort((a, b) => time[a]! - time[b]! || a - b)
  return { time: idx.map((i) => time[i]!), value: idx.map((i) => value[i]!) }
}

/** Keeps the last element of each run of equal times in time-sorted parallel arrays. */
function dedupeSorted(run: Run): Run {
  const time: number[] = []
  const value: TelemetryValue[] = []
  const n = run.time.length
  for (let i = 0; i < n; i++) {
    if (i + 1 < n && run.time[i + 1] === run.time[i]) continue
    time.push(run.time[i]!)
    value.push(run.value[i]!)
  }
  return { time, value }
}
