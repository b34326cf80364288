/**
 * The reads of the embedded telemetry store (store/tsdb/store.ts): raw values, aggregates, counts, extents
 * and streams over the memtable and the chunks (chunk-reads.ts). Every read takes the memtable's values
 * first, then the chunks in one query, and merges them (time ascending, the later write winning at equal times):
 * a flush committing in between only adds chunks holding values the read already has.
 */
import type { Client } from '../libsql/db.ts'
import type {
  AggregateFn,
  GroupRange,
  GroupSeries,
  Series,
  SeriesRange,
  SeriesSlice,
  Tier,
  WindowSpec,
} from '../telemetry.ts'
import { WindowAggregator, windowBounds, windowIndex } from '../windows.ts'
import { BUCKET_MS, bucketOf } from './file.ts'
import { lowerBound, mergeRuns, type Memtable, type Run } from './memtable.ts'
import { chunkExtent, countChunks, readChunks, readChunksForAggregate } from './chunk-reads.ts'
import { daySlices, narrowed, streamByDay } from '../slices.ts'
import { alignedBuckets, type WindowStat } from '../rollups.ts'
import { aggregateFromRollups, downsampleFromRollups, type RollupSource } from '../rollup-reads.ts'
import { rolledWithoutRaw, tierQuery, tierWindows } from './rollups.ts'
import { downsampleStream } from '../downsample.ts'
import { GroupFold, groupFromRaw, groupFromRollups } from '../group-series.ts'

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
  /** deviceID → the series id of its data point `dataPointID`, for the devices among `deviceIDs` that have one. */
  pointOf(tenantID: string, deviceIDs: readonly string[], dataPointID: string): Map<string, number>
  /** The hour buckets of a series in [from, to) whose chunks may not be rolled up yet (compaction's queue). */
  queuedHours(seriesId: number, from: number, to: number): number[]
}

export class TelemetryReads {
  /** What the rollup reads need of this store. */
  private readonly rollups: RollupSource

  constructor(private readonly view: StoreView) {
    this.rollups = this.rollupSource()
  }

  /** Raw values per data point in [start, end), time ascending, the last write winning at equal times. */
  async readRaw(range: SeriesRange): Promise<Map<string, Series>> {
    const out = new Map<string, Series>()
    for (const dp of range.dataPointIDs) out.set(dp, { time: [], value: [] })
    const wanted = this.view.seriesOf(range)
    if (wanted.length === 0 || range.start >= range.end) return out
    for (const [dp, s] of await this.readKeyed(wanted, range.start, range.end)) out.set(dp, s)
    return out
  }

  /** Raw values of [start, end) of the series of `wanted` ([key, series id]), by key. */
  private async readKeyed(
    wanted: ReadonlyArray<readonly [string, number]>,
    start: number,
    end: number,
  ): Promise<Map<string, Series>> {
    const ids = wanted.map(([, id]) => id)
    // the memtable first: a flush committing meanwhile only adds duplicates of these values, never hides them
    const mem = this.memtableRuns(ids, { start, end })
    const runs = await readChunks(this.view.client, ids, start, end)
    const out = new Map<string, Series>()
    for (const [key, id] of wanted) {
      const m = mem.get(id)
      out.set(key, mergeRuns(m ? [...runs.get(id)!, m] : runs.get(id)!))
    }
    return out
  }

  /**
   * One data point of a group's devices per window (TelemetryStore.groupSeries): from rollups and raw edges a
   * hundred devices at a time (store/group-series.ts); devices whose plan needs too much raw reading are read raw,
   * a day at a time.
   */
  async groupSeries(range: GroupRange, window: WindowSpec): Promise<GroupSeries> {
    const bounds = windowBounds(range.start, range.end, window.every, window.tz)
    const fold = new GroupFold(bounds, range.shown)
    const ids = this.view.pointOf(range.tenantID, range.deviceIDs, range.dataPointID)
    if (ids.size === 0 || range.start >= range.end) return fold.result('raw')
    const stored = { ...range, deviceIDs: [...ids.keys()] }
    const src = this.sourceOf((r) =>
      r.dataPointIDs.flatMap((d) => (ids.has(d) ? [[d, ids.get(d)!] as const] : [])),
    )
    const got = await groupFromRollups(src, stored, bounds, fold, nextTurn)
    if (got.unplanned.length)
      await groupFromRaw(
        (devices, start, end) =>
          this.readKeyed(
            devices.map((d) => [d, ids.get(d)!] as const),
            start,
            end,
          ),
        stored,
        got.unplanned,
        bounds,
        fold,
        nextTurn,
      )
    return fold.result(got.resolution)
  }

  /**
   * Per-window aggregates of each data point's numbers in the range (store/windows.ts semantics): each window cut
   * into rollup windows and raw edges (store/rollup-reads.ts), so a year of day windows reads ~365 day windows. A
   * point whose plan needs too much raw reading is aggregated the old way (aggregateRaw).
   */
  async aggregate(
    range: SeriesRange,
    fn: AggregateFn,
    window: WindowSpec,
  ): Promise<Map<string, Series>> {
    const bounds = windowBounds(range.start, range.end, window.every, window.tz)
    const out = new Map<string, Series>()
    for (const dp of range.dataPointIDs) out.set(dp, { time: [], value: [] })
    const stored = this.view.seriesOf(range).map(([dp]) => dp)
    if (stored.length === 0 || range.start >= range.end) return out
    const got = await aggregateFromRollups(
      this.rollups,
      { ...range, dataPointIDs: stored },
      fn,
      bounds,
    )
    for (const [dp, s] of got.out) out.set(dp, s)
    if (got.unplanned.length)
      for (const [dp, s] of await this.aggregateRaw(
        { ...range, dataPointIDs: got.unplanned },
        fn,
        bounds,
      ))
        out.set(dp, s)
    return out
  }

  /**
   * At most maxPoints values per data point (TelemetryStore.downsample): a point with at most maxPoints values is
   * answered whole (unless raw values of some of its hours are gone and only their rollups answer); buckets a
   * minute wide or more are aligned to the tiers and folded from rollups and raw edges (store/rollup-reads.ts);
   * narrower buckets, and points whose plan needs too much raw reading, are downsampled from raw values.
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
    const many: string[] = []
    const rest: string[] = []
    for (const [dp, id] of this.view.seriesOf(range)) {
      // a point with few values is answered whole, unless retention left only rollups of some of its hours
      if (
        (await this.count({ ...range, dataPointIDs: [dp] })) > maxPoints ||
        (await rolledWithoutRaw(this.view.client, id, range.start, range.end))
      )
        many.push(dp)
      else rest.push(dp)
    }
    if (rest.length)
      for (const [dp, s] of await this.readRaw({ ...range, dataPointIDs: rest })) out.set(dp, s)
    if (many.length === 0) return out
    const part = { ...range, dataPointIDs: many }
    const got = await downsampleFromRollups(this.rollups, part, aligned.bounds)
    for (const [dp, s] of got.out) out.set(dp, s)
    if (got.unplanned.length)
      for (const [dp, s] of await downsampleStream(
        this.stream({ ...range, dataPointIDs: got.unplanned }),
        { ...range, dataPointIDs: got.unplanned },
        maxPoints,
        tz,
      ))
        out.set(dp, s)
    return out
  }

  /** What the rollup reads need of this store (store/rollup-reads.ts): its keys are the range's data points. */
  private rollupSource(): RollupSource {
    return {
      ...this.sourceOf((range) => this.view.seriesOf(range)),
      readRaw: (r) => this.readRaw(r),
    }
  }

  /**
   * A rollup source over the series `wanted` names for a range's keys ([key, series id]): a device's data points
   * (rollupSource), or one data point of a group's devices (groupSeries).
   */
  private sourceOf(wanted: (range: SeriesRange) => Array<readonly [string, number]>): RollupSource {
    return {
      tz: this.view.tz,
      dirtyHours: async (range) => this.dirtyHours(wanted(range), range),
      tierWindows: (range, tier, from, to) => this.tierWindows(wanted(range), tier, from, to),
      readRaw: (range) => this.readKeyed(wanted(range), range.start, range.end),
    }
  }

  /** Per key, the hours compaction has queued (chunks not rolled up yet) and those the memtable holds values of. */
  private dirtyHours(wanted: ReadonlyArray<readonly [string, number]>, range: SeriesRange) {
    const mem = this.memtableRuns(
      wanted.map(([, id]) => id),
      range,
    )
    const out = new Map<string, number[]>()
    for (const [key, id] of wanted) {
      const hours = this.view.queuedHours(id, range.start, range.end)
      const m = mem.get(id)
      if (m)
        for (let i = 0; i < m.time.length; i++) {
          const h = bucketOf(m.time[i]!)
          if (h !== hours[hours.length - 1]) hours.push(h)
        }
      out.set(key, hours)
    }
    return out
  }

  /** Per key, the windows of a tier starting in [from, to) (one query for all the keys' series). */
  private async tierWindows(
    wanted: ReadonlyArray<readonly [string, number]>,
    tier: Tier,
    from: number,
    to: number,
  ): Promise<Map<string, WindowStat[]>> {
    const out = new Map<string, WindowStat[]>()
    if (wanted.length === 0) return out
    const rs = await this.view.client.execute(
      tierQuery(
        wanted.map(([, id]) => id),
        tier,
        from,
        to,
      ),
    )
    const byId = tierWindows(rs.rows, from, to)
    for (const [key, id] of wanted) out.set(key, byId.get(id) ?? [])
    return out
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
    if (chunks) {
      first = Math.min(first, chunks.first)
      last = Math.max(last, chunks.last)
    }
    if (first > last) return undefined
    return { start: Math.max(range.start, bucketOf(first)), end: Math.min(range.end, last + 1) }
  }

  /** A copy of each series' memtable values in the range (undefined: none held). Taken before any chunk read. */
  private memtableRuns(
    ids: readonly number[],
    range: { start: number; end: number },
  ): Map<number, Run | undefined> {
    const memtable = this.view.memtable()
    return new Map(ids.map((id) => [id, memtable.slice(id, range.start, range.end)]))
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
