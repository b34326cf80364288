import Database from 'libsql'
import { LibsqlError, type InArgs, type InValue } from '@libsql/client/sqlite3'

/** One statement's answer: its columns, their declared types, and its rows as arrays of values. */
export interface ReadResult {
  columns: readonly string[]
  columnTypes: readonly string[]
  rows: ReadonlyArray<ArrayLike<unknown>>
}

type Prepared = Database.Statement & {
  raw(on: boolean): Prepared
  safeIntegers(on: boolean): Prepared
  columns(): Array<{ name: string; type: string | null }>
}

/** A SELECT and its arguments (Db's Statement). */
interface Statement {
  sql: string
  args?: InArgs
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER)
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)

/**
 * Reads of a reader thread straight through `libsql`, the driver @libsql/client runs on, on a connection of its own
 * to the same file. The client costs every call ~15 µs around the driver's (its promise, the arguments mapped, the
 * statement's columns read twice, each row rebuilt with a property per cell) and a read transaction three calls
 * more: a device list page's two statements took 153 µs through it and 95 directly. Values and errors are the
 * client's: integers beyond 2^53 refused with its RangeError, BLOBs as ArrayBuffers, a driver error as a
 * LibsqlError with the driver's code; several statements run in one read transaction (BEGIN ... COMMIT).
 */
export class DirectReads {
  private readonly begin: Database.Statement
  private readonly commit: Database.Statement
  private readonly rollback: Database.Statement
  /** Statements set up for this reader (raw rows, exact integers) with their columns. */
  private readonly known = new WeakMap<object, { columns: string[]; types: string[] }>()

  private constructor(private readonly db: Database.Database) {
    this.begin = db.prepare('BEGIN')
    this.commit = db.prepare('COMMIT')
    this.rollback = db.prepare('ROLLBACK')
  }

  /** A read-only connection (`PRAGMA query_only`) to the file at `path`, with `pragmas` run first. */
  static open(path: string, pragmas: readonly string[]): DirectReads {
    const db = new Database(path)
    try {
      for (const p of [...pragmas, 'PRAGMA query_only = ON']) db.exec(p)
      return new DirectReads(db)
    } catch (e) {
      db.close()
      throw libsqlError(e)
    }
  }

  /** The statements' answers, several in one read transaction. */
  read(statements: readonly Statement[]): ReadResult[] {
    try {
      if (statements.length === 1) return [this.one(statements[0]!)]
      this.begin.run()
      try {
        const out = statements.map((s) => this.one(s))
        this.commit.run()
        return out
      } catch (e) {
        try {
          this.rollback.run()
        } catch {
          // no transaction left to roll back
        }
        throw e
      }
    } catch (e) {
      throw libsqlError(e)
    }
  }

  close(): void {
    this.db.close()
  }

  private one({ sql, args }: Statement): ReadResult {
    const stmt = this.db.prepare(sql) as Prepared
    let shape = this.known.get(stmt)
    if (!shape) {
      stmt.safeIntegers(true)
      stmt.raw(true)
      const cols = stmt.columns()
      shape = { columns: cols.map((c) => c.name), types: cols.map((c) => c.type ?? '') }
      this.known.set(stmt, shape)
    }
    const rows = stmt.all(argsOf(args)) as unknown[][]
    for (const row of rows)
      for (let i = 0; i < row.length; i++) {
        const v = row[i]
        if (typeof v === 'bigint') row[i] = numberOf(v)
        else if (v instanceof Buffer) row[i] = v.buffer
      }
    return { columns: shape.columns, columnTypes: shape.types, rows }
  }
}

function numberOf(v: bigint): number {
  if (v < MIN_SAFE || v > MAX_SAFE)
    throw new RangeError(
      'Received integer which cannot be safely represented as a JavaScript number',
    )
  return Number(v)
}

/** Arguments as the client passes them to the driver (named ones without their `:`, `@` or `$`). */
function argsOf(args: InArgs | undefined): unknown {
  if (args === undefined) return []
  if (Array.isArray(args)) return args.map(valueOf)
  const named: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(args)) named[/^[:@$]/.test(k) ? k.slice(1) : k] = valueOf(v)
  return named
}

function valueOf(v: InValue): unknown {
  if (typeof v === 'number' && !Number.isFinite(v))
    throw new RangeError('Only finite numbers (not Infinity or NaN) can be passed as arguments')
  if (typeof v === 'boolean') return v ? 1 : 0
  if (v instanceof ArrayBuffer) return Buffer.from(v)
  if (v instanceof Date) return v.valueOf()
  if (v === undefined) throw new TypeError('undefined cannot be passed as argument to the database')
  return v
}

/**
 * A driver error as the client reports it: a LibsqlError whose code is the base of the driver's (extended) code
 * (`SQLITE_BUSY_RECOVERY` → `SQLITE_BUSY`: every base code is one word), its extendedCode the driver's, the driver's
 * error its cause.
 */
function libsqlError(e: unknown): unknown {
  if (!(e instanceof Database.SqliteError)) return e
  const err = e as Error & { code: string; rawCode?: number }
  const base = err.code.split('_').slice(0, 2).join('_')
  return new LibsqlError(err.message, base, err.code, err.rawCode, err)
}
