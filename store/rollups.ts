/**
 * Rollups: per data point, the min, max, sum and count of its numbers per 1-minute, 1-hour and 1-day window, kept
 * as values are stored, so that aggregates and downsampled charts of long ranges read a few hundred windows
 * instead of millions of raw values, and still answer where raw values are gone (RETENTION_RAW_DAYS).
 *
 * - Tiers: `1m` windows are whole UTC minutes (they serve any zone whose offset is whole minutes); `1h` and `1d`
 *   windows are the hours and days of the store's zone (TIMEZONE) with the semantics of store/windows.ts, so a
 *   half-hour zone's hours start at UTC :30 and a DST day is 23 or 25 hours long.
 * - Each window keeps the time of its (first) minimum and (first) maximum, so extremes read from rollups carry
 *   their true times and a downsample served by rollups equals one computed from raw values.
 * - A read cuts every answer window into pieces (piecesOf): the coarsest tier windows that fit wholly inside it,
 *   finer tiers towards its edges, and raw values for what no tier window fits (a range starting mid-minute) or
 *   where the store's rollups are not yet up to date (its "dirty" hours: values still being written).
 * - The answer says what served it (`resolution`): the coarsest tier any of its pieces read, else `raw`.
 *
 * This module is pure: the embedded store (store/tsdb/rollups.ts) keeps and reads the windows.
 */
import { parseEvery, windowBounds } from './windows.ts'
import type { Resolution, Series, TelemetryValue, Tier } from './telemetry.ts'

export type { Resolution, Tier }

/** Coarsest first. */
export const TIERS_COARSE_FIRST: readonly Tier[] = ['1d', '1h', '1m']
const RANK: Record<Resolution, number> = { raw: 0, '1m': 1, '1h': 2, '1d': 3 }

/** The coarser of two resolutions. */
export const coarser = (a: Resolution, b: Resolution): Resolution => (RANK[a] >= RANK[b] ? a : b)

export const MINUTE_MS = 60_000
export const HOUR_MS = 3_600_000
export const DAY_MS = 86_400_000

/** A window's summary: numbers (count, min at tmin, max at tmax, sum) and how many values were not numbers. */
export interface WindowStat {
  /** Window start, epoch ms. */
  start: number
  count: number
  /** Values that are not numbers (strings, booleans): a downsample of such a window reads raw values. */
  other: number
  min: number
  tmin: number
  max: number
  tmax: number
  sum: number
}

export const emptyStat = (start: number): WindowStat => ({
  start,
  count: 0,
  other: 0,
  min: 0,
  tmin: 0,
  max: 0,
  tmax: 0,
  sum: 0,
})

/** Adds `s` (all later than what `acc` holds) to `acc`: at equal extremes the earlier one stays. */
export function foldStat(acc: WindowStat, s: WindowStat) {
  if (s.count > 0) {
    if (acc.count === 0) {
      acc.min = s.min
      acc.tmin = s.tmin
      acc.max = s.max
      acc.tmax = s.tmax
    } else {
      if (s.min < acc.min) {
        acc.min = s.min
        acc.tmin = s.tmin
      }
      if (s.max > acc.max) {
        acc.max = s.max
        acc.tmax = s.tmax
      }
    }
  }
  acc.sum += s.sum
  acc.count += s.count
  acc.other += s.other
}

/** Adds time-ascending raw values [from, to) to `acc`. */
export function foldValues(
  acc: WindowStat,
  time: ArrayLike<number>,
  value: ArrayLike<TelemetryValue>,
  from = 0,
  to = time.length,
) {
  for (let i = from; i < to; i++) {
    const v = value[i]
    if (typeof v !== 'number') {
      acc.other++
      continue
    }
    const t = time[i]!
    if (acc.count === 0) {
      acc.min = acc.max = v
      acc.tmin = acc.tmax = t
    } else if (v < acc.min) {
      acc.min = v
      acc.tmin = t
    } else if (v > acc.max) {
      acc.max = v
      acc.tmax = t
    }
    acc.sum += v
    acc.count++
  }
}

/** The 1-minute windows of time-ascending values (empty minutes left out). */
export function minuteStats(
  time: ArrayLike<number>,
  value: ArrayLike<TelemetryValue>,
): WindowStat[] {
  const out: WindowStat[] = []
  let cur: WindowStat | undefined
  for (let i = 0; i < time.length; i++) {
    const m = Math.floor(time[i]! / MINUTE_MS) * MINUTE_MS
    if (!cur || cur.start !== m) out.push((cur = emptyStat(m)))
    foldValues(cur, time, value, i, i + 1)
  }
  return out
}

/** Hour windows per query beyond which the 1h tier is not planned (a range of over 20 years). */
const MAX_GRID_HOURS = 200_000

/**
 * The boundaries of the tiers over a range: 1m by arithmetic, 1h and 1d of the zone (store/windows.ts) computed
 * once and searched.
 */
export class TierGrid {
  private readonly hours: number[] | undefined
  private readonly days: number[]

  /**
   * `stale`: sorted starts of days whose day window may be behind its hour windows (the InfluxDB store folds
   * days after their hours): those days are cut into hours at most.
   */
  constructor(
    readonly tz: string,
    start: number,
    end: number,
    private readonly stale: readonly number[] = [],
  ) {
    const span = Math.max(1, end - start)
    this.days = windowBounds(start, start + span, '1d', tz, Math.ceil(span / (20 * HOUR_MS)) + 4)
    this.hours =
      span / HOUR_MS > MAX_GRID_HOURS
        ? undefined
        : windowBounds(start, start + span, '1h', tz, Math.ceil(span / HOUR_MS) * 2 + 4)
  }

  has(tier: Tier): boolean {
    return tier !== '1h' || this.hours !== undefined
  }

  /** The greatest boundary of the tier ≤ t (within the grid's range). */
  floor(tier: Tier, t: number): number {
    if (tier === '1m') return Math.floor(t / MINUTE_MS) * MINUTE_MS
    const b = tier === '1h' ? this.hours! : this.days
    return b[Math.max(0, upper(b, t) - 1)]!
  }

  /** The least boundary of the tier ≥ t (within the grid's range). */
  ceil(tier: Tier, t: number): number {
    if (tier === '1m') return Math.ceil(t / MINUTE_MS) * MINUTE_MS
    const b = tier === '1h' ? this.hours! : this.days
    const i = lowerBound(b, t)
    return i < b.length ? b[i]! : Infinity
  }

  /** The first stale day starting in [a, b), or undefined. */
  staleIn(a: number, b: number): number | undefined {
    const i = lowerBound(this.stale, a)
    return i < this.stale.length && this.stale[i]! < b ? this.stale[i] : undefined
  }
}

/** The first index ≥ `from` whose time is ≥ t (times ascending). */
export function lowerBound(times: ArrayLike<number>, t: number, from = 0): number {
  let lo = from
  let hi = times.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (times[mid]! < t) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** First index with b[i] > t. */
function upper(b: readonly number[], t: number): number {
  let lo = 0
  let hi = b.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (b[mid]! <= t) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** A part of a read: raw values of [start, end), or the windows of a tier that tile it. */
export interface Piece {
  res: Resolution
  start: number
  end: number
}

/** [a, b) as tier windows, coarsest in the middle, finer towards the edges, raw where no window fits. */
function cut(grid: TierGrid, a: number, b: number, level: number, out: Piece[]) {
  if (a >= b) return
  for (let l = level; l < TIERS_COARSE_FIRST.length; l++) {
    const tier = TIERS_COARSE_FIRST[l]!
    if (!grid.has(tier)) continue
    const ca = grid.ceil(tier, a)
    const fb = grid.floor(tier, b)
    const stale = tier === '1d' && ca < fb ? grid.staleIn(ca, fb) : undefined
    if (stale !== undefined) {
      // the days before it, the stale day in hours at most, the rest
      const next = grid.ceil('1d', stale + 1)
      cut(grid, a, stale, l, out)
      cut(grid, stale, next, l + 1, out)
      cut(grid, next, b, l, out)
      return
    }
    if (ca < fb) {
      cut(grid, a, ca, l + 1, out)
      out.push({ res: tier, start: ca, end: fb })
      cut(grid, fb, b, l + 1, out)
      return
    }
  }
  out.push({ res: 'raw', start: a, end: b })
}

/**
 * The pieces of the consecutive windows [edges[i], edges[i+1]), in time order: inside a window, the hours in
 * `dirty` (sorted UTC hour starts whose rollups are behind the raw values) and what no tier window fits are raw;
 * the rest is cut into tier windows. Touching raw pieces are merged.
 */
export function piecesOf(
  grid: TierGrid,
  edges: readonly number[],
  dirty: readonly number[],
): Piece[] {
  const out: Piece[] = []
  let d = 0
  for (let i = 0; i + 1 < edges.length; i++) {
    const a = edges[i]!
    const b = edges[i + 1]!
    let t = a
    while (d < dirty.length && dirty[d]! + HOUR_MS <= a) d++
    let k = d
    while (t < b) {
      if (k < dirty.length && dirty[k]! < b) {
        const ds = Math.max(dirty[k]!, t)
        const de = Math.min(dirty[k]! + HOUR_MS, b)
        cut(grid, t, ds, 0, out)
        out.push({ res: 'raw', start: ds, end: de })
        t = de
        if (dirty[k]! + HOUR_MS <= b) k++
        else break
      } else {
        cut(grid, t, b, 0, out)
        t = b
      }
    }
  }
  const merged: Piece[] = []
  for (const p of out) {
    const last = merged[merged.length - 1]
    if (last && last.res === 'raw' && p.res === 'raw' && last.end === p.start) last.end = p.end
    else merged.push({ ...p })
  }
  return merged
}

/** The edges of the answer windows `bounds` clipped to [start, end). */
export function clippedEdges(bounds: readonly number[], start: number, end: number): number[] {
  const out = [start]
  for (let i = 1; i < bounds.length - 1; i++)
    if (bounds[i]! > start && bounds[i]! < end) out.push(bounds[i]!)
  out.push(end)
  return out
}

/**
 * The buckets of a `maxPoints` downsample once a bucket is at least a minute wide: the width rounded up to whole
 * minutes, hours or days and the buckets aligned to them in `tz` (store/windows.ts `<k>m|h|d` windows), as few
 * as needed to stay within maxPoints/2 buckets; undefined below a minute (store/downsample.ts cuts equal
 * milliseconds then). The aligned buckets are unions of rollup windows, so rollups answer them exactly.
 */
export function alignedBuckets(
  start: number,
  end: number,
  maxPoints: number,
  tz: string,
): { every: string; bounds: number[] } | undefined {
  const m = Math.floor(maxPoints / 2)
  if (m < 2 || end <= start) return undefined
  const width = Math.ceil((end - start) / m)
  if (width < MINUTE_MS) return undefined
  // minutes up to 59, hours up to 23, then days: a bucket of a day or more follows the zone's days
  const units = [
    ['m', MINUTE_MS, 60],
    ['h', HOUR_MS, 24],
    ['d', DAY_MS, Infinity],
  ] as const
  for (const [unit, len, below] of units) {
    for (let k = Math.max(1, Math.ceil(width / len)); k < below; k++) {
      const every = `${k}${unit}`
      if (!parseEvery(every)) return undefined
      const bounds = windowBounds(start, end, every, tz, m + 2)
      if (bounds.length - 1 <= m) return { every, bounds }
    }
  }
  return undefined
}

/** The kept points of downsample buckets (time order; one when the extremes are one value). */
export function extremesOf(stats: readonly WindowStat[]): Series {
  const time: number[] = []
  const value: number[] = []
  for (const s of stats) {
    if (s.count === 0) continue
    if (s.tmin === s.tmax) {
      time.push(s.tmin)
      value.push(s.min)
    } else if (s.tmin < s.tmax) {
      time.push(s.tmin, s.tmax)
      value.push(s.min, s.max)
    } else {
      time.push(s.tmax, s.tmin)
      value.push(s.max, s.min)
    }
  }
  return { time, value }
}
