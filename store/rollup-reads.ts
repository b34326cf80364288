/**
 * Reading aggregates and downsamples from rollups, for both telemetry stores: each answer window is cut into
 * pieces (store/rollups.ts piecesOf), the tier windows of its pieces are read from the store's rollups and the
 * raw pieces (edges no tier window fits, hours whose rollups are behind their values) from its raw values, and
 * the two are folded in time order. A store supplies what it keeps through RollupSource; the folding, and so
 * the answers, are the same for both.
 */
import type { AggregateFn, Series, SeriesRange } from './telemetry.ts'
import { WindowAggregator, windowIndex } from './windows.ts'
import {
  clippedEdges,
  coarser,
  DAY_MS,
  emptyStat,
  extremesOf,
  foldStat,
  foldValues,
  lowerBound,
  piecesOf,
  TierGrid,
  type Piece,
  type Resolution,
  type Tier,
  type WindowStat,
} from './rollups.ts'
import { Downsampler } from './downsample.ts'

/** What a store keeps for the planner; every call is about one device and the data points of `range`. */
export interface RollupSource {
  /** The zone of the store's hour and day rollups (TIMEZONE). */
  readonly tz: string
  /**
   * Per data point, the UTC hour starts in [range.start, range.end) whose rollups may be behind its raw values
   * (values still being written or not rolled up yet); a point absent from the map has none.
   */
  dirtyHours(range: SeriesRange): Promise<Map<string, number[]>>
  /** The starts of the zone's days in the range whose day windows may be behind their hours (none: omit). */
  staleDays?(range: SeriesRange): Promise<number[]>
  /** Per data point, the windows of `tier` starting in [from, to), time ascending. */
  tierWindows(
    range: SeriesRange,
    tier: Tier,
    from: number,
    to: number,
  ): Promise<Map<string, WindowStat[]>>
  /** Raw values of the points in the range, time ascending (TelemetryStore.readRaw). */
  readRaw(range: SeriesRange): Promise<Map<string, Series>>
  /**
   * The most raw time a plan may read (default MAX_RAW_SPAN_MS); beyond it the store's own raw path answers, for
   * a store whose raw reads cost more than its own aggregation (InfluxDB computes in its storage).
   */
  readonly maxRawSpanMs?: number
}

/**
 * A point whose plan reads more raw values than this span (or in more pieces) is left to the caller's raw path:
 * its hours are not rolled up yet (a file just upgraded) or its windows do not fit the tiers.
 */
const MAX_RAW_SPAN_MS = 2 * DAY_MS
const MAX_RAW_PIECES = 64

/** How a point is read: pieces in time order, the tier windows inside them, the raw values of the raw ones. */
interface PointPlan {
  pieces: Piece[]
  tiers: Map<Tier, WindowStat[]>
  raw: Series
}

/** What the rollups answered, and the data points they could not plan (read them raw). */
export interface RollupAnswer {
  out: Map<string, Series>
  unplanned: string[]
}

/** The series with what served it; raw answers carry no `resolution` (absent: raw). */
const served = (s: Series, resolution: Resolution): Series =>
  resolution === 'raw' ? s : { ...s, resolution }

/** Walks a plan's pieces in time order, handing raw values and tier windows; answers the resolution read. */
function walkPlan(
  plan: PointPlan,
  onRaw: (time: number[], value: Series['value'], from: number, to: number) => void,
  onWindow: (w: WindowStat) => void,
): Resolution {
  let resolution: Resolution = 'raw'
  const cursor = new Map<Tier, number>()
  let r = 0
  for (const p of plan.pieces) {
    if (p.res === 'raw') {
      const from = lowerBound(plan.raw.time, p.start, r)
      const to = lowerBound(plan.raw.time, p.end, from)
      if (to > from) onRaw(plan.raw.time, plan.raw.value, from, to)
      r = to
      continue
    }
    const list = plan.tiers.get(p.res) ?? []
    let i = cursor.get(p.res) ?? 0
    while (i < list.length && list[i]!.start < p.start) i++
    for (; i < list.length && list[i]!.start < p.end; i++) {
      const w = list[i]!
      if (w.count > 0) resolution = coarser(resolution, p.res)
      onWindow(w)
    }
    cursor.set(p.res, i)
  }
  return resolution
}

/**
 * The plans of the range's data points over consecutive windows `edges`: pieces around their dirty hours, then
 * one read per tier for all planned points and one raw read per distinct raw piece. Points needing too much raw
 * reading get no plan.
 */
async function plan(
  src: RollupSource,
  range: SeriesRange,
  edges: readonly number[],
): Promise<Map<string, PointPlan>> {
  const [dirty, stale = []] = await Promise.all([src.dirtyHours(range), src.staleDays?.(range)])
  const grid = new TierGrid(
    src.tz,
    range.start,
    range.end,
    [...new Set(stale)].sort((a, b) => a - b),
  )
  const plans = new Map<string, PointPlan>()
  for (const dp of range.dataPointIDs) {
    const hours = [...new Set(dirty.get(dp) ?? [])].sort((a, b) => a - b)
    const pieces = piecesOf(grid, edges, hours)
    const raw = pieces.filter((p) => p.res === 'raw')
    const span = raw.reduce((n, p) => n + p.end - p.start, 0)
    if (span <= (src.maxRawSpanMs ?? MAX_RAW_SPAN_MS) && raw.length <= MAX_RAW_PIECES)
      plans.set(dp, { pieces, tiers: new Map(), raw: { time: [], value: [] } })
  }
  if (plans.size === 0) return plans
  const planned = { ...range, dataPointIDs: [...plans.keys()] }
  await readTiers(src, planned, plans)
  // raw pieces: one read per distinct piece for the points that have it, appended in time order
  const byPiece = new Map<string, { start: number; end: number; dps: string[] }>()
  for (const [dp, p] of plans)
    for (const piece of p.pieces) {
      if (piece.res !== 'raw') continue
      const key = `${piece.start}:${piece.end}`
      const e = byPiece.get(key) ?? { start: piece.start, end: piece.end, dps: [] }
      e.dps.push(dp)
      byPiece.set(key, e)
    }
  for (const { start, end, dps } of [...byPiece.values()].sort((a, b) => a.start - b.start)) {
    const got = await src.readRaw({ ...range, dataPointIDs: dps, start, end })
    for (const dp of dps) {
      const raw = plans.get(dp)!.raw
      const s = got.get(dp)
      if (s)
        for (let i = 0; i < s.time.length; i++) {
          raw.time.push(s.time[i]!)
          raw.value.push(s.value[i]!)
        }
    }
  }
  return plans
}

/** Reads of one tier per plan at most (more spans are joined across their smallest gaps). */
const MAX_TIER_READS = 8

/**
 * The spans [from, to) a tier's pieces cover, time ascending: touching and overlapping pieces joined, then the
 * closest spans joined until at most MAX_TIER_READS remain. A range's two edges need minute windows, not every
 * minute window between them (a month of a hundred devices is 72,000 minute blocks).
 */
export function tierSpans(pieces: readonly Piece[]): Array<{ from: number; to: number }> {
  const sorted = [...pieces].sort((a, b) => a.start - b.start)
  const spans: Array<{ from: number; to: number }> = []
  for (const p of sorted) {
    const last = spans[spans.length - 1]
    if (last && p.start <= last.to) last.to = Math.max(last.to, p.end)
    else spans.push({ from: p.start, to: p.end })
  }
  while (spans.length > MAX_TIER_READS) {
    let k = 0
    for (let i = 1; i + 1 < spans.length; i++)
      if (spans[i + 1]!.from - spans[i]!.to < spans[k + 1]!.from - spans[k]!.to) k = i
    spans[k]!.to = spans[k + 1]!.to
    spans.splice(k + 1, 1)
  }
  return spans
}

/**
 * The tier windows of the plans: per tier, one read for all planned points per span its pieces cover (tierSpans),
 * appended to each plan's list in time order (tierSpans answers them ascending).
 */
async function readTiers(src: RollupSource, range: SeriesRange, plans: Map<string, PointPlan>) {
  const byTier = new Map<Tier, Piece[]>()
  for (const plan of plans.values())
    for (const p of plan.pieces) {
      if (p.res === 'raw') continue
      const list = byTier.get(p.res)
      if (list) list.push(p)
      else byTier.set(p.res, [p])
    }
  // the reads run together (InfluxDB answers them side by side), their windows are taken in time order
  const reads = [...byTier].flatMap(([tier, pieces]) =>
    tierSpans(pieces).map(async ({ from, to }) => ({
      tier,
      got: await src.tierWindows(range, tier, from, to),
    })),
  )
  for (const { tier, got } of await Promise.all(reads))
    for (const [dp, list] of got) {
      const p = plans.get(dp)
      const have = p?.tiers.get(tier)
      if (have) for (const w of list) have.push(w)
      else p?.tiers.set(tier, list)
    }
}

/** An empty answer and the plans of the range's points over the answer windows `bounds` (none for an empty range). */
async function planned(src: RollupSource, range: SeriesRange, bounds: readonly number[]) {
  const out = new Map<string, Series>()
  const plans =
    range.dataPointIDs.length === 0 || range.start >= range.end
      ? new Map<string, PointPlan>()
      : await plan(src, range, clippedEdges(bounds, range.start, range.end))
  return { out, plans }
}

/**
 * Per-window aggregates of the range's data points over `bounds` (store/windows.ts semantics) from rollups and
 * raw edges. Points the rollups cannot plan are named in `unplanned` (and absent from `out`).
 */
export async function aggregateFromRollups(
  src: RollupSource,
  range: SeriesRange,
  fn: AggregateFn,
  bounds: number[],
): Promise<RollupAnswer> {
  const { out, plans } = await planned(src, range, bounds)
  for (const [dp, p] of plans) {
    const agg = new WindowAggregator(bounds, fn)
    const resolution = walkPlan(
      p,
      (time, value, from, to) => agg.add(time, value, from, to),
      (w) => agg.addStats(w.start, w.min, w.max, w.sum, w.count),
    )
    out.set(dp, served(agg.result(), resolution))
  }
  return { out, unplanned: range.dataPointIDs.filter((dp) => !plans.has(dp)) }
}

/**
 * The per-window numbers of the range's keys over `bounds` (store/windows.ts semantics) from rollups and raw edges:
 * each part of a window (a tier window, or a window's raw values folded) goes to `sink` with the window's index,
 * in time order per key; parts holding no numbers are skipped. Keys the rollups cannot plan are named in
 * `unplanned` (nothing is handed for them); `resolution` is the coarsest tier read for any key.
 */
export async function foldFromRollups(
  src: RollupSource,
  range: SeriesRange,
  bounds: number[],
  sink: (key: string, w: number, s: WindowStat) => void,
): Promise<{ resolution: Resolution; unplanned: string[] }> {
  const { plans } = await planned(src, range, bounds)
  let resolution: Resolution = 'raw'
  for (const [key, p] of plans) {
    const r = walkPlan(
      p,
      (time, value, from, to) => foldRaw(bounds, time, value, from, to, (w, s) => sink(key, w, s)),
      (w) => {
        if (w.count > 0) sink(key, windowIndex(bounds, w.start), w)
      },
    )
    resolution = coarser(resolution, r)
  }
  return { resolution, unplanned: range.dataPointIDs.filter((k) => !plans.has(k)) }
}

/**
 * Time-ascending raw values [from, to) folded per window of `bounds` (values outside them skipped): one summary per
 * window holding numbers, handed to `sink` with the window's index, in time order.
 */
export function foldRaw(
  bounds: readonly number[],
  time: ArrayLike<number>,
  value: ArrayLike<Series['value'][number]>,
  from: number,
  to: number,
  sink: (w: number, s: WindowStat) => void,
) {
  const end = Math.min(to, lowerBound(time, bounds[bounds.length - 1]!, from))
  for (let i = lowerBound(time, bounds[0]!, from); i < end;) {
    const b = windowIndex(bounds, time[i]!)
    const j = Math.min(end, lowerBound(time, bounds[b + 1]!, i))
    const s = emptyStat(bounds[b]!)
    foldValues(s, time, value, i, j)
    if (s.count > 0) sink(b, s)
    i = j
  }
}

/**
 * The extremes of the aligned downsample buckets `bounds` (store/rollups.ts alignedBuckets) for the range's data
 * points, from rollups and raw edges: each bucket keeps its lowest and highest number with their times; a bucket
 * holding values that are not numbers is read raw (they keep their first and last). Unplanned points are named.
 */
export async function downsampleFromRollups(
  src: RollupSource,
  range: SeriesRange,
  bounds: number[],
): Promise<RollupAnswer> {
  const { out, plans } = await planned(src, range, bounds)
  for (const [dp, p] of plans) {
    const stats = bounds.slice(0, -1).map((b) => emptyStat(b))
    const resolution = walkPlan(
      p,
      (time, value, from, to) => {
        for (let i = from; i < to;) {
          const b = windowIndex(bounds, time[i]!)
          const j = Math.min(to, lowerBound(time, bounds[b + 1]!, i))
          foldValues(stats[b]!, time, value, i, j)
          i = j
        }
      },
      (w) => foldStat(stats[windowIndex(bounds, w.start)]!, w),
    )
    const time: number[] = []
    const value: Series['value'] = []
    for (let b = 0; b < stats.length; b++) {
      const kept =
        stats[b]!.other > 0 ? await mixedBucket(src, range, dp, bounds, b) : extremesOf([stats[b]!])
      for (let k = 0; k < kept.time.length; k++) {
        time.push(kept.time[k]!)
        value.push(kept.value[k]!)
      }
    }
    out.set(dp, served({ time, value }, resolution))
  }
  return { out, unplanned: range.dataPointIDs.filter((dp) => !plans.has(dp)) }
}

/** A bucket holding values that are not numbers, from its raw values (store/downsample.ts keeps two of them). */
async function mixedBucket(
  src: RollupSource,
  range: SeriesRange,
  dp: string,
  bounds: readonly number[],
  b: number,
): Promise<Series> {
  const start = Math.max(range.start, bounds[b]!)
  const end = Math.min(range.end, bounds[b + 1]!)
  const d = new Downsampler(start, end, 2)
  const s = (await src.readRaw({ ...range, dataPointIDs: [dp], start, end })).get(dp)!
  d.add(s.time, s.value)
  return d.result()
}
