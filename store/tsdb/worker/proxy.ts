/**
 * The embedded telemetry store on its own thread: the main thread's TelemetryStore is this proxy, the store
 * itself (LibsqlTelemetryStore, its file, memtable, flusher and compaction) lives in thread.ts. Writes
 * cross as columns (points-wire.ts), every other call as its arguments and answer (structured clone). The
 * promises keep the store's: write() resolves after the values' commit, reads after it see them.
 *
 * The thread runs while the store is used: open() starts it (a file that cannot be opened fails the start), and it
 * ends once no call came for `idleMs` and the store says it is quiet (nothing in its WAL or compaction queue: an
 * hour and its grace after the last write at the earliest), so a service at rest holds no isolate for it (~13 MB
 * of RSS). The next call starts it again (~0.2 s: the file opens as at a restart, with nothing to replay). A
 * readiness ping does not start it, nor keep it running.
 */
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
  WindowSpec,
} from '../../telemetry.ts'
import { Unavailable } from '../../errors.ts'
import { refusedWrite, TELEMETRY_DEFAULTS, type LibsqlTelemetryOptions } from '../store.ts'
import { decodeError } from '../../libsql/worker/errors.ts'
import { encodePoints } from './points-wire.ts'
import type { PortClient } from '../../libsql/worker/port-client.ts'
import { startWorker } from '../../libsql/worker/port-db.ts'
import { workerEntry } from '../../libsql/worker/boot.ts'
import { BACKSTOP_PAGES, Checkpointer } from '../../libsql/worker/checkpoints.ts'
import type { Reclaimed } from '../../libsql/vacuum.ts'
import type { TelemetryMethod, TelemetryRequest, TelemetryWorkerData } from './protocol.ts'

export interface WorkerTelemetryOptions extends Omit<LibsqlTelemetryOptions, 'now'> {
  /** Hears of a worker that died: every call fails with Unavailable from then on (readiness turns 503). */
  onFail?: (e: Error) => void
  /** How long the thread runs on without a call before it ends if the store is quiet, ms (default 30 s; 0: never). */
  idleMs?: number
}

/** How often an idle thread's end is considered, ms (at most). */
const IDLE_CHECK_MS = 5_000

/**
 * How long the checkpointer runs on after the last write: past the memtable's flush (every 10 s) and the
 * compaction of the buckets the writes touched (a minute after their last value), which the worker does on its own.
 */
const IDLE_MS = 90_000

export class WorkerTelemetryStore implements TelemetryStore {
  readonly kind = 'embedded'
  private closed = false
  /** The running thread; undefined while it starts, ends or is ended. */
  private port: PortClient<TelemetryRequest> | undefined
  private starting: Promise<PortClient<TelemetryRequest>> | undefined
  private ending: Promise<void> = Promise.resolve()
  /** A thread that died: later calls fail with its error (the process is told through onFail). */
  private failure: Error | undefined
  /** Why the last start failed (the next call tries again); a ping says so meanwhile. */
  private startError: Error | undefined
  private lastUse = Date.now()
  private streams = 0
  private timer: NodeJS.Timeout | undefined

  private constructor(
    private readonly spawn: () => Promise<PortClient<TelemetryRequest>>,
    private readonly checkpointer: Checkpointer,
    private readonly idleMs: number,
  ) {}

  /** Starts the worker, which opens the store file and replays its WAL, and waits until it is ready. */
  static async open(options: WorkerTelemetryOptions): Promise<WorkerTelemetryStore> {
    const { onError = TELEMETRY_DEFAULTS.onError, onFail, idleMs = 30_000, ...rest } = options
    const workerData: TelemetryWorkerData = {
      entry: workerEntry('telemetry-worker'),
      // the checkpointer thread checkpoints the file; the worker's own threshold is only a backstop
      options: { autocheckpointPages: BACKSTOP_PAGES, ...rest },
    }
    const spawn = () =>
      startWorker<TelemetryRequest>('telemetry', workerData, onFail, (n) =>
        onError(decodeError(n.err)),
      )
    const store = new WorkerTelemetryStore(
      spawn,
      new Checkpointer(rest.url, onError, { idleMs: IDLE_MS }),
      idleMs,
    )
    store.port = await spawn()
    store.watch()
    return store
  }

  /** Whether the thread runs now (tests). */
  get running(): boolean {
    return this.port !== undefined
  }

  /** The running thread, or the one started for this call (after the last one ended). */
  private thread(): PortClient<TelemetryRequest> | Promise<PortClient<TelemetryRequest>> {
    this.lastUse = Date.now()
    if (this.port) return this.port
    if (this.failure) return Promise.reject(this.failure)
    if (this.closed) return Promise.reject(new Unavailable('telemetry store is closed'))
    this.starting ??= this.ending
      .then(() => this.spawn())
      .then(
        (port) => {
          this.port = port
          this.startError = undefined
          this.watch()
          return port
        },
        (e: unknown) => {
          this.startError = e as Error
          throw e
        },
      )
      .finally(() => (this.starting = undefined))
    return this.starting
  }

  /** Considers ending the thread every IDLE_CHECK_MS (at most) once `idleMs` passed without a call. */
  private watch() {
    if (this.idleMs <= 0) return
    clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.idle(), Math.min(IDLE_CHECK_MS, this.idleMs))
    this.timer.unref()
  }

  private async idle() {
    const port = this.port
    if (!port || this.closed) return
    if (port.failure) {
      this.failure = port.failure
      return
    }
    const since = this.lastUse
    if (Date.now() - since < this.idleMs || port.inFlight > 0 || this.streams > 0)
      return this.watch()
    const quiet = await port
      .request<boolean>({ t: 'call', method: 'quiet', args: [] })
      .catch(() => false)
    // a call since, or one in flight: it runs on
    if (
      !quiet ||
      this.lastUse !== since ||
      port.inFlight > 0 ||
      this.streams > 0 ||
      this.port !== port
    )
      return this.watch()
    this.port = undefined
    this.ending = port.end({ t: 'close' })
  }

  /** `port.request(...)` on the running thread, or once one has started. */
  private send<T>(body: TelemetryRequest, transfer?: ArrayBuffer[]): Promise<T> {
    const port = this.thread()
    return 'request' in port
      ? port.request<T>(body, transfer)
      : port.then((p) => p.request<T>(body, transfer))
  }

  write(points: readonly TelemetryPoint[]): Promise<void> {
    if (this.closed) return refusedWrite(points, true)!
    // encodePoints checks the points as it reads them: refusedWrite needs no pass of its own
    const encoded = encodePoints(points)
    const refused = refusedWrite(points, false, encoded.invalid)
    if (refused) return refused
    this.checkpointer.wake()
    return this.send({ t: 'write', columns: encoded.columns }, encoded.transfer)
  }

  readRaw(range: SeriesRange): Promise<Map<string, Series>> {
    return this.call('readRaw', range)
  }

  aggregate(range: SeriesRange, fn: AggregateFn, window: WindowSpec): Promise<Map<string, Series>> {
    return this.call('aggregate', range, fn, window)
  }

  groupSeries(range: GroupRange, window: WindowSpec): Promise<GroupSeries> {
    return this.call('groupSeries', range, window)
  }

  downsample(range: SeriesRange, maxPoints: number, tz?: string): Promise<Map<string, Series>> {
    return this.call('downsample', range, maxPoints, tz)
  }

  count(range: SeriesRange): Promise<number> {
    return this.call('count', range)
  }

  async extent(range: SeriesRange): Promise<{ start: number; end: number } | undefined> {
    return (await this.call<{ start: number; end: number } | null>('extent', range)) ?? undefined
  }

  /** The range's slices, fetched from the worker a few at a time as they are consumed. */
  async *stream(range: SeriesRange): AsyncIterable<SeriesSlice> {
    // one thread for the whole stream: it stays while the stream is open
    this.streams++
    let done = false
    try {
      const port = await this.thread()
      const stream = await port.request<number>({ t: 'stream', op: 'open', range })
      try {
        while (!done) {
          this.lastUse = Date.now()
          const next = await port.request<{ slices: SeriesSlice[]; done: boolean }>({
            t: 'stream',
            op: 'next',
            stream,
          })
          done = next.done
          yield* next.slices
        }
      } finally {
        // a consumer that stopped early (an aborted export) frees the worker's reader
        if (!done) await port.request({ t: 'stream', op: 'close', stream }).catch(() => undefined)
      }
    } finally {
      this.streams--
    }
  }

  latest(tenantID: string, deviceID: string): Promise<Map<string, LastValue>> {
    return this.call('latest', tenantID, deviceID)
  }

  latestOf(
    tenantID: string,
    deviceIDs: readonly string[],
  ): Promise<Map<string, Map<string, LastValue>>> {
    return this.call('latestOf', tenantID, deviceIDs)
  }

  deleteDevice(tenantID: string, deviceID: string): Promise<void> {
    return this.mutate('deleteDevice', tenantID, deviceID)
  }

  deleteDataPoint(tenantID: string, productID: string, dataPointID: string): Promise<void> {
    return this.mutate('deleteDataPoint', tenantID, productID, dataPointID)
  }

  deleteBefore(
    rules: readonly RetentionRule[],
    otherwise?: number,
    rollupsBefore?: number,
  ): Promise<number> {
    if (this.closed) return Promise.reject(new Error('telemetry store is closed'))
    return this.call<number>('deleteBefore', rules, otherwise, rollupsBefore).then(this.wroteAny)
  }

  /** Writes the memtable out as chunks now (maintenance and tests). */
  flush(): Promise<void> {
    return this.mutate('flush')
  }

  /** Merges the chunks of due buckets (every bucket with `all`); the number of buckets examined. */
  compact(all = false): Promise<number> {
    return this.call<number>('compact', all).then(this.wroteAny)
  }

  /** Gives free pages back to the file system (see LibsqlTelemetryStore.reclaim); what it did. */
  reclaim(): Promise<Reclaimed> {
    return this.call('reclaim')
  }

  /** The connection's journal mode and synchronous level, for checks. */
  pragmas(): Promise<{ journalMode: string; synchronous: number }> {
    return this.call('pragmas')
  }

  /** A trivial read on the running thread; with none running, what the last one said (it ended quiet). */
  async ping(): Promise<void> {
    if (this.closed) throw new Unavailable('telemetry store is closed')
    if (this.failure) throw this.failure
    if (this.startError) throw this.startError
    const port = this.port
    if (port) await port.request({ t: 'call', method: 'ping', args: [] })
  }

  /** Flushes everything and closes the file in the worker, then ends the thread. Later writes are refused. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    clearTimeout(this.timer)
    await this.checkpointer.close()
    await this.starting?.catch(() => undefined)
    await this.ending
    const port = this.port
    this.port = undefined
    if (!port) return
    try {
      if (!port.failure) await port.request({ t: 'close' })
    } finally {
      await port.terminate()
    }
  }

  /** A count of what a call changed: the checkpointer runs when it is not 0 (nothing deleted: no WAL frame). */
  private readonly wroteAny = (n: number): number => {
    if (n > 0) this.checkpointer.wake()
    return n
  }

  private call<T>(method: TelemetryMethod, ...args: unknown[]): Promise<T> {
    return this.send<T>({ t: 'call', method, args })
  }

  private mutate(method: TelemetryMethod, ...args: unknown[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('telemetry store is closed'))
    this.checkpointer.wake()
    return this.call(method, ...args)
  }
}
