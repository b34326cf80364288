/**
 * The reads of the embedded telemetry store (store/libsql/telemetry.ts): raw values, aggregates, counts, extents
 * and streams over the memtable and the chunks (telemetry-chunk-reads.ts). Every read takes the memtable's values
 * first, then the chunks in one query, and merges them (time ascending, the later write winning at equal times):
 * a flush committing in between only adds chunks holding values the read already has.
 */
import type { Client } from '@libsql/client'
import type { AggregateFn, Series, SeriesRange, SeriesSlice, WindowSpec } from '../telemetry.ts'
import { WindowAggregator, windowBounds, windowIndex } from '../windows.ts'
import { BUCKET_MS, bucketOf } from './telemetry-db.ts'
import { clip, lowerBound, mergeRuns, type Memtable, type Run } from './telemetry-memtable.ts'
import {
  chunkExtent,
  countChunks,
  readChunks,
  readChunksForAggregate,
} from './telemetry-chunk-reads.ts'
import { daySlices, narrowed, streamByDay } from '../slices.ts'
import {
  alignedBuckets,
  clippedEdges,
  coarser,
  DAY_MS,
  emptyStat,
  extremesOf,
  foldStat,
  foldValues,
  piecesOf,
  TierGrid,
  type Piece,
  type Resolution,
  type Tier,
  type WindowStat,
} from '../rollups.ts'
import { rolledWithoutRaw, tierQuery, tierWindows } from './telemetry-rollups.ts'
import { Downsampler, downsampleStream } from '../downsample.ts'

/**
 * Lets the event loop run between slices: libSQL reads a local file synchronously, so a long read would otherwise
 * hold every other request (and the query's own QUERY_TIMEOUT_MS timer) until it ends.
 */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** What the reads need of the store: its connection, its current memtable, and the series of a range. */
export interface StoreView {
  readonly client: Client
  /** The zone of the hour and day rollups. */
  readonly tz: string
  memtable(): Memtable
  /** [dataPointID, series id] of the range's data points that have a series, each once. */
  seriesOf(range: SeriesRange): Array<readonly [string, number]>
  /** The hour buckets of a series in [from, to) whose chunks may not be rolled up yet (compaction's queue). */
  queuedHours(seriesId: number, from: number, to: number): number[]
}

/**
 * A series whose plan reads more raw values than this span (or in more pieces) is read the old way, day by day:
 * its hours are not rolled up yet (a file just upgraded) or its windows do not fit the tiers.
 */
const MAX_RAW_SPAN_MS = 2 * DAY_MS
const MAX_RAW_PIECES = 64

/** How a series is read: pieces in time order, the tier windows inside them, the raw values of the raw ones. */
interface SeriesPlan {
  pieces: Piece[]
  tiers: Map<Tier, WindowStat[]>
  raw: Series
}

/** The series with what served it; raw answers carry no `resolution` (absent: raw). */
const served = (s: Series, resolution: Resolution): Series =>
  resolution === 'raw' ? s : { ...s, resolution }

/** Walks a plan's pieces in time order, handing raw values and tier windows; answers the resolution read. */
function walkPlan(
  plan: SeriesPlan,
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

export class TelemetryReads {
  constructor(private readonly view: StoreView) {}

  /** Raw values per data point in [start, end), time ascending, the last write winning at equal times. */
  async readRaw(range: SeriesRange): Promise<Map<string, Series>> {
    const out = new Map<string, Series>()
    for (const dp of range.dataPointIDs) out.set(dp, { time: [], value: [] })
    const wanted = this.view.seriesOf(range)
    if (wanted.length === 0 || range.start >= range.end) return out
    // the memtable first: a flush committing meanwhile only adds duplicates of these values, never hides them
    const mem = this.memtableRuns(
      wanted.map(([, id]) => id),
      range,
    )
    const runs = await readChunks(
      this.view.client,
      wanted.map(([, id]) => id),
      range.start,
      range.end,
    )
    for (const [dp, id] of wanted) {
      const m = mem.get(id)
      out.set(dp, mergeRuns(m ? [...runs.get(id)!, m] : runs.get(id)!))
    }
    return out
  }

  /**
   * Per-window aggregates of each data point's numbers in the range (store/windows.ts semantics): each window cut
   * into rollup windows and raw edges (store/rollups.ts piecesOf), so a year of day windows reads ~365 day
   * windows. A series whose plan needs too much raw reading is aggregated the old way (aggregateRaw).
   */
  async aggregate(
    range: SeriesRange,
    fn: AggregateFn,
    window: WindowSpec,
  ): Promise<Map<string, Series>> {
    const bounds = windowBounds(range.start, range.end, window.every, window.tz)
    const out = new Map<string, Series>()
    for (const dp of range.dataPointIDs) out.set(dp, { time: [], value: [] })
    const wanted = this.view.seriesOf(range)
    if (wanted.length === 0 || range.start >= range.end) return out
    const plans = await this.plan(range, wanted, clippedEdges(bounds, range.start, range.end))
    const unplanned: string[] = []
    for (const [dp, id] of wanted) {
      const plan = plans.get(id)
      if (!plan) {
        unplanned.push(dp)
        continue
      }
      const agg = new WindowAggregator(bounds, fn)
      const resolution = walkPlan(
        plan,
        (time, value, from, to) => agg.add(time, value, from, to),
        (w) => agg.addStats(w.start, w.min, w.max, w.sum, w.count),
      )
      out.set(dp, served(agg.result(), resolution))
    }
    if (unplanned.length)
      for (const [dp, s] of await this.aggregateRaw(
        { ...range, dataPointIDs: unplanned },
        fn,
        bounds,
      ))
        out.set(dp, s)
    return out
  }

  /**
   * At most maxPoints values per data point (TelemetryStore.downsample): a point with at most maxPoints values is
   * answered whole (unless raw values of some of its hours are gone and only their rollups answer); buckets a minute wide or more are aligned to the tiers and folded from rollups and raw edges
   * (a bucket holding values that are not numbers is read raw, for its first and last); narrower buckets, and
   * series whose plan needs too much raw reading, are downsampled from raw values.
   */
  async downsample(
    range: SeriesRange,
    maxPoints: number,
    tz: string,
  ): Promise<Map<string, Series>> {
    const aligned = alignedBuckets(range.start, range.end, maxPoints, tz)
    if (!aligned) return downsampleStream(this.stream(range), range, maxPoints, tz)
    const out = new Map<string, Series>()
    for (const dp of range.dataPointIDs) out.set(dp, { time: [], value: [] })
    const many: Array<readonly [string, number]> = []
    const rest: string[] = []
    for (const [dp, id] of this.view.seriesOf(range)) {
      // a point with few values is answered whole, unless retention left only rollups of some of its hours
      if (
        (await this.count({ ...range, dataPointIDs: [dp] })) > maxPoints ||
        (await rolledWithoutRaw(this.view.client, id, range.start, range.end))
      )
        many.push([dp, id])
      else rest.push(dp)
    }
    if (rest.length)
      for (const [dp, s] of await this.readRaw({ ...range, dataPointIDs: rest })) out.set(dp, s)
    if (many.length === 0) return out
    const { bounds } = aligned
    const plans = await this.plan(range, many, clippedEdges(bounds, range.start, range.end))
    const unplanned: string[] = []
    for (const [dp, id] of many) {
      const plan = plans.get(id)
      if (!plan) {
        unplanned.push(dp)
        continue
      }
      const stats = bounds.slice(0, -1).map((b) => emptyStat(b))
      const resolution = walkPlan(
        plan,
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
        let kept: Series
        if (stats[b]!.other > 0) {
          // values that are not numbers keep their first and last: read this bucket's raw values
          const part = {
            ...range,
            dataPointIDs: [dp],
            start: Math.max(range.start, bounds[b]!),
            end: Math.min(range.end, bounds[b + 1]!),
          }
          const d = new Downsampler(part.start, part.end, 2)
          const s = (await this.readRaw(part)).get(dp)!
          d.add(s.time, s.value)
          kept = d.result()
        } else kept = extremesOf([stats[b]!])
        for (let k = 0; k < kept.time.length; k++)
          (time.push(kept.time[k]!), value.push(kept.value[k]!))
      }
      out.set(dp, served({ time, value }, resolution))
    }
    if (unplanned.length)
      for (const [dp, s] of await downsampleStream(
        this.stream({ ...range, dataPointIDs: unplanned }),
        { ...range, dataPointIDs: unplanned },
        maxPoints,
        tz,
      ))
        out.set(dp, s)
    return out
  }

  /**
   * The plans of some series over consecutive windows `edges`: pieces (store/rollups.ts piecesOf, the hours whose
   * rollups may be behind their values read raw: queued for compaction or held in the memtable), then one read
   * per tier for every series and one per distinct raw piece. Series needing too much raw reading get no plan.
   */
  private async plan(
    range: SeriesRange,
    wanted: ReadonlyArray<readonly [string, number]>,
    edges: readonly number[],
  ): Promise<Map<number, SeriesPlan>> {
    const ids = wanted.map(([, id]) => id)
    const mem = this.memtableRuns(ids, range)
    const grid = new TierGrid(this.view.tz, range.start, range.end)
    const plans = new Map<number, SeriesPlan>()
    for (const id of ids) {
      const dirty = new Set(this.view.queuedHours(id, range.start, range.end))
      const m = mem.get(id)
      if (m) for (let i = 0; i < m.time.length; i++) dirty.add(bucketOf(m.time[i]!))
      const pieces = piecesOf(
        grid,
        edges,
        [...dirty].sort((a, b) => a - b),
      )
      const raw = pieces.filter((p) => p.res === 'raw')
      const span = raw.reduce((n, p) => n + p.end - p.start, 0)
      if (span <= MAX_RAW_SPAN_MS && raw.length <= MAX_RAW_PIECES)
        plans.set(id, { pieces, tiers: new Map(), raw: { time: [], value: [] } })
    }
    if (plans.size === 0) return plans
    const planned = [...plans.keys()]
    // tier windows: one query per tier for all planned series, over the union of their pieces of that tier
    const spans = new Map<Tier, { from: number; to: number }>()
    for (const plan of plans.values())
      for (const p of plan.pieces) {
        if (p.res === 'raw') continue
        const s = spans.get(p.res)
        spans.set(
          p.res,
          s
            ? { from: Math.min(s.from, p.start), to: Math.max(s.to, p.end) }
            : { from: p.start, to: p.end },
        )
      }
    const tiers = [...spans.keys()]
    const results = tiers.length
      ? await this.view.client.batch(
          tiers.map((t) => tierQuery(planned, t, spans.get(t)!.from, spans.get(t)!.to)),
          'read',
        )
      : []
    tiers.forEach((t, k) => {
      const { from, to } = spans.get(t)!
      for (const [id, list] of tierWindows(results[k]!.rows, from, to))
        plans.get(id)!.tiers.set(t, list)
    })
    // raw pieces: one chunk read per distinct piece, merged with the memtable's values
    const byPiece = new Map<string, { start: number; end: number; ids: number[] }>()
    for (const [id, plan] of plans)
      for (const p of plan.pieces) {
        if (p.res !== 'raw') continue
        const key = `${p.start}:${p.end}`
        const e = byPiece.get(key) ?? { start: p.start, end: p.end, ids: [] }
        e.ids.push(id)
        byPiece.set(key, e)
      }
    const parts = new Map<number, Series[]>()
    for (const { start, end, ids: some } of [...byPiece.values()].sort(
      (a, b) => a.start - b.start,
    )) {
      const runs = await readChunks(this.view.client, some, start, end)
      for (const id of some) {
        const m = mem.get(id)
        const merged = mergeRuns(m ? [...runs.get(id)!, clip(m, start, end)] : runs.get(id)!)
        if (!parts.has(id)) parts.set(id, [])
        parts.get(id)!.push(merged)
      }
    }
    for (const [id, list] of parts) {
      const raw = plans.get(id)!.raw
      for (const s of list)
        for (let i = 0; i < s.time.length; i++)
          (raw.time.push(s.time[i]!), raw.value.push(s.value[i]!))
    }
    return plans
  }

  /**
   * Per-window aggregates the old way, a day at a time into running aggregators (a month of ten points at 1 Hz
   * never sits in memory). When every window is made of whole hours, a past hour stored as one chunk counts by
   * the min/max/sum/count kept beside it, without decoding its values; hours with several chunks, rewrites still
   * in the memtable or cut by the range are decoded.
   */
  private async aggregateRaw(
    range: SeriesRange,
    fn: AggregateFn,
    bounds: number[],
  ): Promise<Map<string, Series>> {
    const aggs = new Map(range.dataPointIDs.map((dp) => [dp, new WindowAggregator(bounds, fn)]))
    const hourly = bounds.every(
      (b, i) => b % BUCKET_MS === 0 && (i === 0 || b - bounds[i - 1]! >= BUCKET_MS),
    )
    const part = await narrowed(this, range)
    for (const slice of part ? daySlices(part) : []) {
      if (slice.start > part!.start) await nextTurn()
      if (hourly) await this.aggregateSlice(slice, bounds, aggs)
      else for (const [dp, s] of await this.readRaw(slice)) aggs.get(dp)!.add(s.time, s.value)
    }
    return new Map([...aggs].map(([dp, a]) => [dp, a.result()]))
  }

  /** One slice of aggregate(), using chunk statistics where they are exact (see aggregate). */
  private async aggregateSlice(
    range: SeriesRange,
    bounds: readonly number[],
    aggs: Map<string, WindowAggregator>,
  ) {
    const wanted = this.view.seriesOf(range)
    if (wanted.length === 0) return
    // the memtable first, as readRaw: a flush committing meanwhile only adds chunks of values we already hold
    const mem = this.memtableRuns(
      wanted.map(([, id]) => id),
      range,
    )
    const chunks = await readChunksForAggregate(
      this.view.client,
      wanted.map(([, id]) => id),
      range.start,
      range.end,
    )
    for (const [dp, id] of wanted) {
      const agg = aggs.get(dp)!
      const mine = chunks.filter((c) => c.seriesId === id)
      const m = mem.get(id)
      const summaries = mine.filter((c) => c.stats).sort((x, y) => x.bucket - y.bucket)
      const exact = summaries.every(
        (c) =>
          windowIndex(bounds, c.bucket) === windowIndex(bounds, c.bucket + BUCKET_MS - 1) &&
          !(m && holdsAny(m.time, c.bucket, c.bucket + BUCKET_MS)),
      )
      if (!exact) {
        const s = (await this.readRaw({ ...range, dataPointIDs: [dp] })).get(dp)!
        agg.add(s.time, s.value)
        continue
      }
      const merged = mergeRuns([...mine.flatMap((c) => (c.run ? [c.run] : [])), ...(m ? [m] : [])])
      let i = 0
      for (const c of summaries) {
        const j = lowerBound(merged.time, c.bucket, i)
        agg.add(merged.time, merged.value, i, j)
        agg.addStats(c.bucket, c.stats!.min, c.stats!.max, c.stats!.sum, c.stats!.count)
        i = j
      }
      agg.add(merged.time, merged.value, i)
    }
  }

  /**
   * How many values the range holds: chunks wholly inside by their stored counts, the edge chunks by their times,
   * plus the memtable. A value rewritten at the same time counts twice until compaction merges its chunks, so
   * this is an upper bound (good for refusing too large reads).
   */
  async count(range: SeriesRange): Promise<number> {
    const ids = this.view.seriesOf(range).map(([, id]) => id)
    if (ids.length === 0 || range.start >= range.end) return 0
    let n = 0
    for (const run of this.memtableRuns(ids, range).values()) n += run?.time.length ?? 0
    return n + (await countChunks(this.view.client, ids, range.start, range.end))
  }

  /**
   * The hours of the range that hold values of its data points: from the hour of the earliest to just after the
   * latest value in the memtable or in chunks (a chunk counts by its first and last time).
   */
  async extent(range: SeriesRange): Promise<{ start: number; end: number } | undefined> {
    const ids = this.view.seriesOf(range).map(([, id]) => id)
    if (ids.length === 0 || range.start >= range.end) return undefined
    let first = Infinity
    let last = -Infinity
    for (const run of this.memtableRuns(ids, range).values()) {
      if (!run?.time.length) continue
      first = Math.min(first, run.time[0]!)
      last = Math.max(last, run.time[run.time.length - 1]!)
    }
    const chunks = await chunkExtent(this.view.client, ids, range.start, range.end)
    if (chunks) ((first = Math.min(first, chunks.first)), (last = Math.max(last, chunks.last)))
    if (first > last) return undefined
    return { start: Math.max(range.start, bucketOf(first)), end: Math.min(range.end, last + 1) }
  }

  /** A copy of each series' memtable values in the range (undefined: none held). Taken before any chunk read. */
  private memtableRuns(ids: readonly number[], range: SeriesRange): Map<number, Run | undefined> {
    const memtable = this.view.memtable()
    return new Map(ids.map((id) => [id, memtable.get(id)?.slice(range.start, range.end)]))
  }

  /** The range's values data point by data point, in slices of at most a day (a month at 1 Hz never in memory). */
  stream(range: SeriesRange): AsyncIterable<SeriesSlice> {
    return streamByDay(range, this, nextTurn)
  }
}

/** True when the ascending `times` hold a value in [from, to). */
function holdsAny(times: readonly number[], from: number, to: number): boolean {
  const i = lowerBound(times, from)
  return i < times.length && times[i]! < to
}
