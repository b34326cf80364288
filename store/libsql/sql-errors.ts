/** True when a libSQL error is a UNIQUE or PRIMARY KEY violation. */
export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; extendedCode?: string; message?: string }
  return (
    err?.extendedCode === 'SQLITE_CONSTRAINT_UNIQUE' ||
    err?.extendedCode === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    /UNIQUE constraint failed/.test(err?.message ?? '')
  )
}

/** The `table.column` list a UNIQUE violation names, e.g. ['devices.device_id']. */
export function uniqueColumns(e: unknown): string[] {
  const m = /UNIQUE constraint failed: ([\w., ]+)/.exec((e as Error)?.message ?? '')
  return m ? m[1]!.split(',').map((s) => s.trim()) : []
}

/** True when a libSQL error is a FOREIGN KEY violation. */
export function isForeignKeyViolation(e: unknown): boolean {
  return /FOREIGN KEY constraint failed/.test((e as Error)?.message ?? '')
}
