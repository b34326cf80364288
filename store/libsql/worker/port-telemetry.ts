/**
 * The embedded telemetry store on its own thread: the main thread's TelemetryStore is this proxy, the store
 * itself (LibsqlTelemetryStore, its file, memtable, flusher and compaction) lives in telemetry-worker.ts. Writes
 * cross as columns (points-wire.ts), every other call as its arguments and answer (structured clone). The
 * promises keep the store's: write() resolves after the values' commit, reads after it see them.
 */
import type {
  AggregateFn,
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
import { refusedWrite, TELEMETRY_DEFAULTS, type LibsqlTelemetryOptions } from '../telemetry.ts'
import { decodeError } from './errors.ts'
import { encodePoints } from './points-wire.ts'
import type { PortClient } from './port-client.ts'
import { startWorker } from './port-db.ts'
import { workerEntry } from './boot.ts'
import { BACKSTOP_PAGES, Checkpointer } from './checkpoints.ts'
import type { Reclaimed } from '../vacuum.ts'
import type {
  TelemetryMethod,
  TelemetryRequest,
  TelemetryWorkerData,
} from './telemetry-protocol.ts'

export interface WorkerTelemetryOptions extends Omit<LibsqlTelemetryOptions, 'now'> {
  /** Hears of a worker that died: every call fails with Unavailable from then on (readiness turns 503). */
  onFail?: (e: Error) => void
}

/**
 * How long the checkpointer runs on after the last write: past the memtable's flush (every 10 s) and the
 * compaction of the buckets the writes touched (a minute after their last value), which the worker does on its own.
 */
const IDLE_MS = 90_000

export class WorkerTelemetryStore implements TelemetryStore {
  readonly kind = 'embedded'
  private closed = false

  private constructor(
    private readonly port: PortClient<TelemetryRequest>,
    private readonly checkpointer: Checkpointer,
  ) {}

  /** Starts the worker, which opens the store file and replays its WAL, and waits until it is ready. */
  static async open(options: WorkerTelemetryOptions): Promise<WorkerTelemetryStore> {
    const { onError = TELEMETRY_DEFAULTS.onError, onFail, ...rest } = options
    const workerData: TelemetryWorkerData = {
      entry: workerEntry('telemetry-worker'),
      // the checkpointer thread checkpoints the file; the worker's own threshold is only a backstop
      options: { autocheckpointPages: BACKSTOP_PAGES, ...rest },
    }
    const port = await startWorker<TelemetryRequest>('telemetry', workerData, onFail, (n) =>
      onError(decodeError(n.err)),
    )
    return new WorkerTelemetryStore(port, new Checkpointer(rest.url, onError, { idleMs: IDLE_MS }))
  }

  write(points: readonly TelemetryPoint[]): Promise<void> {
    const refused = refusedWrite(points, this.closed)
    if (refused) return refused
    this.checkpointer.wake()
    const { columns, transfer } = encodePoints(points)
    return this.port.request({ t: 'write', columns }, transfer)
  }

  readRaw(range: SeriesRange): Promise<Map<string, Series>> {
    return this.call('readRaw', range)
  }

  aggregate(range: SeriesRange, fn: AggregateFn, window: WindowSpec): Promise<Map<string, Series>> {
    return this.call('aggregate', range, fn, window)
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
    const stream = await this.port.request<number>({ t: 'stream', op: 'open', range })
    let done = false
    try {
      while (!done) {
        const next = await this.port.request<{ slices: SeriesSlice[]; done: boolean }>({
          t: 'stream',
          op: 'next',
          stream,
        })
        done = next.done
        yield* next.slices
      }
    } finally {
      // a consumer that stopped early (an aborted export) frees the worker's reader
      if (!done)
        await this.port.request({ t: 'stream', op: 'close', stream }).catch(() => undefined)
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

  async ping(): Promise<void> {
    if (this.closed) throw new Unavailable('telemetry store is closed')
    await this.call('ping')
  }

  /** Flushes everything and closes the file in the worker, then ends the thread. Later writes are refused. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.checkpointer.close()
    try {
      if (!this.port.failure) await this.port.request({ t: 'close' })
    } finally {
      await this.port.terminate()
    }
  }

  /** A count of what a call changed: the checkpointer runs when it is not 0 (nothing deleted: no WAL frame). */
  private readonly wroteAny = (n: number): number => {
    if (n > 0) this.checkpointer.wake()
    return n
  }

  private call<T>(method: TelemetryMethod, ...args: unknown[]): Promise<T> {
    return this.port.request<T>({ t: 'call', method, args })
  }

  private mutate(method: TelemetryMethod, ...args: unknown[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('telemetry store is closed'))
    this.checkpointer.wake()
    return this.call(method, ...args)
  }
}
