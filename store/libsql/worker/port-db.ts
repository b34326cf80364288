import type { InArgs, InStatement } from '@libsql/client'
import {
  parseProjected,
  parseRows,
  type Db,
  type JsonRows,
  type Row,
  type RowsOrText,
  type Statement,
  type WriteResult,
} from '../db.ts'
import { decodeError } from './errors.ts'
import { project, projectingWire, type ProjectedRead, type Projecting } from '../projected.ts'
import { PortClient } from './port-client.ts'
import { bootWorker, workerEntry } from './boot.ts'
import { BACKSTOP_PAGES, Checkpointer } from './checkpoints.ts'
import type { Hello, Notice, WorkerData } from './protocol.ts'
import { auditOpen } from '../../../src/kernel/audit.ts'
import { withAudit } from '../audit-sql.ts'

/**
 * True when a statement only reads: a SELECT (SQLite's SELECT holds no write: only a WITH may lead to one), or a
 * WITH that names no write. Anything else read through `Db.all/one/read` (`INSERT … RETURNING`) goes to the store
 * worker; a false "write" costs only the detour. A SELECT is not scanned: a device list page's is ~1,800 characters,
 * ~2 µs of the main thread a read.
 */
const readsOnly = (sql: string) =>
  /^\s*SELECT\b/i.test(sql) ||
  (/^\s*WITH\b/i.test(sql) && !/\b(INSERT|UPDATE|DELETE|REPLACE)\b/i.test(sql))

/** Starts one database worker (`writer.ts` or `reader.ts`) and waits until its connection is open. */
export function spawnWorker(entry: 'writer' | 'reader', opts: PortDbOptions): Promise<PortClient> {
  const workerData: WorkerData = {
    entry: workerEntry(entry),
    url: opts.url,
    ...(opts.authToken ? { authToken: opts.authToken } : {}),
    // the checkpointer thread checkpoints; the store worker's own threshold is only a backstop
    ...(entry === 'writer' ? { autocheckpointPages: BACKSTOP_PAGES } : {}),
  }
  return startWorker(`db-${entry}`, workerData, opts.onFail)
}

/**
 * Starts a worker thread on `workerData.entry` (bootWorker, workerEntry) and waits for its hello: the
 * client of a worker whose store opened, or the error that stopped it (the thread is then terminated).
 */
export async function startWorker<B extends object>(
  name: string,
  workerData: { entry: string },
  onFail?: (e: Error) => void,
  onNotice?: (n: Notice) => void,
): Promise<PortClient<B>> {
  const { worker, first: hello } = await bootWorker<Hello>(name, workerData)
  if (!hello.ready) {
    await worker.terminate() // its store never opened
    throw decodeError(hello.err)
  }
  return new PortClient<B>(worker, name, onFail, onNotice)
}

export interface PortDbOptions {
  url: string
  authToken?: string
  /** Hears of a worker that died: every call fails with Unavailable from then on (readiness turns 503). */
  onFail?: (e: Error) => void
  /** Hears of readers that could not start (reads then stay on the store worker, tried again later). */
  onReaderError?: (e: Error) => void
  /** Hears of checkpoints that fail (the WAL then grows until the store worker's backstop checkpoints). */
  onCheckpointError?: (e: Error) => void
  /** Reader threads (default 1): reads go to them in turn. */
  readers?: number
  /**
   * How often the readers' use is checked, ms (default 10 s): they end when fewer than one read a second found the
   * store worker busy since the last check. They start when READERS_START_AFTER reads find it busy within a second;
   * until then, and after they end, the store worker answers reads itself. 0: they start with the store and take
   * every read until it closes.
   */
  readerIdleMs?: number
}

/** How the readers are started and when they end (PortDbOptions.readerIdleMs). */
interface ReaderPool {
  spawn: () => Promise<PortClient>
  count: number
  idleMs: number
  onError: (e: Error) => void
}

/** After readers failed to start, reads stay on the store worker this long before they are tried again, ms. */
const READER_RETRY_MS = 10_000

/**
 * Reads finding the store worker busy within one second that start the readers. A service at rest polls its queues
 * (~20 statements a second, one at a time): ~10 of its reads in 30 s found the store worker busy; an API client
 * listing devices, hundreds a second.
 */
export const READERS_START_AFTER = 20

/** Lets a database worker answer what it was sent, closes its connection, then ends its thread. */
const endWorker = (worker: PortClient): Promise<void> => worker.end({ t: 'ctl', op: 'close' })

/**
 * The metadata database in worker threads: writes go to the store worker (the only write connection, group
 * commits), reads to it too while it is free, and to the reader workers (read-only connections) while it is busy
 * and they run. Readers run while reads contend: READERS_START_AFTER reads finding the store worker busy within a
 * second start them, and they end when fewer than one a second did over `readerIdleMs`, so a service at rest holds
 * no thread for them (each is a V8 isolate of its own, ~13 MB of RSS, and ~0.2 s of CPU to start). The repositories see
 * the same `Db` as with LocalDb: rows as plain objects, store errors of the same class and fields, and a read after
 * an awaited write sees it (the reply to a write is sent after its commit; each read starts a fresh snapshot).
 */
export class PortDb implements Db {
  private closed = false
  /** The readers running now: none while at rest. A reader that died is dropped (its reads failed, later ones not). */
  private readers: PortClient[]
  private startingReaders?: Promise<void>
  private endingReaders: Promise<unknown> = Promise.resolve()
  /** Reads that found the store worker busy: in the clock second `busySecond`, and since the last idle check. */
  private busyReads = 0
  private busySecond = 0
  private busySinceCheck = 0
  private readerTimer?: NodeJS.Timeout
  private readerRetryAt = 0

  /**
   * Over running workers (PortDb.open starts them; tests hand in their own). With a `pool`, readers are started
   * and ended as reads come; without, `readers` serve until close.
   */
  constructor(
    private readonly writer: PortClient,
    readers: PortClient[],
    private readonly checkpointer?: Checkpointer,
    private readonly pool?: ReaderPool,
  ) {
    this.readers = readers
  }

  /** Starts the store worker (it migrates the database); readers start with reads, the checkpointer with writes. */
  static async open(opts: PortDbOptions): Promise<PortDb> {
    const writer = await spawnWorker('writer', opts)
    const count = Math.max(1, opts.readers ?? 1)
    const always = opts.readerIdleMs === 0
    const readers: PortClient[] = []
    try {
      if (always) for (let i = 0; i < count; i++) readers.push(await spawnWorker('reader', opts))
      const checkpointer = new Checkpointer(opts.url, (e) => opts.onCheckpointError?.(e))
      const pool: ReaderPool | undefined = always
        ? undefined
        : {
            spawn: () => spawnWorker('reader', opts),
            count,
            idleMs: opts.readerIdleMs ?? 10_000,
            onError: (e) => opts.onReaderError?.(e),
          }
      return new PortDb(writer, readers, checkpointer, pool)
    } catch (e) {
      for (const reader of readers) await endWorker(reader)
      await endWorker(writer)
      throw e
    }
  }

  private next = 0
  /** The reader for the next read; undefined when the store worker answers it (it is free, or none runs). */
  private reader(): PortClient | undefined {
    const pool = this.pool
    if (pool && this.writer.inFlight === 0) return undefined
    if (this.readers.length > 0 && this.readers.some((r) => r.failure))
      this.readers = this.readers.filter((r) => !r.failure)
    if (this.readers.length === 0) {
      if (pool) {
        const second = Math.floor(performance.now() / 1000)
        if (second !== this.busySecond) {
          this.busySecond = second
          this.busyReads = 0
        }
        if (++this.busyReads >= READERS_START_AFTER) this.startReaders(pool)
      }
      return undefined
    }
    this.busySinceCheck++
    this.next = (this.next + 1) % this.readers.length
    return this.readers[this.next]!
  }

  /** Starts the pool's readers in the background (once at a time; not again for a while after a failure). */
  private startReaders(pool: ReaderPool) {
    if (this.startingReaders || this.closed || Date.now() < this.readerRetryAt) return
    this.startingReaders = (async () => {
      await this.endingReaders
      const started: PortClient[] = []
      try {
        for (let i = 0; i < pool.count; i++) started.push(await pool.spawn())
      } catch (e) {
        this.readerRetryAt = Date.now() + READER_RETRY_MS
        pool.onError(e as Error)
        await Promise.all(started.map(endWorker))
        return
      }
      if (this.closed) return void (await Promise.all(started.map(endWorker)))
      this.readers = started
      this.busySinceCheck = 0
      this.watchReaders(pool.idleMs)
    })().finally(() => (this.startingReaders = undefined))
  }

  /** Ends the readers at a check (every `idleMs`) finding fewer than one read a second sent to them since the last. */
  private watchReaders(ms: number) {
    this.readerTimer = setTimeout(() => {
      const used = this.busySinceCheck
      this.busySinceCheck = 0
      if (used >= ms / 1000) return this.watchReaders(ms)
      this.readerTimer = undefined
      const ending = this.readers
      this.readers = []
      this.endingReaders = Promise.all(ending.map(endWorker))
    }, ms)
    this.readerTimer.unref()
  }

  async all(sql: string, args: InArgs = []): Promise<Row[]> {
    return (await this.read([{ sql, args }]))[0]!
  }

  async one(sql: string, args: InArgs = []): Promise<Row | undefined> {
    return (await this.all(sql, args))[0]
  }

  read(stmts: Statement[]): Promise<Row[][]> {
    // without its writer the database is down, reads included (readiness reads): say so at once
    if (this.writer.failure) return Promise.reject(this.writer.failure)
    if (!stmts.every((s) => readsOnly(s.sql)))
      return this.writer.request<Row[][]>({ t: 'read', stmts }).then(this.wrote)
    // a reader, or the store worker between its transactions, answers a learnt shape's rows as one JSON text
    // (LocalDb.readTexts), parsed here
    return (this.reader() ?? this.writer)
      .request<RowsOrText[]>({ t: 'read', stmts, direct: true })
      .then((results) => results.map(parseRows))
  }

  /** Projections each reader (and the store worker) has been sent (one compiles it once and keeps it by id). */
  private sent = new WeakMap<PortClient, Set<string>>()

  readProjected(stmts: Statement[], p: Projecting): Promise<ProjectedRead> {
    if (this.writer.failure) return Promise.reject(this.writer.failure)
    if (!stmts.every((s) => readsOnly(s.sql)))
      return this.read(stmts).then((rows) => project(rows, (r) => r, projectingWire(p, false), []))
    const reader = this.reader() ?? this.writer
    let sent = this.sent.get(reader)
    if (!sent) this.sent.set(reader, (sent = new Set()))
    // requests reach a worker in the order they are posted: the first one carrying the fields is served first
    const project_ = projectingWire(p, sent.has(p.projection.id))
    sent.add(p.projection.id)
    return reader
      .request<ProjectedRead<RowsOrText>>({ t: 'read', stmts, project: project_, direct: true })
      .then(parseProjected)
  }

  run(sql: string, args: InArgs = []): Promise<{ changes: number; lastId: number }> {
    if (auditOpen())
      // with its audit row (store/libsql/audit-sql.ts)
      return this.batch([{ sql, args }]).then(([r]) => ({
        changes: r!.rowsAffected,
        lastId: Number(r!.lastInsertRowid ?? 0),
      }))
    return this.writer
      .request<{ changes: number; lastId: number }>({
        t: 'write',
        stmts: [{ sql, args }],
        run: true,
      })
      .then((r) => (r.changes > 0 ? this.wrote(r) : r))
  }

  /** Several writes in one transaction (with the audit row of the change they make, if any). */
  batch(stmts: InStatement[]): Promise<WriteResult[]> {
    const audit = withAudit(stmts)
    return this.writer.request<WriteResult[]>({ t: 'write', stmts: audit.stmts }).then(
      (rs) => {
        audit.settle(true, rs)
        if (audit.stmts !== stmts) rs = rs.slice(audit.at, audit.at + stmts.length)
        return rs.some((r) => r.rowsAffected > 0) ? this.wrote(rs) : rs
      },
      (e: unknown) => {
        audit.settle(false)
        throw e
      },
    )
  }

  async insertJson(json: JsonRows): Promise<void> {
    await this.writer.request({ t: 'write', stmts: [], json })
    this.wrote(undefined)
  }

  /**
   * A write committed that changed rows: the checkpointer runs while they come. Writes that change none (the
   * claims the command and webhook queues poll with, several a second at rest) leave the WAL as it was.
   */
  private readonly wrote = <T>(result: T): T => {
    this.checkpointer?.wake()
    return result
  }

  async checkpoint(): Promise<void> {
    if (!this.closed) await this.writer.request({ t: 'ctl', op: 'checkpoint' })
  }

  /** A step of the store worker between two of its transactions (Db.reclaim). */
  async reclaim(pages: number): Promise<number> {
    if (this.closed) return 0
    return this.writer.request<number>({ t: 'ctl', op: 'reclaim', pages })
  }

  /**
   * Shuts down in the order that keeps the file whole: the checkpointer stops, the readers close their connections
   * (after answering what they had), the store worker checkpoints the WAL (no reader holds a snapshot now) and closes its
   * connection after the writes queued before; only then are the threads terminated.
   */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    clearTimeout(this.readerTimer)
    await this.checkpointer?.close()
    await this.startingReaders
    await this.endingReaders
    await Promise.all(this.readers.map(endWorker))
    this.readers = []
    await this.writer.request({ t: 'ctl', op: 'checkpoint' }).catch(() => undefined)
    await endWorker(this.writer)
  }
}
