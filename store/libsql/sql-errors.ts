import { Conflict, Referenced, StoreError } from '../errors.ts'

/** The driver's error: `e` itself, or the cause of a store error Db made of it. */
function driverError(
  e: unknown,
): { code?: unknown; extendedCode?: string; message?: string } | undefined {
  const err = e instanceof StoreError && e.cause !== undefined ? e.cause : e
  return err !== null && typeof err === 'object' ? err : undefined
}

/** True when a libSQL error (or the Conflict Db made of it) is a UNIQUE or PRIMARY KEY violation. */
export function isUniqueViolation(e: unknown): boolean {
  const err = driverError(e)
  return (
    err?.extendedCode === 'SQLITE_CONSTRAINT_UNIQUE' ||
    err?.extendedCode === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    /UNIQUE constraint failed/.test(err?.message ?? '')
  )
}

/** The `table.column` list a UNIQUE violation names, e.g. ['devices.device_id']. */
export function uniqueColumns(e: unknown): string[] {
  const m = /UNIQUE constraint failed: ([\w., ]+)/.exec(driverError(e)?.message ?? '')
  return m ? m[1]!.split(',').map((s) => s.trim()) : []
}

/**
 * True when a libSQL error leaves its local connection unusable: a statement that met SQLITE_BUSY (another
 * connection, e.g. another process, held the write lock longer than busy_timeout) stays unfinished in
 * @libsql/client, and every later COMMIT on that connection fails with "SQL statements in progress", even
 * after the lock is gone. Only a new connection recovers (LocalDb and the telemetry store reopen theirs).
 */
export function wedgesConnection(e: unknown): boolean {
  const err = driverError(e)
  return (
    err?.code === 'SQLITE_BUSY' ||
    /database is locked|SQL statements in progress/.test(err?.message ?? '')
  )
}

/** True when a libSQL error is a FOREIGN KEY violation. */
export function isForeignKeyViolation(e: unknown): boolean {
  return /FOREIGN KEY constraint failed/.test(driverError(e)?.message ?? '')
}

/** `device_id` → `deviceID`, `product_name` → `productName`: a column's wire name, by the house convention. */
function wireName(column: string): string {
  return column
    .replace(/_id$/, 'ID')
    .replace(/_ip$/, 'IP')
    .replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
}

/**
 * A driver error → the store error it means: a FOREIGN KEY violation is Referenced (a record is still used, or
 * a write names one that is gone), a UNIQUE violation Conflict on the last column it names. The driver's error
 * stays as `cause`, so a repository can still tell which constraint failed (isUniqueViolation, uniqueColumns).
 * Anything else is returned as is.
 */
export function storeErrorOf(e: unknown): unknown {
  if (e instanceof StoreError) return e
  if (isForeignKeyViolation(e))
    return Object.assign(new Referenced('ids', 'the record is still in use'), { cause: e })
  if (isUniqueViolation(e)) {
    const column = uniqueColumns(e).at(-1)?.split('.').pop()
    return Object.assign(new Conflict(column ? wireName(column) : 'id'), { cause: e })
  }
  return e
}
