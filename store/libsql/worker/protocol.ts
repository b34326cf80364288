/**
 * The messages between the main thread and the database workers (store/libsql/worker/*): types only, a leaf
 * module. A sender posts one array of requests per turn (PortClient) and a worker answers with one array of
 * replies per drain; rows cross as plain objects (structured clone), a long projected text as its UTF-8 bytes (their
 * buffer transferred: see `crossing` in store/libsql/projected.ts).
 */
import type { InStatement } from '@libsql/client'
import type { JsonRows, Statement, WriteResult } from '../db.ts'
import type { ProjectingWire } from '../projected.ts'

/**
 * Several SELECTs in one read transaction (`Db.read`), answered with their rows; with `project`, one of them as
 * the JSON text of its projected rows (`Db.readProjected`, reader workers only).
 */
export interface ReadRequest {
  id: number
  t: 'read'
  stmts: Statement[]
  project?: ProjectingWire
  /**
   * Statements that only read, answered as a reader answers them (rows as JSON text where the shape is learnt) in
   * a read transaction of their own: the store worker runs such a read between its write transactions, without the
   * write lock. Without it, the store worker runs the read inside its write transaction (`INSERT … RETURNING`).
   */
  direct?: boolean
}

/**
 * One `Db.run` (`run: true`, answered with `{changes, lastId}`), one `Db.batch` (answered WriteResult[]) or one
 * `Db.insertJson` (`json`, with no `stmts`: the worker builds the INSERTs).
 */
export interface WriteRequest {
  id: number
  t: 'write'
  stmts: InStatement[]
  run?: boolean
  json?: JsonRows
}

/**
 * Worker control: a WAL checkpoint and a step giving free pages back (`pages` at most; store worker), closing the
 * worker's connection, a round trip.
 */
export interface ControlRequest {
  id: number
  t: 'ctl'
  op: 'checkpoint' | 'reclaim' | 'close' | 'ping'
  pages?: number
}

export type Request = ReadRequest | WriteRequest | ControlRequest

/** A request without its id, as a caller hands it to PortClient. */
export type RequestBody =
  Omit<ReadRequest, 'id'> | Omit<WriteRequest, 'id'> | Omit<ControlRequest, 'id'>

/** The driver's error as far as callers look at it (store/libsql/sql-errors.ts reads these fields). */
export interface WireCause {
  name: string
  message: string
  code?: string
  extendedCode?: string
  rawCode?: number
  /** The message of the driver error's own cause (the native library's error). */
  detail?: string
  /** A failed `Db.batch`: the statement that failed (LibsqlBatchError). */
  statementIndex?: number
}

/**
 * An error crossing a thread: store errors by kind with their field errors (store/errors.ts), a window that cannot
 * be served (store/windows.ts), anything else as `Error` with the driver's fields; `cause` is the driver's error a
 * store error was made of.
 */
export interface WireError {
  kind: 'Conflict' | 'Referenced' | 'Unavailable' | 'Window' | 'Error'
  message: string
  errors: Record<string, string>
  cause?: WireCause
  name?: string
  code?: string
  extendedCode?: string
  rawCode?: number
}

export type Reply =
  { id: number; ok: true; value: unknown } | { id: number; ok: false; err: WireError }

/** A message a worker sends of its own accord (not a reply): an error of its background work. */
export interface Notice {
  notice: 'error'
  err: WireError
}

/** The first message of a worker: ready (its connection is open), or the error that stopped it. */
export type Hello = { ready: true } | { ready: false; err: WireError }

/** What a worker gets as `workerData`: the module the thread runs (workerEntry) and the database it opens. */
export interface WorkerData {
  entry: string
  url: string
  authToken?: string
  /** The connection's own checkpoint threshold (pages): a backstop when a checkpointer thread runs. */
  autocheckpointPages?: number
}

export type { WriteResult }
