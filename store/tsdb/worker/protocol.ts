/**
 * The messages between the main thread and the telemetry worker (thread.ts): types only. Requests
 * travel in arrays (PortClient), replies come back as arrays of `Reply` (protocol.ts).
 */
import type { LibsqlTelemetryOptions } from '../store.ts'
import type { SeriesRange } from '../../telemetry.ts'
import type { PointColumns } from './points-wire.ts'

/** The store's methods the worker answers as they are (their arguments and answers cross by structured clone). */
export type TelemetryMethod =
  | 'readRaw'
  | 'aggregate'
  | 'groupSeries'
  | 'downsample'
  | 'count'
  | 'extent'
  | 'latest'
  | 'latestOf'
  | 'deleteDevice'
  | 'deleteDataPoint'
  | 'deleteBefore'
  | 'flush'
  | 'compact'
  | 'reclaim'
  | 'pragmas'
  | 'ping'
  | 'quiet'

export type TelemetryRequest =
  /** write(points), the points as columns. */
  | { t: 'write'; columns: PointColumns }
  | { t: 'call'; method: TelemetryMethod; args: unknown[] }
  /** stream(range): `open` answers a stream number, `next` a few slices and whether the stream ended. */
  | { t: 'stream'; op: 'open'; range: SeriesRange }
  | { t: 'stream'; op: 'next' | 'close'; stream: number }
  /** Flushes and closes the store; the owner then terminates the thread. */
  | { t: 'close' }

/** The worker's `workerData`: the module the thread runs (workerEntry) and the store's options (no functions). */
export interface TelemetryWorkerData {
  entry: string
  options: Omit<LibsqlTelemetryOptions, 'now' | 'onError'>
}
