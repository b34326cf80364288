/**
 * The embedded telemetry store: an LSM in miniature on its own libSQL file.
 *
 * - write(): the whole call (coalesced with concurrent calls) becomes ONE row of `wal` (binary, see
 *   codec.ts), committed in the same transaction as any new `series` rows; then the values go into the
 *   memtable (time-sorted arrays per series). The promise resolves after the commit: kill -9 loses nothing.
 * - A flusher (every `flushIntervalMs`, when the memtable holds more than `flushPoints` values, and on close)
 *   sets the memtable aside and writes it as `chunks` (one row per series and hour bucket, seq = flush number),
 *   `flushStep` series a lock hold with writes in between; the last hold deletes the WAL rows it held.
 *   Compaction (compact.ts) later merges an hour's chunks into one. The pages flushes, compaction and
 *   retention free go back to the file system once they are a quarter of the file (reclaim(), vacuum.ts).
 * - Start-up replays the WAL into the memtable. A crash between any two steps leaves every acknowledged value
 *   in the WAL or in chunks (or both: a replayed value flushed again under a higher seq is equal to itself), so
 *   it reads back after restart.
 * - Reads (reads.ts) take the memtable's values first, then the chunks in one query, and merge them:
 *   time ascending, the later write winning at equal times (memtable over chunks, higher seq over lower).
 *
 * Why chunks: reading 86,400 rows through @libsql/client costs ~540 ms; 24 hour chunks of Float64
 * bytes decode in a few ms. One process owns the file: two stores on one file would allocate the same series ids.
 * Every mutation (commit, flush, compaction step, delete) runs under one FIFO lock, so they never interleave.
 */
import { setImmediate as yieldTurn, setTimeout as delay } from 'node:timers/promises'
import { errorLog } from '../../src/kernel/log.ts'
import type {
  AggregateFn,
  GroupRange,
  GroupSeries,
  LastValue,
  RetentionRule,
  Series,
  SeriesRange,
  SeriesSlice,
  TelemetryPoint,
  TelemetryStore,
  TelemetryValue,
  WindowSpec,
} from '../telemetry.ts'
import { decodeWal, encodeChunk, encodeWal } from './codec.ts'
import type { PointColumns } from './worker/points-wire.ts'
import { invalidPoint, storableValue } from './points.ts'
import {
  CompactionQueue,
  compactBuckets,
  isPast,
  sliceByDevice,
  type Candidate,
} from './compact.ts'
import {
  BUCKET_MS,
  BUSY_TIMEOUT_MS,
  bucketOf,
  connectTelemetry,
  deleteChunksBefore,
  deleteSeries,
  insertChunks,
  insertSeries,
  loadState,
  moveSeries,
  openTelemetryClient,
  type NewChunk,
} from './file.ts'
import { lowerBound, Memtable } from './memtable.ts'
import { newestInChunks } from './chunk-reads.ts'
import { SeriesIndex, type SeriesChanges } from './series.ts'
import { TelemetryReads } from './reads.ts'
import { deleteRollupsBefore, followZone } from './rollups.ts'
import { Unavailable } from '../errors.ts'
import { checkpointWal, type Client } from '../libsql/db.ts'
import { wedgesConnection } from '../libsql/sql-errors.ts'
import {
  convertAtOpen,
  fileSpace,
  pagesToReclaim,
  vacuumStep,
  type Reclaimed,
} from '../libsql/vacuum.ts'

export interface LibsqlTelemetryOptions {
  /** `file:/path/telemetry.db`. */
  url: string
  /** Flush the memtable to chunks (and compact due buckets) this often, ms; 0 = only by size and on close. */
  flushIntervalMs?: number
  /** Flush as soon as the memtable holds more values than this. */
  flushPoints?: number
  /**
   * Series a flush writes per lock hold: writes go in between (10,000 series in one hold kept them waiting ~300 ms
   * on a 2-core machine).
   */
  flushStep?: number
  /** Compact a bucket that is not past yet once it holds this many chunks. */
  maxChunksPerBucket?: number
  /** An hour bucket counts as past (merged into one chunk) this long after its end, ms. */
  compactGraceMs?: number
  /** Clock of compaction decisions. */
  now?: () => number
  /** Errors of the background flusher (the next tick retries). */
  onError?: (e: unknown) => void
  /** How long a write waits for a lock another connection holds, ms (SQLite's busy_timeout). */
  busyTimeoutMs?: number
  /** The connection's own checkpoint threshold in pages (default SQLite's 1,000; higher when another thread checkpoints). */
  autocheckpointPages?: number
  /** The zone (TIMEZONE) the hour and day rollups follow; a file rolled up in another zone is re-rolled at open. */
  timezone?: string
  /**
   * The share of the file's time retention may take (0 < share ≤ 1): after each lock hold of its deletes, it
   * waits that hold's time × (1 / share - 1), so writes keep the rest (1: no pause).
   */
  retentionShare?: number
  /**
   * A file of an earlier version (no incremental vacuum) is converted at open by one VACUUM when its pages in use
   * hold at most this many bytes (vacuum.ts convertAtOpen: the opening waits ~1 s per 90 MB); a larger one keeps
   * its free pages for reuse, as before, until `npm run vacuum` converts it.
   */
  vacuumAtOpenMaxBytes?: number
}

export const TELEMETRY_DEFAULTS = {
  flushIntervalMs: 10_000,
  flushPoints: 1_000_000,
  flushStep: 1000,
  maxChunksPerBucket: 64,
  compactGraceMs: 60_000,
  now: Date.now,
  onError: (e: unknown) => errorLog(undefined, 'telemetry')('background flush failed', e),
  busyTimeoutMs: BUSY_TIMEOUT_MS,
  autocheckpointPages: 1000, // SQLite's default
  timezone: 'UTC',
  retentionShare: 0.1,
  vacuumAtOpenMaxBytes: 256 * 2 ** 20,
}

/**
 * Series whose old chunks retention deletes in its first lock hold; later holds double or halve that to take about
 * RETENTION_HOLD_MS each (30 days of hour chunks of one series: ~2.5 ms), up to RETENTION_MAX_STEP series. The
 * holds are paced (retentionShare).
 */
const RETENTION_STEP = 50
const RETENTION_HOLD_MS = 20
const RETENTION_MAX_STEP = 1000
/**
 * Pages reclaim() gives back in its first lock hold, and at most in one (2 MiB of 4 KiB pages): paced as retention's
 * holds, near RETENTION_HOLD_MS each.
 */
const VACUUM_STEP = 64
const VACUUM_MAX_STEP = 512
/** Buckets compacted per lock hold (about: a device's hour stays whole): writes get the lock in between. */
const COMPACT_STEP = 32
/** A group of coalesced write() calls stops growing at this many values. */
const MAX_GROUP_POINTS = 200_000
/** One write() call (its points) or writeColumns() call (its columns) of a group. */
interface Call {
  points?: readonly TelemetryPoint[]
  columns?: PointColumns
  resolve: () => void
  reject: (e: unknown) => void
}

/** A memtable being flushed: its flush's seq, the last WAL row it holds and how many rows that is. */
interface SetAside {
  memtable: Memtable
  seq: number
  walLast: number
  walRows: number
}

interface Group {
  calls: Call[]
  points: number
}

export class LibsqlTelemetryStore implements TelemetryStore {
  readonly kind = 'embedded'
  private readonly series: SeriesIndex
  private memtable = new Memtable()
  private walRows = 0
  private tail: Promise<unknown> = Promise.resolve()
  private group: Group | undefined
  private compaction = new CompactionQueue()
  private timer: NodeJS.Timeout | undefined
  private ticking = false
  private flushQueued = false
  /** Settles when the last flush started has ended (flushes run one after another). */
  private flushes: Promise<unknown> = Promise.resolve()
  private closed = false
  /** The reclaim() under way, if any. */
  private reclaiming: Promise<Reclaimed> | undefined
  private readonly reads: TelemetryReads
  /** The last mutation's error wedged the connection (wedgesConnection): the next one reconnects first. */
  private wedged = false
  /** Aborted by close(): ends a pause of retention (paced) at once. */
  private readonly closing = new AbortController()

  private constructor(
    private client: Client,
    private readonly opts: Required<LibsqlTelemetryOptions>,
    nextSeriesId: number,
    private seq: number,
  ) {
    this.series = new SeriesIndex(nextSeriesId)
    // the getters below read the store's connection as it is then: a wedged one is replaced
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const store = this
    this.reads = new TelemetryReads({
      get client() {
        return store.client
      },
      tz: opts.timezone,
      memtable: () => this.memtable,
      seriesOf: (range) => this.seriesOf(range),
      pointOf: (tenantID, deviceIDs, dataPointID) => {
        const out = new Map<string, number>()
        for (const d of deviceIDs) {
          const id = this.series.of(tenantID, d)?.points.get(dataPointID)
          if (id !== undefined) out.set(d, id)
        }
        return out
      },
      queuedHours: (id, from, to) => this.compaction.bucketsOf(id, from, to),
    })
  }

  /** Opens (or creates) the store file, replays its WAL and starts the flusher. */
  static async open(options: LibsqlTelemetryOptions): Promise<LibsqlTelemetryStore> {
    const opts = { ...TELEMETRY_DEFAULTS, ...options }
    const client = await openTelemetryClient(opts.url, opts.busyTimeoutMs, opts.autocheckpointPages)
    try {
      await convertAtOpen(client, opts.vacuumAtOpenMaxBytes)
      await followZone(client, opts.timezone)
    } catch (e) {
      client.close()
      throw e
    }
    const state = await loadState(client)
    const store = new LibsqlTelemetryStore(client, opts, state.nextSeriesId, state.seq)
    for (const s of state.series) store.series.remember(s)
    const known = new Set(state.series.map((s) => s.id))
    for (const blob of state.wal) {
      const { seriesIds, times, values } = decodeWal(blob)
      for (let i = 0; i < seriesIds.length; i++)
        if (known.has(seriesIds[i]!)) store.memtable.add(seriesIds[i]!, times[i]!, values[i]!)
    }
    store.walRows = state.wal.length
    for (const c of state.crowded) store.compaction.note(c.seriesId, c.bucket, c.chunks)
    if (opts.flushIntervalMs > 0) {
      store.timer = setInterval(() => void store.tick(), opts.flushIntervalMs)
      store.timer.unref()
    }
    return store
  }

  /** Stores the points; resolves once they are committed to the WAL (see the class comment). */
  write(points: readonly TelemetryPoint[]): Promise<void> {
    return refusedWrite(points, this.closed) ?? this.join({ points }, points.length)
  }

  /**
   * write() of points as columns (the telemetry thread's: as they crossed from the proxy), read straight from them:
   * no object a point. The same checks and errors as write().
   */
  writeColumns(columns: PointColumns): Promise<void> {
    const count = columns.times.length
    // closed or empty: as write() of no point
    const refused =
      this.closed || count === 0 ? refusedWrite([], this.closed) : refusedColumns(columns)
    return refused ?? this.join({ columns }, count)
  }

  /** Adds a call to the group that commits next, starting one when there is none or it is full. */
  private join(call: Omit<Call, 'resolve' | 'reject'>, points: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (!this.group || this.group.points >= MAX_GROUP_POINTS) {
        const g: Group = (this.group = { calls: [], points: 0 })
        void this.exclusive(() => {
          if (this.group === g) this.group = undefined
          return this.commit(g)
        }, false)
      }
      this.group.calls.push({ ...call, resolve, reject })
      this.group.points += points
    })
  }

  /** Raw values per data point in [start, end), time ascending, the last write winning at equal times. */
  readRaw(range: SeriesRange): Promise<Map<string, Series>> {
    return this.reads.readRaw(range)
  }

  /** Per-window aggregates (store/windows.ts semantics), from chunk statistics where exact (reads.ts). */
  aggregate(range: SeriesRange, fn: AggregateFn, window: WindowSpec): Promise<Map<string, Series>> {
    return this.reads.aggregate(range, fn, window)
  }

  /** One data point of a group's devices per window, from rollups and raw edges (reads.ts). */
  groupSeries(range: GroupRange, window: WindowSpec): Promise<GroupSeries> {
    return this.reads.groupSeries(range, window)
  }

  /**
   * At most maxPoints values per point, each bucket's extremes kept (store/downsample.ts): from rollups where they
   * answer the buckets, else read a day at a time (reads.ts).
   */
  downsample(range: SeriesRange, maxPoints: number, tz = 'UTC'): Promise<Map<string, Series>> {
    return this.reads.downsample(range, maxPoints, tz)
  }

  /** How many values the range holds (an upper bound until compaction merges rewrites; see reads.ts). */
  count(range: SeriesRange): Promise<number> {
    return this.reads.count(range)
  }

  /** The part of the range holding its values (see reads.ts). */
  extent(range: SeriesRange): Promise<{ start: number; end: number } | undefined> {
    return this.reads.extent(range)
  }

  /** The range's values data point by data point, in slices of at most a day. */
  stream(range: SeriesRange): AsyncIterable<SeriesSlice> {
    return this.reads.stream(range)
  }

  /** [dataPointID, series id] of the range's data points that have a series, each once. */
  private seriesOf(range: SeriesRange): Array<readonly [string, number]> {
    const dev = this.series.of(range.tenantID, range.deviceID)?.points
    return [...new Set(range.dataPointIDs)].flatMap((dp) =>
      dev?.has(dp) ? [[dp, dev.get(dp)!] as const] : [],
    )
  }

  /** The last value of each data point of the device that has one: the memtable's or the newest chunk's. */
  async latest(tenantID: string, deviceID: string): Promise<Map<string, LastValue>> {
    return (await this.latestOf(tenantID, [deviceID])).get(deviceID) ?? new Map()
  }

  /** latest() of many devices: the memtable's values, then one batched read of the newest chunks of them all. */
  async latestOf(
    tenantID: string,
    deviceIDs: readonly string[],
  ): Promise<Map<string, Map<string, LastValue>>> {
    const devices: Array<[string, Map<string, number>]> = []
    for (const deviceID of new Set(deviceIDs)) {
      const dev = this.series.of(tenantID, deviceID)?.points
      if (dev?.size) devices.push([deviceID, new Map(dev)])
    }
    const ids = devices.flatMap(([, dev]) => [...dev.values()])
    // the memtable is read before the chunks: a flush in between moves values to chunks, never loses them
    const mem = new Map(ids.map((id) => [id, this.memtable.last(id)]))
    const chunks = await newestInChunks(this.client, ids)
    const out = new Map<string, Map<string, LastValue>>()
    for (const [deviceID, dev] of devices) {
      const values = new Map<string, LastValue>()
      for (const [dp, id] of dev) {
        const m = mem.get(id)
        const c = chunks.get(id)
        if (m && (!c || m.time >= c.time)) values.set(dp, m)
        else if (c) values.set(dp, c)
      }
      if (values.size) out.set(deviceID, values)
    }
    return out
  }

  /** Deletes the device's series, chunks and memtable values (its WAL rows are skipped on replay). */
  deleteDevice(tenantID: string, deviceID: string): Promise<void> {
    return this.dropSeries(
      () => this.series.idsOfDevice(tenantID, deviceID),
      () => this.series.forgetDevice(tenantID, deviceID),
    )
  }

  /**
   * Deletes the data point's series of every device of the product in the tenant (the product its latest write
   * named), with their chunks and memtable values; their WAL rows are skipped on replay. A later write of the
   * data point starts a new series.
   */
  deleteDataPoint(tenantID: string, productID: string, dataPointID: string): Promise<void> {
    return this.dropSeries(
      () => this.series.idsOfDataPoint(tenantID, productID, dataPointID),
      () => this.series.forgetDataPoint(tenantID, productID, dataPointID),
    )
  }

  /**
   * Under the lock: deletes the series `ids()` names (rows, chunks: their statistics go with them) in one
   * transaction, then `forget()`s them and drops their memtable values. Their ids are never given out again, so
   * WAL rows still holding their values are skipped when replayed, and flushes write only what the memtable holds.
   */
  private dropSeries(ids: () => number[], forget: () => void): Promise<void> {
    if (this.closed) return Promise.reject(new Error('telemetry store is closed'))
    return this.exclusive(async () => {
      const gone = ids()
      if (gone.length === 0) return
      await this.client.batch(deleteSeries(gone), 'write')
      forget()
      for (const id of gone) this.memtable.delete(id)
    })
  }

  /**
   * Retention (TelemetryStore.deleteBefore): deletes the chunks whose last value is older than their series'
   * limit, a few series a lock hold (paced: writes get the lock in between, and most of the time). Values in the
   * memtable stay until they are flushed; a chunk holding a younger value stays whole. Answers the number of
   * values deleted.
   */
  async deleteBefore(
    rules: readonly RetentionRule[],
    otherwise?: number,
    rollupsBefore?: number,
  ): Promise<number> {
    if (this.closed) throw new Error('telemetry store is closed')
    const due = this.series.cutoffs(rules, otherwise)
    const deleted = await this.paced(due, async (part) => {
      const results = await this.client.batch(deleteChunksBefore(part), 'write')
      return results.reduce((n, rs) => n + rs.rows.reduce((m, r) => m + Number(r[0]), 0), 0)
    })
    if (rollupsBefore !== undefined)
      await this.paced(this.series.allIds(), async (part) => {
        await this.client.batch(deleteRollupsBefore(part, rollupsBefore), 'write')
        return 0
      })
    await this.reclaim()
    return deleted
  }

  /**
   * Gives free pages back to the file system once they are a quarter of the file, all but an eighth (vacuum.ts
   * pagesToReclaim), a few hundred pages a lock hold, paced as retention's deletes: writes go in between, and get
   * most of the time. One at a time (a call while one runs starts after it). The flusher starts one after each
   * compaction when none runs, without waiting for it; retention waits for one after its deletes. A file without
   * incremental vacuum (vacuumAtOpenMaxBytes) gives nothing back. Answers what it did.
   */
  reclaim(): Promise<Reclaimed> {
    const run = (this.reclaiming ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => this.reclaimSteps())
    this.reclaiming = run
    const clear = () => {
      if (this.reclaiming === run) this.reclaiming = undefined
    }
    run.then(clear, clear)
    return run
  }

  private async reclaimSteps(): Promise<Reclaimed> {
    const done: Reclaimed = { pages: 0, steps: 0, longestStepMs: 0 }
    if (this.closed) return done
    const due = pagesToReclaim(await fileSpace(this.client))
    let exhausted = false // later writes took the free pages meanwhile
    await this.pacedSteps(
      due,
      VACUUM_STEP,
      VACUUM_MAX_STEP,
      async (_, pages) => {
        const t0 = performance.now()
        const freed = await vacuumStep(this.client, pages)
        done.longestStepMs = Math.max(done.longestStepMs, performance.now() - t0)
        done.steps++
        done.pages += freed
        exhausted = freed < pages
        return freed
      },
      () => exhausted,
    )
    return done
  }

  /** pacedSteps over `items`, from RETENTION_STEP up to RETENTION_MAX_STEP of them a hold. */
  private paced<T>(items: readonly T[], fn: (part: T[]) => Promise<number>): Promise<number> {
    return this.pacedSteps(items.length, RETENTION_STEP, RETENTION_MAX_STEP, (i, n) =>
      fn(items.slice(i, i + n)),
    )
  }

  /**
   * Runs `fn(from, n)` over `total` units in steps (n from `first`, at most `max`), each under the lock and
   * followed by a pause, so that the holds take at most `retentionShare` of the time; a step's size doubles or
   * halves to keep holds near RETENTION_HOLD_MS. Stops when the store closes (which also cuts a pause short) or
   * `stop()` says so. Answers the sum of `fn`'s answers.
   */
  private async pacedSteps(
    total: number,
    first: number,
    max: number,
    fn: (from: number, n: number) => Promise<number>,
    stop = () => false,
  ): Promise<number> {
    const pauseFactor = 1 / Math.min(1, Math.max(0.001, this.opts.retentionShare)) - 1
    let step = first
    let sum = 0
    for (let i = 0; i < total && !this.closed && !stop();) {
      const from = i
      const n = Math.min(step, total - i)
      i += n
      const t0 = performance.now()
      sum += await this.exclusive(() => fn(from, n))
      const ms = performance.now() - t0
      if (ms > 2 * RETENTION_HOLD_MS) step = Math.max(1, step >> 1)
      else if (ms < RETENTION_HOLD_MS / 2) step = Math.min(max, step * 2)
      const pauseMs = ms * pauseFactor
      if (pauseMs >= 1 && !this.closed)
        await delay(pauseMs, undefined, { signal: this.closing.signal }).catch(() => {})
    }
    return sum
  }

  /** Writes the memtable out as chunks now (maintenance and tests; the flusher does it on its own). */
  flush(): Promise<void> {
    const run = this.flushes.then(() => this.flushStepped())
    this.flushes = run.catch(() => undefined)
    return run
  }

  /**
   * Merges the chunks of due buckets (past hours, crowded hours; every bucket with `all`).
   * Returns the number of buckets examined.
   */
  async compact(all = false): Promise<number> {
    const grace = this.opts.compactGraceMs
    const started = this.opts.now()
    const due = this.compaction.due(started, grace, this.opts.maxChunksPerBucket, all)
    if (due.length === 0) return 0
    // a crowded bucket of the current hour is merged without a pack: the hour's pack is written once it is past
    const packable = (c: Candidate) => all || isPast(c, started, grace)
    for (const part of await sliceByDevice(this.client, due, COMPACT_STEP, packable)) {
      // a turn of the event loop first: the driver answers synchronously, so without it the holds follow one
      // another as microtasks and writes that arrived meanwhile (messages of this worker) wait for the last one
      // (10,000 series crowded at once held ingest ~30 s)
      await yieldTurn()
      if (this.closed) break
      await this.exclusive(async () => {
        if (this.closed) return
        const counts = await compactBuckets(this.client, part, this.opts.timezone)
        const now = this.opts.now()
        part.list.forEach((c, k) => this.compaction.settle(c, counts[k]!, isPast(c, now, grace)))
      })
    }
    return due.length
  }

  /** The connection's journal mode and synchronous level (1 = NORMAL), for checks. */
  async pragmas(): Promise<{ journalMode: string; synchronous: number }> {
    const [j, s] = await this.client.batch(['PRAGMA journal_mode', 'PRAGMA synchronous'], 'read')
    return { journalMode: j!.rows[0]![0] as string, synchronous: Number(s!.rows[0]![0]) }
  }

  /**
   * True when the store has nothing left to do: no values only in its WAL, no bucket waiting for compaction, no
   * write group or reclaim under way. Closed then, it loses no work (WorkerTelemetryStore ends its thread so).
   */
  async quiet(): Promise<boolean> {
    await this.flushes
    return (
      !this.closed &&
      !this.ticking &&
      this.group === undefined &&
      this.reclaiming === undefined &&
      this.memtable.points === 0 &&
      this.walRows === 0 &&
      this.compaction.size === 0
    )
  }

  /** One trivial read of the file. */
  async ping(): Promise<void> {
    if (this.closed) throw new Unavailable('telemetry store is closed')
    await this.client.execute('SELECT 1')
  }

  /** Flushes everything and closes the file. Writes after close() are refused. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.closing.abort()
    clearInterval(this.timer)
    try {
      await this.flushes
      await this.reclaiming?.catch(() => undefined) // its next step sees `closed`
      await this.exclusive(() => this.flushLocked())
      await checkpointWal(this.client) // the file alone holds everything after a clean stop
    } finally {
      this.client.close()
    }
  }

  /**
   * Runs `fn` after every job queued before it; a non-write job ends the current write group (keeps order).
   * A job whose error wedged the connection (another process held the write lock past busy_timeout) gets it
   * replaced before the next job, so the store recovers once the lock is gone.
   */
  private exclusive<T>(fn: () => Promise<T>, barrier = true): Promise<T> {
    if (barrier) this.group = undefined
    const guarded = async () => {
      if (this.wedged) await this.reconnect()
      try {
        return await fn()
      } catch (e) {
        if (wedgesConnection(e)) this.wedged = true
        throw e
      }
    }
    const run = this.tail.then(guarded, guarded)
    this.tail = run.catch(() => undefined)
    return run
  }

  /**
   * Commits one group of write() calls as one WAL row (+ new series, + the product of devices now written under
   * another one), then applies it to the memtable.
   */
  private async commit(g: Group) {
    const changes: SeriesChanges = { fresh: [], moved: new Map() }
    const sids = new Uint32Array(g.points)
    const times = new Float64Array(g.points)
    const values: TelemetryValue[] = new Array<TelemetryValue>(g.points)
    let i = 0
    for (const call of g.calls) {
      if (call.columns) {
        i = this.resolveColumns(call.columns, changes, { sids, times, values }, i)
        continue
      }
      for (const p of call.points!) {
        sids[i] = this.series.resolve(p, changes)
        times[i] = Math.round(p.time)
        values[i++] = p.value
      }
    }
    try {
      await this.client.batch(
        [
          ...insertSeries(changes.fresh),
          ...[...changes.moved.keys()].map((d) => moveSeries(d.tenantID, d.deviceID, d.productID!)),
          { sql: 'INSERT INTO wal (data) VALUES (?)', args: [encodeWal(sids, times, values)] },
        ],
        'write',
      )
    } catch (e) {
      if (wedgesConnection(e)) this.wedged = true
      this.series.undo(changes)
      for (const call of g.calls) call.reject(e)
      return
    }
    this.walRows++
    for (let k = 0; k < g.points; k++) this.memtable.add(sids[k]!, times[k]!, values[k]!)
    for (const call of g.calls) call.resolve()
    if (this.memtable.points > this.opts.flushPoints && !this.flushQueued) {
      this.flushQueued = true
      this.flush().catch(this.opts.onError)
    }
  }

  /** commit()'s loop over a call's columns, from `at` in the group's arrays; answers where the next call starts. */
  private resolveColumns(
    c: PointColumns,
    changes: SeriesChanges,
    out: { sids: Uint32Array; times: Float64Array; values: TelemetryValue[] },
    at: number,
  ): number {
    const numeric = c.values.length === 0
    let j = 0
    for (let r = 0; r < c.runs.length; r += 4) {
      const tenantID = c.strings[c.runs[r]!]!
      const productID = c.strings[c.runs[r + 1]!]!
      const deviceID = c.strings[c.runs[r + 2]!]!
      for (const end = j + c.runs[r + 3]!; j < end; j++, at++) {
        const dataPointID = c.strings[c.dataPoints[j]!]!
        out.sids[at] = this.series.resolveIds(tenantID, productID, deviceID, dataPointID, changes)
        out.times[at] = Math.round(c.times[j]!)
        out.values[at] = numeric ? c.numbers[j]! : c.values[j]!
      }
    }
    return at
  }

  /** A new connection in place of a wedged one (a failure keeps the old one wedged: the next job tries again). */
  private async reconnect() {
    const fresh = await connectTelemetry(
      this.opts.url,
      this.opts.busyTimeoutMs,
      this.opts.autocheckpointPages,
    )
    this.client.close()
    this.client = fresh
    this.wedged = false
  }

  /**
   * Memtable → chunks (one per series and hour bucket) in steps, writes going on in between. Under the lock the
   * memtable is set aside (`under` a fresh one: reads see both) with the last WAL row it holds; then `flushStep`
   * series a lock hold become chunks (seq = this flush's number, recorded in each step); the last step
   * also deletes the WAL rows up to the one noted and drops the memtable set aside. A crash in between replays
   * those rows: their values, in chunks already or not, are flushed again under a higher seq, equal to themselves.
   */
  private async flushStepped() {
    const aside = await this.exclusive(() => this.setAside())
    if (!aside) return
    const ids = [...aside.memtable.series.keys()]
    const step = Math.max(1, this.opts.flushStep)
    try {
      for (let i = 0; ; i += step) {
        const last = i + step >= ids.length
        // a turn first, as compaction's steps: writes that arrived meanwhile go before the next hold
        if (i > 0) await yieldTurn()
        await this.exclusive(() => this.writeAside(aside, ids.slice(i, i + step), last))
        if (last) break
      }
    } catch (e) {
      this.walRows += aside.walRows // the next flush takes the values set aside with its own (setAside)
      throw e
    }
  }

  /** The memtable, WAL emptied, in one transaction (close()). Holds the lock. */
  private async flushLocked() {
    const aside = await this.setAside()
    if (aside) await this.writeAside(aside, [...aside.memtable.series.keys()], true)
  }

  /**
   * Under the lock: moves the memtable `under` a fresh one for a flush, noting the WAL rows it holds and taking
   * the next seq. A memtable a failed flush left set aside takes the newer values and goes again.
   */
  private async setAside(): Promise<SetAside | undefined> {
    this.flushQueued = false
    let memtable = this.memtable
    if (memtable.under) {
      memtable.under.absorb(memtable)
      memtable = memtable.under
      memtable.under = undefined
    }
    if (memtable.points === 0 && this.walRows === 0) return undefined
    const rs = await this.client.execute('SELECT coalesce(max(id), 0) FROM wal')
    const aside = {
      memtable,
      seq: ++this.seq,
      walLast: Number(rs.rows[0]![0]),
      walRows: this.walRows,
    }
    this.memtable = new Memtable()
    this.memtable.under = memtable
    this.walRows = 0
    return aside
  }

  /** Under the lock: the chunks of `ids` set aside (a series deleted meanwhile has none); `last` ends the flush. */
  private async writeAside(aside: SetAside, ids: readonly number[], last: boolean) {
    const { memtable, seq } = aside
    const chunks: NewChunk[] = []
    for (const seriesId of ids) {
      const buf = memtable.get(seriesId)
      if (!buf) continue
      const { time, value } = buf.normalize()
      for (let i = 0; i < time.length;) {
        const j = lowerBound(time, bucketOf(time[i]!) + BUCKET_MS, i)
        chunks.push({ seriesId, chunk: encodeChunk(time, value, i, j - i), seq })
        i = j
      }
    }
    await this.client.batch(
      [
        ...insertChunks(chunks),
        { sql: "UPDATE meta SET value = ? WHERE key = 'seq'", args: [seq] },
        ...(last ? [{ sql: 'DELETE FROM wal WHERE id <= ?', args: [aside.walLast] }] : []),
      ],
      'write',
    )
    if (last && this.memtable.under === memtable) this.memtable.under = undefined
    for (const { seriesId, chunk } of chunks) this.compaction.note(seriesId, bucketOf(chunk.tStart))
  }

  /** The background flusher: flush, compact what is due, give free pages back; never two at a time. */
  private async tick() {
    if (this.ticking || this.closed) return
    this.ticking = true
    try {
      await this.flush()
      await this.compact()
      // not waited for: flushes go on while a large reclaim is paced
      if (!this.reclaiming)
        this.reclaim().catch((e: unknown) => {
          if (!this.closed) this.opts.onError(e)
        })
    } catch (e) {
      if (!this.closed) this.opts.onError(e)
    } finally {
      this.ticking = false
    }
  }
}

/**
 * What write() answers at once without storing anything: a rejection when the store is closed or a point is
 * invalid (naming its index), a resolution for no points; undefined when the points are to be stored.
 */
export function refusedWrite(
  points: readonly TelemetryPoint[],
  closed: boolean,
  bad = closed ? -1 : points.findIndex(invalidPoint),
): Promise<void> | undefined {
  if (closed) return Promise.reject(new Error('telemetry store is closed'))
  if (bad >= 0) return invalidAt(bad)
  if (points.length === 0) return Promise.resolve()
  return undefined
}

/** The refusal of a write whose point `i` the store cannot keep. */
const invalidAt = (i: number): Promise<never> =>
  Promise.reject(new TypeError(`invalid telemetry point at index ${i}`))

/**
 * writeColumns()'s checks: the columns of points write() would keep (see invalidPoint), whole (every run, index
 * and value where it should be); else the TypeError write() gives, naming the first point that fails.
 */
function refusedColumns(c: PointColumns): Promise<void> | undefined {
  const n = c.times.length
  const numeric = c.values.length === 0
  const bad = (i: number) => invalidAt(Math.min(i, n - 1))
  const text = (k: number | undefined) => typeof c.strings[k!] === 'string'
  if (c.dataPoints.length !== n || (numeric ? c.numbers.length !== n : c.values.length !== n))
    return bad(0)
  let i = 0
  for (let r = 0; r < c.runs.length; r += 4) {
    if (!text(c.runs[r]) || !text(c.runs[r + 1]) || !text(c.runs[r + 2])) return bad(i)
    for (const end = i + (c.runs[r + 3] ?? 0); i < end; i++) {
      if (i >= n || !text(c.dataPoints[i]) || !Number.isFinite(c.times[i])) return bad(i)
      if (!storableValue(numeric ? c.numbers[i] : c.values[i])) return bad(i)
    }
  }
  return i === n ? undefined : bad(i)
}
