/**
 * Giving a file's free pages back to the file system (SQLite's incremental vacuum).
 *
 * SQLite keeps the pages a DELETE frees on the file's freelist and reuses them for later writes: the file never
 * shrinks (a backfill of 1,000,000 values compacted to 1.14 bytes a value in pages in use left the file at 17.8).
 * With `auto_vacuum = INCREMENTAL`, `PRAGMA incremental_vacuum(N)` moves up to N pages from the end of the file into
 * free ones and cuts the end off; in WAL mode the file shrinks when the checkpoint after it completes. The mode is
 * fixed when the file's first page is written: `PRAGMA auto_vacuum = INCREMENTAL` must come before
 * `journal_mode = WAL` (which writes it), and a file created without it (NONE, as every file of earlier versions)
 * takes it only through a full VACUUM (convertAtOpen).
 *
 * Pitfall: `@libsql/client` 0.18's `execute()` runs `incremental_vacuum` with its driver's `run()` (the pragma names
 * no columns, though it answers a row per page), which steps it once: one page is freed and the statement stays
 * open, and with it its write transaction, so nothing the connection writes afterwards is committed (it is gone
 * after close). `executeMultiple()` runs it to its end (test/store/telemetry-vacuum.test.ts reads back what was
 * written after it).
 */
import type { Client } from '@libsql/client'

/** The pragma to run before `journal_mode = WAL` on every connection (on an existing file it changes nothing). */
export const AUTO_VACUUM_PRAGMA = 'PRAGMA auto_vacuum = INCREMENTAL'

/** SQLite's `auto_vacuum` values. */
const INCREMENTAL = 2

/** A file's pages: all of them (the WAL's included), the free ones, a page's bytes, its auto_vacuum mode. */
export interface FileSpace {
  pages: number
  free: number
  pageSize: number
  autoVacuum: number
}

/** What reclaiming did: pages given back, in how many steps (lock holds), the longest step's time. */
export interface Reclaimed {
  pages: number
  steps: number
  longestStepMs: number
}

/** Free pages below which nothing is given back (256 KiB of 4 KiB pages): later writes reuse them. */
const MIN_FREE_PAGES = 64

export async function fileSpace(client: Client): Promise<FileSpace> {
  const [pages, free, size, mode] = await client.batch(
    ['PRAGMA page_count', 'PRAGMA freelist_count', 'PRAGMA page_size', 'PRAGMA auto_vacuum'],
    'read',
  )
  const n = (r: typeof pages) => Number(r!.rows[0]![0])
  return { pages: n(pages), free: n(free), pageSize: n(size), autoVacuum: n(mode) }
}

/**
 * The pages to give back: none unless the file vacuums incrementally and at least a quarter of it (and
 * MIN_FREE_PAGES) is free; then all but an eighth of the file, which later writes reuse (ingest's write-ahead rows
 * come and go between flushes: giving those back would only grow the file again). The file then stays within
 * 4/3 of its pages in use, or MIN_FREE_PAGES above them.
 */
export function pagesToReclaim(s: FileSpace): number {
  if (s.autoVacuum !== INCREMENTAL || s.free < MIN_FREE_PAGES || s.free * 4 < s.pages) return 0
  return s.free - Math.floor((s.pages - s.free) / 7)
}

/**
 * Gives up to `pages` free pages back (see the pitfall above), a write transaction of its own; answers how many
 * it gave (fewer: the freelist ran out).
 */
export async function vacuumStep(client: Client, pages: number): Promise<number> {
  const before = await freePages(client)
  if (before === 0) return 0
  await client.executeMultiple(`PRAGMA incremental_vacuum(${Math.max(1, Math.floor(pages))})`)
  return before - (await freePages(client))
}

const freePages = async (client: Client) =>
  Number((await client.execute('PRAGMA freelist_count')).rows[0]![0])

/**
 * A file of an earlier version (auto_vacuum NONE) gets INCREMENTAL by one VACUUM, when its pages in use hold at
 * most `maxBytes` (the VACUUM copies them: ~90 MB/s on a 2-core machine, the opening waits; the disk needs their
 * size twice, the copy going through the WAL). A larger file keeps NONE (reclaiming gives nothing back) until it
 * is opened once with a larger `maxBytes`. Answers the mode the file has now. The connection must be the file's
 * only user (the store's open).
 */
export async function convertAtOpen(client: Client, maxBytes: number): Promise<number> {
  const s = await fileSpace(client)
  if (s.autoVacuum === INCREMENTAL || (s.pages - s.free) * s.pageSize > maxBytes)
    return s.autoVacuum
  await client.execute(AUTO_VACUUM_PRAGMA) // the mode the VACUUM writes
  await client.execute('VACUUM')
  await client.execute('PRAGMA wal_checkpoint(TRUNCATE)') // the copy, now in the WAL, into the file
  return (await fileSpace(client)).autoVacuum
}
