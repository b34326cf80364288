import type { Client, InArgs, InStatement, InValue } from '@libsql/client'
import { createClient as createFileClient } from '@libsql/client/sqlite3'
import Database from 'libsql'
import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { storeErrorOf, wedgesConnection } from './sql-errors.ts'
import { DirectReads, type ReadResult } from './direct-reads.ts'
import type { FieldOp } from '../../src/kernel/projection.ts'
import {
  compiledOf,
  fromProjectedSql,
  project,
  projectedSql,
  projectingWire,
  type ProjectedRead,
  type Projecting,
  type ProjectingWire,
  type LearntColumn,
} from './projected.ts'
import { flatSelect } from './flat-select.ts'
import { auditOpen } from '../../src/kernel/audit.ts'
import { withAudit } from './audit-sql.ts'
import { convertAtOpen, incrementalIfNew, fileSpace, pagesToReclaim, vacuumStep } from './vacuum.ts'

/** The driver's types other rooms name (the embedded telemetry store, store/tsdb/): this folder is its home. */
export type { Client, InStatement, Row as DriverRow } from '@libsql/client'
/** A client of a local file through libSQL's local driver only (no HTTP or WebSocket transports loaded). */
export const createLocalClient = createFileClient

/** Statements kept prepared per connection by keepPreparedStatements (the least recently used go first). */
export const KEPT_STATEMENTS = 256

let keeping = false

/**
 * Makes every connection of this thread keep its last KEPT_STATEMENTS prepared statements: `@libsql/client`
 * prepares each statement it runs again on every call (for a device's detail, about 40% of the reading thread's
 * work), through the `prepare` of its driver, `libsql`, whose statements can be run again. The client runs a
 * statement to its end (`all` or `run`) before it returns, so a kept statement is never in use twice at once;
 * the statement is the driver's own, so rows, values and errors are what the client answers without the cache.
 * On in the database worker threads (readers, the store worker, the telemetry worker), each the only user of its
 * connections, and in the main thread when it runs the stores' SQL itself (DB_WORKERS=off, store/index.ts); a
 * schema change (the store worker's own migrations, or another connection's) re-prepares a kept statement inside
 * SQLite (SQLITE_SCHEMA), as for any prepared statement.
 */
export function keepPreparedStatements(limit = KEPT_STATEMENTS): void {
  if (keeping) return
  keeping = true
  type Prepare = (this: Database.Database, sql: string) => Database.Statement
  const proto = Database.prototype as unknown as { prepare: Prepare }
  const prepare = proto.prepare
  const kept = new WeakMap<object, Map<string, Kept>>()
  let tick = 0
  proto.prepare = function (sql) {
    let cache = kept.get(this)
    if (!cache) {
      cache = new Map()
      kept.set(this, cache)
    }
    const hit = cache.get(sql)
    if (hit) {
      hit.used = ++tick
      return hit.stmt
    }
    const stmt = refusalKept(prepare.call(this, sql))
    if (cache.size >= limit) cache.delete(leastRecent(cache))
    cache.set(sql, { stmt, used: ++tick })
    return stmt
  }
}

/**
 * A kept statement and when it was last used. A hit only moves `used`: re-inserting the key (a Map's order as the
 * recency) made the Map rehash every few hundred hits, and V8 keeps each replaced table reachable from the one
 * before it (see src/kernel/id-table.ts), so a reader's old generation grew with every read.
 */
interface Kept {
  stmt: Database.Statement
  used: number
}

/** The SQL of the least recently used statement of `cache` (a scan, on a miss with the cache full). */
function leastRecent(cache: Map<string, Kept>): string {
  let oldest = ''
  let at = Infinity
  for (const [sql, k] of cache)
    if (k.used < at) {
      at = k.used
      oldest = sql
    }
  return oldest
}

/**
 * `stmt` whose `raw()` throws the same error again once it refused: the client calls `raw(true)` on every run to
 * learn whether the statement answers rows, and the driver answers a statement that does not (an INSERT, a
 * SAVEPOINT) with a new Error and its stack each time, 4% of the store worker's time on the ingest path. Whether a
 * statement answers rows is fixed when it is prepared, so the first answer holds for a kept statement.
 */
function refusalKept(stmt: Database.Statement): Database.Statement {
  // the driver's own method, called below with the statement as `this`
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const raw = stmt.raw
  let refusal: unknown
  stmt.raw = function (toggle) {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the driver's own refusal, thrown again as it was
    if (refusal !== undefined) throw refusal
    try {
      return raw.call(this, toggle)
    } catch (e) {
      refusal = e
      throw e
    }
  }
  return stmt
}

/**
 * Per-connection settings. A local file gets WAL, synchronous NORMAL, foreign keys and a busy timeout; a new file
 * also incremental vacuum, set by the writer's connection before these (incrementalIfNew).
 */
const LOCAL_PRAGMAS = [
  'PRAGMA journal_mode = WAL',
  'PRAGMA synchronous = NORMAL',
  'PRAGMA foreign_keys = ON',
  'PRAGMA busy_timeout = 5000',
]

export interface DbOptions {
  url: string
  authToken?: string
  /** A reader's connection: no migrations, and `PRAGMA query_only = ON` (a write fails, never contends). */
  readOnly?: boolean
  /**
   * The connection's own checkpoint threshold in pages (`wal_autocheckpoint`), when another thread checkpoints
   * (store/libsql/worker/checkpoints.ts); SQLite's default 1,000 otherwise.
   */
  autocheckpointPages?: number
}

/** A row as the repositories see it: column aliases (wire names) → values. */
export type Row = Record<string, unknown>

/** A row a write answered (RETURNING): values by column name and by position (`row.id`, `row[0]`). */
export type WriteRow = Record<string | number, unknown>

/** What one statement of `Db.batch` answered. */
export interface WriteResult {
  columns: string[]
  rows: WriteRow[]
  rowsAffected: number
  lastInsertRowid: bigint | number | undefined
}

/** A statement and its positional args. */
export type Statement = { sql: string; args: InArgs }

/**
 * The row counts of multi-row INSERTs, largest first: a batch of any size is cut into a few statements of these
 * sizes, so each statement's text recurs and stays prepared (a worker keeps its last KEPT_STATEMENTS). One statement
 * per batch of N rows was a new text, prepared again, for nearly every N. 256 rows x at most 16 columns stays far
 * below SQLite's 32,766 variables.
 */
export const INSERT_SIZES = [256, 64, 16, 4, 1] as const

const insertSql = new Map<string, string>()

/** The SQL text kept under `key`, built by `build` the first time (the same few texts recur). */
function keptSql(key: string, build: () => string): string {
  let sql = insertSql.get(key)
  if (sql === undefined) {
    sql = build()
    if (insertSql.size >= 1000) insertSql.clear()
    insertSql.set(key, sql)
  }
  return sql
}

/** The text of a multi-row INSERT of `size` rows. */
function insertText(table: string, columns: readonly string[], size: number, suffix: string) {
  return keptSql(`${table}\u0000${columns.join(',')}\u0000${size}\u0000${suffix}`, () => {
    const tuple = `(${columns.map(() => '?').join(', ')})`
    return `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${Array(size).fill(tuple).join(', ')} ${suffix}`
  })
}

/**
 * Multi-row `INSERT INTO table (columns) VALUES (...), (...)`s of `rows`, in order, in statements of INSERT_SIZES
 * rows (never one statement per row). `suffix` is appended as is (an ON CONFLICT clause, RETURNING id); it never
 * holds values.
 */
export function insertRows(
  table: string,
  columns: readonly string[],
  rows: InValue[][],
  suffix = '',
): InStatement[] {
  return insertStatements(rows.length, (i, size) => ({
    sql: insertText(table, columns, size, suffix),
    args: flatRows(rows, i, size),
  }))
}

/** The INSERTs of `count` rows in statements of INSERT_SIZES rows, each `statement(first row, rows)`. */
function insertStatements(
  count: number,
  statement: (from: number, size: number) => InStatement,
): InStatement[] {
  const out: InStatement[] = []
  let i = 0
  for (const size of INSERT_SIZES) for (; count - i >= size; i += size) out.push(statement(i, size))
  return out
}

/**
 * The values of `count` rows from `from`, one after another. A loop: `rows.slice().flat()` went through V8's
 * generic flattening (a property definition a value), 11% of the store worker's time on the ingest path.
 */
function flatRows(rows: InValue[][], from: number, count: number): InValue[] {
  const args: InValue[] = []
  for (let r = from; r < from + count; r++) {
    const row = rows[r]!
    for (let c = 0; c < row.length; c++) args.push(row[c]!)
  }
  return args
}

/**
 * Rows of one table for `Db.insertJson`, made by `jsonRows`: `count` rows of `columns`, whose values (text, numbers,
 * nulls) cross to the store worker in three parts, none of them a value at a time through structured clone:
 * - `shared`: the value of each column that every row has (undefined for the others), sent once;
 * - `apart`: whole columns of long texts (an uplink's payload), an array of the column's values each, cloned as
 *   they are instead of escaped into JSON and read back;
 * - `rows`: the other columns' values, row after row, as one JSON text of a flat array: the store worker parses one
 *   array and cuts each statement's args from it, with no array a row made on either side.
 *
 * `table` and `columns` are our own identifiers, never input.
 */
export interface JsonRows {
  table: string
  columns: readonly string[]
  count: number
  rows: string
  shared?: readonly (InValue | undefined)[]
  apart?: readonly (readonly InValue[] | undefined)[]
}

const isSqlValue = (v: unknown) => v === null || typeof v === 'string' || typeof v === 'number'

/** Whether column `c` holds the same value in the `size` rows of `flat` (`width` values a row) from row `from`. */
function sameInRows(
  flat: readonly InValue[],
  width: number,
  from: number,
  size: number,
  c: number,
) {
  const base = from * width + c
  const v = flat[base]
  for (let r = 1; r < size; r++) if (flat[base + r * width] !== v) return false
  return true
}

/**
 * The JsonRows of the rows in `flat` (each row's values in `columns`' order, one row after another); the columns
 * at `apart` (indexes) cross outside the JSON text. A column whose value is the same in every row is sent once:
 * an uplink batch's rows share their tenant, address, status and write time, and each such value written into
 * the text (a time's digits, a tenant's id) cost the event loop more than the comparisons that find it.
 */
export function jsonRows(
  table: string,
  columns: readonly string[],
  flat: readonly InValue[],
  apart: readonly number[] = [],
): JsonRows {
  const width = columns.length
  const count = flat.length / width
  // undefined, not a hole, for a column that is not shared: null is a value rows share
  const shared = new Array<InValue | undefined>(width).fill(undefined)
  const inText: number[] = []
  let anyShared = false
  for (let c = 0; c < width; c++) {
    if (apart.includes(c)) continue
    if (count > 1 && sameInRows(flat, width, 0, count, c)) {
      shared[c] = flat[c]
      anyShared = true
    } else inText.push(c)
  }
  const values: InValue[] = []
  for (let r = 0; r < count; r++) {
    const base = r * width
    for (const c of inText) values.push(flat[base + c]!)
  }
  const out: JsonRows = { table, columns, count, rows: JSON.stringify(values) }
  if (anyShared) out.shared = shared
  if (apart.length) {
    const columnsApart = new Array<InValue[] | undefined>(width).fill(undefined)
    for (const c of apart) {
      const column: InValue[] = []
      for (let r = 0; r < count; r++) column.push(flat[r * width + c]!)
      columnsApart[c] = column
    }
    out.apart = columnsApart
  }
  return out
}

/** The rows of `j` as one flat array, each row's values in `columns`' order; an error when a part does not fit. */
function jsonFlat(j: JsonRows): InValue[] {
  const width = j.columns.length
  const { count } = j
  const shared = j.shared ?? []
  const apart = j.apart ?? []
  const bad = () => new Error(`insertJson ${j.table}: expected whole rows of ${width} values`)
  if (!Number.isInteger(count) || count < 0) throw bad()
  const text: unknown = JSON.parse(j.rows)
  let inText = 0
  for (let c = 0; c < width; c++) {
    const column = apart[c]
    if (column !== undefined) {
      if (!Array.isArray(column) || column.length !== count || !column.every(isSqlValue))
        throw bad()
    } else if (shared[c] !== undefined) {
      if (!isSqlValue(shared[c])) throw bad()
    } else inText++
  }
  if (!Array.isArray(text) || text.length !== inText * count || !text.every(isSqlValue)) throw bad()
  const values: InValue[] = text
  if (inText === width) return values
  const flat: InValue[] = []
  let next = 0
  for (let r = 0; r < count; r++)
    for (let c = 0; c < width; c++) {
      const column = apart[c]
      const once = shared[c]
      flat.push(column !== undefined ? column[r]! : once !== undefined ? once : values[next++]!)
    }
  return flat
}

/** The multi-row INSERTs of `j`; parts that are not whole rows of such values are an error. */
export function jsonInserts(j: JsonRows): InStatement[] {
  const flat = jsonFlat(j)
  return insertStatements(j.count, (i, size) => sharedInsert(j.table, j.columns, flat, i, size))
}

/**
 * The INSERT of `size` rows of `flat` from row `from`, a column whose value is the same in every row bound once
 * (`?1`) and named by each row: the store worker's driver converts every bound value on its way to SQLite (~0.27
 * µs each), and a batch of uplink events shares its tenant, product, address, status, reason and write time (12
 * values a row bound before, 6 after: 6.4 -> 5.2 µs of the store worker a row).
 */
function sharedInsert(
  table: string,
  columns: readonly string[],
  flat: readonly InValue[],
  from: number,
  size: number,
): InStatement {
  const width = columns.length
  const base = from * width
  let shared = 0
  if (size > 1 && width <= 30)
    for (let c = 0; c < width; c++) if (sameInRows(flat, width, from, size, c)) shared |= 1 << c
  if (shared === 0)
    return {
      sql: insertText(table, columns, size, ''),
      args: flat.slice(base, base + size * width),
    }
  const args: InValue[] = []
  for (let c = 0; c < width; c++) if (shared & (1 << c)) args.push(flat[base + c]!)
  for (let r = 0; r < size; r++)
    for (let c = 0; c < width; c++) if (!(shared & (1 << c))) args.push(flat[base + r * width + c]!)
  return { sql: sharedInsertText(table, columns, size, shared), args }
}

/** The text of sharedInsert's statement: `shared`'s columns (bits) as `?1`, `?2` ..., then each row's own. */
function sharedInsertText(table: string, columns: readonly string[], size: number, shared: number) {
  return keptSql(`${table}\u0000${columns.join(',')}\u0000${size}\u0000#${shared}`, () => {
    const once: number[] = []
    let n = 0
    for (let c = 0; c < columns.length; c++) if (shared & (1 << c)) once[c] = ++n
    const tuples: string[] = []
    for (let r = 0; r < size; r++)
      tuples.push(`(${columns.map((_, c) => `?${once[c] ?? ++n}`).join(', ')})`)
    return `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`
  })
}

/**
 * The metadata database as the repositories use it (store/libsql/*.ts take a `Db`). Two implementations:
 * `LocalDb` (in-thread @libsql/client: a local file or sqld) and `PortDb` (store/libsql/worker/port-db.ts: the
 * SQL runs in worker threads). Reads after an awaited write see it in both.
 */
export interface Db {
  /** The rows of one SELECT. */
  all(sql: string, args?: InArgs): Promise<Row[]>
  /** The first row of one SELECT, if any. */
  one(sql: string, args?: InArgs): Promise<Row | undefined>
  /** Several SELECTs in one read transaction (a page and its count see the same data). */
  read(statements: Statement[]): Promise<Row[][]>
  /**
   * As `read`, with statement `p.at` answered as the JSON text of its rows in `p.projection` (store/libsql/
   * projected.ts), written by the thread that ran the SQL.
   */
  readProjected(statements: Statement[], p: Projecting): Promise<ProjectedRead>
  /** One write statement. */
  run(sql: string, args?: InArgs): Promise<{ changes: number; lastId: number }>
  /** Several writes in one transaction; all or none. */
  batch(statements: InStatement[]): Promise<WriteResult[]>
  /**
   * Inserts rows given as JsonRows (`jsonRows`), in one transaction. With the database in worker threads the rows
   * cross in JsonRows' parts and the store worker builds the statements: a structured clone of the statements'
   * args (a value at a time) cost the event loop several times as much, on the ingest path.
   */
  insertJson(rows: JsonRows): Promise<void>
  /** Moves a local file's WAL into the database file (best effort; nothing for sqld). */
  checkpoint(): Promise<void>
  /**
   * Gives up to `pages` of a local file's free pages back to the file system when that is due (vacuum.ts
   * pagesToReclaim: a quarter of the file free), in one write transaction; answers the pages still due after it
   * (0: nothing more, and always for sqld).
   */
  reclaim(pages: number): Promise<number>
  /** Closes the connections (after `checkpoint`). */
  close(): Promise<void>
}

const MAX_SHAPES = 2000
const SELECT = /^\s*(SELECT|WITH)\b/i
/** Declared types SQLite gives TEXT affinity: such a column holds no numbers (they are stored as text). */
const TEXT_AFFINITY = /CHAR|CLOB|TEXT/i

/**
 * `x` for json_object, a finite REAL as JSON text of 17 significant digits: json_object writes a REAL with 15, which
 * JSON.parse does not always read back as the same double (0.1 + 0.2 came back 0.3, 12.345678901234567 as
 * 12.3456789012346). Integers, text, null and an infinite REAL go as they are.
 */
function exactReal(x: string): string {
  return `CASE WHEN typeof(${x}) = 'real' AND abs(${x}) <= 1.7976931348623157e308 THEN json(printf('%!.17g', ${x})) ELSE ${x} END`
}

/** A statement's rows, or (a learnt shape) one JSON text of the array of them: see LocalDb.readTexts. */
export type RowsOrText = Row[] | string

/** The rows of a `RowsOrText`. */
export const parseRows = (r: RowsOrText): Row[] =>
  typeof r === 'string' ? (JSON.parse(r) as Row[]) : r

/** A projected read whose other statements' rows came as `RowsOrText`, with them parsed. */
export const parseProjected = (r: ProjectedRead<RowsOrText>): ProjectedRead => ({
  ...r,
  results: r.results.map(parseRows),
})

/**
 * A learnt SELECT: its rows as `json_object` texts (`json`); each column's reference and the column as json_object
 * takes it; what a SELECT of its rows' texts reads (`from`): the statement's own FROM where it flattens
 * (flat-select.ts), else the statement as a subquery.
 */
interface Learnt {
  json: string
  columns: Map<string, LearntColumn>
  from: string
  /** projectedSql's SELECT by projection and caller context (null: none, outside UTC). */
  projected: Map<string, string | null>
}

/** Projected SELECTs kept per learnt statement (projections x caller contexts: a few in practice). */
const MAX_PROJECTED = 64

/**
 * A libSQL handle. Writes that belong together go through `batch` (one transaction on the same connection);
 * `client.transaction()` is never used because on a local file it hands the connection away and the next one
 * would lose the per-connection pragmas.
 *
 * Reads: @libsql/client builds every row with one property definition per column, which costs ~4 µs a cell
 * (a 45-column detail row: 0.2 ms). So once a SELECT has run, its column names are learnt and later runs of the
 * same SQL text select one `json_object(...) AS j` per row instead, parsed with JSON.parse (4-5x faster). Values
 * keep their types (numbers, strings, null) and REALs every digit (exactReal); metadata holds no BLOBs. The
 * alias matters: a column without one is named by its expression, the whole `json_object` text, which the driver
 * copies out on every read (a device detail read: 41 µs without the alias, 32 with it).
 *
 * Errors: constraint violations leave here as store errors (store/errors.ts): a FOREIGN KEY violation as
 * Referenced, a UNIQUE one as Conflict, the driver's error as their `cause` (see storeErrorOf).
 */
export class LocalDb implements Db {
  /** Learnt SELECTs by their SQL (see learn); null: one whose rows stay objects. */
  private learnt = new Map<string, Learnt | null>()
  private wedged = false

  /**
   * `reopen`: a fresh connection with the same settings, for a local file (see `failed`); `direct`: the reads of a
   * reader thread, through the driver itself (DirectReads).
   */
  constructor(
    private conn: Client,
    readonly local: boolean,
    private readonly reopen?: () => Promise<Client>,
    private readonly direct?: DirectReads,
  ) {}

  /** The connection; a wedged one (see `failed`) is replaced first. */
  async client(): Promise<Client> {
    if (this.wedged && this.reopen) {
      const fresh = await this.reopen()
      this.conn.close()
      this.conn = fresh
      this.wedged = false
    }
    return this.conn
  }

  /**
   * Notes an error of this connection: one that wedged it (wedgesConnection: a statement that met SQLITE_BUSY
   * stays unfinished in the driver, and every later COMMIT would fail) gets the connection replaced before the
   * next call, so a lock held a while by another process costs the calls of that while, not the process's life.
   * Returns the store error the caller throws.
   */
  failed(e: unknown): unknown {
    if (this.local && wedgesConnection(e)) this.wedged = true
    return storeErrorOf(e)
  }

  async all(sql: string, args: InArgs = []): Promise<Row[]> {
    return (await this.read([{ sql, args }]))[0]!
  }

  async one(sql: string, args: InArgs = []): Promise<Row | undefined> {
    return (await this.all(sql, args))[0]
  }

  /** Several SELECTs in one read transaction (a page and its count see the same data). */
  async read(statements: Statement[]): Promise<Row[][]> {
    return (await this.readTexts(statements)).map(parseRows)
  }

  async readProjected(statements: Statement[], p: Projecting): Promise<ProjectedRead> {
    return this.readProjectedTexts(statements, projectingWire(p, false)).then(parseProjected)
  }

  /**
   * As `readProjected`, the other statements' rows as `readTexts` answers them (a reader thread posts these). Once
   * the statement's columns are learnt, SQLite writes the projected rows (projectedSql); before that, outside UTC or
   * for a row with a time only JavaScript formats, the rows are read as usual and projected here (project).
   */
  async readProjectedTexts(
    statements: Statement[],
    p: ProjectingWire,
  ): Promise<ProjectedRead<RowsOrText>> {
    const fields = compiledOf(p.id, p.fields).fields
    const sql = this.projectedSql(statements[p.at]!.sql, p, fields)
    if (sql !== undefined) {
      const at = statements.map((s, i) => (i === p.at ? { sql, args: s.args } : s))
      const { texts, raw } = await this.readWith(at, p.at)
      const read = fromProjectedSql(raw, texts, p)
      if (read) return read
    }
    return project(await this.readTexts(statements), parseRows, p, [])
  }

  /**
   * The SQL of `p`'s rows of `sql` (projectedSql over its learnt columns), undefined until they are learnt. Kept
   * with the learnt statement, by projection and context: a key made of the whole SQL text cost ~3 µs a read.
   */
  private projectedSql(sql: string, p: ProjectingWire, fields: readonly FieldOp[]) {
    const learnt = this.learnt.get(sql)
    if (!learnt) return undefined
    const { lang, tz, secrets } = p.ctx
    const key = `${p.id} ${lang} ${tz} ${secrets !== false} ${p.keep?.join(',') ?? ''}`
    const known = learnt.projected.get(key)
    if (known !== undefined) return known ?? undefined
    const select = projectedSql(fields, p.ctx, (c) => learnt.columns.get(c), p.keep ?? [])
    if (learnt.projected.size >= MAX_PROJECTED)
      learnt.projected.delete(learnt.projected.keys().next().value!)
    const text = select === undefined ? null : `SELECT ${select} ${learnt.from}`
    learnt.projected.set(key, text)
    return text ?? undefined
  }

  /**
   * As `read`, with the rows of a statement whose shape is learnt as one JSON text (an array of its rows' objects)
   * instead of parsed: the reader worker posts that text as it is, one string that crosses threads ~10x cheaper
   * than the objects, parsed once on the other side (`parseRows`). Measured on a device list page (11 rows of 50
   * columns): parsing the rows and cloning the objects cost the reader ~100 µs and the main thread ~57 µs to
   * receive; joining and cloning the text ~9 µs, and the main thread ~40 µs to receive and parse it.
   */
  async readTexts(statements: Statement[]): Promise<RowsOrText[]> {
    return (await this.readWith(statements)).texts
  }

  /** readTexts, except statement `raw`, run as it is: its rows' first column (`raw`), its slot in `texts` empty. */
  private async readWith(
    statements: Statement[],
    raw?: number,
  ): Promise<{ texts: RowsOrText[]; raw: string[] }> {
    const wrapped = statements.map(({ sql, args }, i) => ({
      sql: i === raw ? sql : (this.learnt.get(sql)?.json ?? sql),
      args,
    }))
    let results: ReadResult[]
    try {
      results = await this.execute(wrapped)
    } catch (e) {
      throw this.failed(e)
    }
    let rawTexts: string[] = []
    const texts = results.map((rs, i): RowsOrText => {
      const { sql } = statements[i]!
      if (i === raw) {
        rawTexts = rs.rows.map((r) => r[0] as string)
        return []
      }
      if (wrapped[i]!.sql !== sql) return `[${rs.rows.map((r) => r[0] as string).join(',')}]`
      if (!this.learnt.has(sql)) this.learn(sql, rs.columns, rs.columnTypes)
      return this.direct
        ? rs.rows.map((r) => recordOf(rs.columns, r))
        : (rs.rows as unknown as Row[])
    })
    return { texts, raw: rawTexts }
  }

  /** Runs reads (several in one read transaction): through DirectReads on a reader thread, else the client. */
  private async execute(statements: Statement[]): Promise<ReadResult[]> {
    if (this.direct) return this.direct.read(statements)
    const client = await this.client()
    const results =
      statements.length === 1
        ? [await client.execute(statements[0]!)]
        : await client.batch(statements, 'read')
    return results.map((rs) => ({
      columns: rs.columns,
      columnTypes: rs.columnTypes,
      rows: rs.rows,
    }))
  }

  private learn(sql: string, columns: readonly string[], types: readonly string[]) {
    if (this.learnt.size >= MAX_SHAPES) this.learnt.delete(this.learnt.keys().next().value!)
    const unique = new Set(columns).size === columns.length && columns.length > 0
    const ok = SELECT.test(sql) && unique && columns.every((c) => /^[A-Za-z_][\w]*$/.test(c))
    if (!ok) {
      this.learnt.set(sql, null)
      return
    }
    const flat = flatSelect(sql)
    const flattens = flat !== undefined && [...flat.columns.keys()].join() === columns.join()
    const column = (c: string, i: number): LearntColumn => {
      const ref = flattens ? flat.columns.get(c)! : `"${c}"`
      return { ref, value: TEXT_AFFINITY.test(types[i] ?? '') ? ref : exactReal(ref) }
    }
    const learnt = new Map(columns.map((c, i) => [c, column(c, i)]))
    const from = flattens ? flat.from : `FROM (${sql})`
    const object = [...learnt].map(([c, { value }]) => `'${c}', ${value}`).join(', ')
    this.learnt.set(sql, {
      json: `SELECT json_object(${object}) AS j ${from}`,
      columns: learnt,
      from,
      projected: new Map(),
    })
  }

  async run(sql: string, args: InArgs = []): Promise<{ changes: number; lastId: number }> {
    if (auditOpen()) {
      const [r] = await this.batch([{ sql, args }]) // with its audit row (store/libsql/audit-sql.ts)
      return { changes: r!.rowsAffected, lastId: Number(r!.lastInsertRowid ?? 0) }
    }
    try {
      const r = await (await this.client()).execute({ sql, args })
      return { changes: r.rowsAffected, lastId: Number(r.lastInsertRowid ?? 0) }
    } catch (e) {
      throw this.failed(e)
    }
  }

  /** Several writes in one transaction; all or none (with the audit row of the change they make, if any). */
  async batch(statements: InStatement[]): Promise<WriteResult[]> {
    const audit = withAudit(statements)
    try {
      const results = await (await this.client()).batch(audit.stmts, 'write')
      audit.settle(true, results)
      return audit.stmts === statements
        ? results
        : results.slice(audit.at, audit.at + statements.length)
    } catch (e) {
      audit.settle(false)
      throw this.failed(e)
    }
  }

  async insertJson(rows: JsonRows): Promise<void> {
    await this.batch(jsonInserts(rows))
  }

  /**
   * Moves a local file's WAL into the database file and empties it (`wal_checkpoint(TRUNCATE)`), so a copy of the
   * file alone after a clean stop is complete. Best effort: a busy database keeps its WAL (still consistent).
   */
  async checkpoint(): Promise<void> {
    if (this.local) await checkpointWal(await this.client())
  }

  async reclaim(pages: number): Promise<number> {
    if (!this.local) return 0
    try {
      const client = await this.client()
      const due = pagesToReclaim(await fileSpace(client))
      const step = Math.min(pages, due)
      if (step <= 0) return 0
      const freed = await vacuumStep(client, step)
      return freed < step ? 0 : due - freed // fewer: the freelist ran out (writes took its pages)
    } catch (e) {
      throw this.failed(e)
    }
  }

  async close(): Promise<void> {
    this.direct?.close()
    this.conn.close()
  }
}

/**
 * A metadata file of an earlier version (no incremental vacuum) is converted at open when its pages in use hold at
 * most this many bytes (vacuum.ts convertAtOpen); a larger one keeps its free pages for reuse, as before.
 */
const VACUUM_AT_OPEN_MAX_BYTES = 256 * 2 ** 20

/** A row of `columns` as an object, the first of two same-named columns kept (as @libsql/client does). */
function recordOf(columns: readonly string[], row: ArrayLike<unknown>): Row {
  const out: Row = {}
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i]!
    if (Object.hasOwn(out, c)) continue
    if (c === '__proto__')
      Object.defineProperty(out, c, {
        value: row[i],
        enumerable: true,
        configurable: true,
        writable: true,
      })
    else out[c] = row[i]
  }
  return out
}

/** `PRAGMA wal_checkpoint(TRUNCATE)` on a local libSQL file; errors are ignored (the WAL stays valid). */
export async function checkpointWal(client: Client): Promise<void> {
  try {
    await client.execute('PRAGMA wal_checkpoint(TRUNCATE)')
  } catch {
    // another connection holds a read transaction: the WAL is replayed at the next open
  }
}

/** Opens the metadata database, applies the pragmas and the numbered migrations. */
export async function openDb(
  opts: DbOptions,
  migrationsDir = defaultMigrationsDir(),
): Promise<LocalDb> {
  const local = opts.url.startsWith('file:')
  if (local) {
    const path = opts.url.slice('file:'.length)
    if (path && path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  }
  // one connection for a local file: the pool would otherwise open more under concurrent calls, and the pragmas
  // below (WAL sync level, busy timeout) are set per connection; every call is synchronous anyway
  const connect = async () => {
    const config = {
      url: opts.url,
      authToken: opts.authToken,
      intMode: 'number' as const,
      ...(local ? { concurrency: 1 } : {}),
    }
    // a file needs only the local driver; the full client (its HTTP and WebSocket transports: ~130 ms to load and
    // ~15 MB in every thread that imports it) is loaded for a remote DATABASE_URL alone
    const client = local
      ? createFileClient(config)
      : (await import('@libsql/client')).createClient(config)
    try {
      if (local && !opts.readOnly) await incrementalIfNew(client)
      if (local) for (const p of LOCAL_PRAGMAS) await client.execute(p)
      if (local && opts.autocheckpointPages !== undefined)
        await client.execute(`PRAGMA wal_autocheckpoint = ${Math.floor(opts.autocheckpointPages)}`)
      if (opts.readOnly) await client.execute('PRAGMA query_only = ON')
    } catch (e) {
      client.close()
      throw e
    }
    return client
  }
  const conn = await connect()
  let direct: DirectReads | undefined
  try {
    // a reader thread's reads go straight through the driver (DirectReads), on a connection of their own to the
    // file the client opened (as SQLite names it: the URL's own decoding is the client's business)
    if (opts.readOnly && local) {
      const main = (await conn.execute('PRAGMA database_list')).rows.find((r) => r.name === 'main')
      if (typeof main?.file === 'string' && main.file)
        direct = DirectReads.open(main.file, LOCAL_PRAGMAS)
    }
  } catch (e) {
    conn.close()
    throw e
  }
  const db = new LocalDb(conn, local, local ? connect : undefined, direct)
  if (!opts.readOnly && local) await convertAtOpen(conn, VACUUM_AT_OPEN_MAX_BYTES)
  if (!opts.readOnly) await migrate(db, migrationsDir)
  return db
}

function defaultMigrationsDir() {
  return join(dirname(fileURLToPath(import.meta.url)), 'migrations')
}

/** Applies every `NNN_name.sql` not yet recorded in `schema_migrations`, each in one transaction. */
export async function migrate(db: Db, dir: string): Promise<string[]> {
  await db.run(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
  )
  const done = new Set(
    (await db.all('SELECT version FROM schema_migrations')).map((r) => Number(r.version)),
  )
  const files = readdirSync(dir)
    .filter((f) => /^\d+_.+\.sql$/.test(f))
    .sort()
  const applied: string[] = []
  for (const file of files) {
    const version = Number(file.split('_')[0])
    if (done.has(version)) continue
    const statements = splitSql(readFileSync(join(dir, file), 'utf8'))
    await db.batch([
      ...statements,
      {
        sql: 'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
        args: [version, file, Date.now()],
      },
    ])
    applied.push(file)
  }
  return applied
}

/** Splits a migration file on semicolons at line ends (our migrations hold no triggers or string literals with them). */
function splitSql(text: string): string[] {
  return text
    .replace(/--.*$/gm, '')
    .split(/;\s*$/m)
    .map((s) => s.trim())
    .filter(Boolean)
}
