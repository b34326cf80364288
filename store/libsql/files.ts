/**
 * Whole-file checks of a libSQL database for backups and restores (store/backups.ts): whether a copy reads back
 * whole, whether a process still has a database open, and which firmware files a copy names.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import Database from 'libsql'

/** `PRAGMA quick_check` of the file at `path`: 'ok', or what is wrong (missing, not a database, damaged pages). */
export function checkDatabase(path: string): string {
  if (!existsSync(path)) return 'missing'
  let db: InstanceType<typeof Database> | undefined
  try {
    db = new Database(path)
    db.exec('PRAGMA query_only = ON')
    const rows = db.prepare('PRAGMA quick_check').all() as Array<{ quick_check: string }>
    const found = rows.map((r) => r.quick_check)
    return found.length === 1 && found[0] === 'ok' ? 'ok' : found.join('; ')
  } catch (e) {
    return e instanceof Error ? e.message : String(e)
  } finally {
    db?.close()
  }
}

/**
 * True when a process has the database at `path` open: a running service holds its files open, and SQLite keeps a
 * lock on the `-shm` file (its dead-man byte) for as long as a connection is open in WAL mode. On Linux the kernel's
 * lock table (/proc/locks) answers without touching the database (a lock on the database file alone, which a
 * closed @libsql/client connection may leave behind in its process, is no open connection); elsewhere an exclusive
 * lock is tried. A missing file is not in use.
 */
export function databaseInUse(path: string): boolean {
  if (!existsSync(path)) return false
  if (existsSync('/proc/locks')) {
    const held = new Set(
      readFileSync('/proc/locks', 'utf8')
        .split('\n')
        .map((line) => line.trim().split(/\s+/)[5])
        .filter((id) => id !== undefined),
    )
    const shm = `${path}-shm`
    return existsSync(shm) && held.has(lockId(shm))
  }
  let db: InstanceType<typeof Database> | undefined
  try {
    db = new Database(path, { timeout: 0 })
    db.exec('PRAGMA locking_mode = EXCLUSIVE')
    db.exec('BEGIN EXCLUSIVE')
    db.exec('COMMIT')
    return false
  } catch (e) {
    const code = (e as { code?: string }).code ?? ''
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return true
    throw e
  } finally {
    db?.close()
  }
}

/** The package files the `firmware` rows of a metadata database file name (none when it has no such table). */
export function firmwareFilesOf(path: string): string[] {
  const db = new Database(path, { readonly: true })
  try {
    const table = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'firmware'")
      .get()
    if (!table) return []
    return (db.prepare('SELECT file FROM firmware').all() as Array<{ file: string }>).map(
      (r) => r.file,
    )
  } finally {
    db.close()
  }
}

/** A file as /proc/locks names it: `major:minor:inode`, the device numbers in hex. */
function lockId(path: string): string {
  const { dev, ino } = statSync(path)
  const major = Math.floor(dev / 256) & 0xfff
  const minor = (dev & 0xff) | (Math.floor(dev / 4096) & ~0xff)
  const hex = (n: number) => n.toString(16).padStart(2, '0')
  return `${hex(major)}:${hex(minor)}:${ino}`
}
