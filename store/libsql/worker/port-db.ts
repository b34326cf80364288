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
  /** Hears of checkpoints that fail (the WAL then grows until the store worker's backstop checkpoints). */
  onCheckpointError?: (e: Error) => void
  /** Reader threads (default 1): reads go to them in turn. */
  readers?: number
}

/**
 * The metadata database in worker threads: reads go to the reader worker (a read-only connection), writes to
 * the store worker (the only write connection, group commits). The repositories see the same `Db` as with
 * LocalDb: rows as plain objects, store errors of the same class and fields, and a read after an awaited write
 * sees it (the reply to a write is sent after its commit; each read starts a fresh snapshot).
 */
export class PortDb implements Db {
  private closed = false

  /** Over running workers (PortDb.open starts them; tests hand in their own). */
  constructor(
    private readonly writer: PortClient,
    private readonly readers: PortClient[],
    private readonly checkpointer?: Checkpointer,
  ) {}

  /** Starts the store worker (it migrates the database), then the readers; the checkpointer starts with writes. */
  static async open(opts: PortDbOptions): Promise<PortDb> {
    const writer = await spawnWorker('writer', opts)
    const readers: PortClient[] = []
    try {
      for (let i = 0; i < Math.max(1, opts.readers ?? 1); i++)
        readers.push(await spawnWorker('reader', opts))
      const checkpointer = new Checkpointer(opts.url, (e) => opts.onCheckpointError?.(e))
      return new PortDb(writer, readers, checkpointer)
    } catch (e) {
      for (const reader of readers) {
        await reader.request({ t: 'ctl', op: 'close' }).catch(() => undefined)
        await reader.terminate()
      }
      await writer.request({ t: 'ctl', op: 'close' }).catch(() => undefined)
      await writer.terminate()
      throw e
    }
  }

  private next = 0
  private reader(): PortClient {
    this.next = (this.next + 1) % this.readers.length
    return this.readers[this.next]!
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
    // a reader answers a learnt shape's rows as one JSON text (LocalDb.readTexts), parsed here
    return this.reader()
      .request<RowsOrText[]>({ t: 'read', stmts })
      .then((results) => results.map(parseRows))
  }

  /** Projections each reader has been sent (a reader compiles one once and keeps it by id). */
  private sent = new WeakMap<PortClient, Set<string>>()

  readProjected(stmts: Statement[], p: Projecting): Promise<ProjectedRead> {
    if (this.writer.failure) return Promise.reject(this.writer.failure)
    if (!stmts.every((s) => readsOnly(s.sql)))
      return this.read(stmts).then((rows) => project(rows, (r) => r, projectingWire(p, false), []))
    const reader = this.reader()
    let sent = this.sent.get(reader)
    if (!sent) this.sent.set(reader, (sent = new Set()))
    // requests reach a reader in the order they are posted: the first one carrying the fields is served first
    const project_ = projectingWire(p, sent.has(p.projection.id))
    sent.add(p.projection.id)
    return reader
      .request<ProjectedRead<RowsOrText>>({ t: 'read', stmts, project: project_ })
      .then(parseProjected)
  }

  run(sql: string, args: InArgs = []): Promise<{ changes: number; lastId: number }> {
    return this.writer
      .request<{ changes: number; lastId: number }>({
        t: 'write',
        stmts: [{ sql, args }],
        run: true,
      })
      .then((r) => (r.changes > 0 ? this.wrote(r) : r))
  }

  batch(stmts: InStatement[]): Promise<WriteResult[]> {
    return this.writer
      .request<WriteResult[]>({ t: 'write', stmts })
      .then((rs) => (rs.some((r) => r.rowsAffected > 0) ? this.wrote(rs) : rs))
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
    await this.checkpointer?.close()
    await Promise.all(
      this.readers.map(async (r) => {
        await r.request({ t: 'ctl', op: 'close' }).catch(() => undefined)
        await r.terminate()
      }),
    )
    await this.writer.request({ t: 'ctl', op: 'checkpoint' }).catch(() => undefined)
    await this.writer.request({ t: 'ctl', op: 'close' }).catch(() => undefined)
    await this.writer.terminate()
  }
}
