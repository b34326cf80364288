/**
 * Giving a file's free pages back to the file system (SQLite's incremental vacuum).
 *
 * SQLite keeps the pages a DELETE frees on the file's freelist and reuses them for later writes: the file never
 * shrinks (a telemetry backfill of 1,000,000 values compacted to 1.3 bytes a value in pages in use left the file at
 * 22.6, bench/storage.bench.ts part 3; retention's deletes of events leave devicecloud.db as large as before).
 * Used by the telemetry store (LibsqlTelemetryStore.reclaim, paced steps) and the metadata database (Db.reclaim,
 * steps of the retention job).
 *
 * With `auto_vacuum = INCREMENTAL`, `PRAGMA incremental_vacuum(N)` moves up to N pages from the end of the file into
 * free ones and cuts the end off; in WAL mode the file shrinks when the checkpoint after it completes. The mode is
 * fixed when the file's first page is written: `PRAGMA auto_vacuum = INCREMENTAL` must come before
 * `journal_mode = WAL` (which writes it: incrementalIfNew), and a file created without it (NONE, as every file of
 * earlier versions) takes it only through a full VACUUM (convertAtOpen).
 *
 * Pitfall: `@libsql/client` 0.18's `execute()` runs `incremental_vacuum` with its driver's `run()` (the pragma names
 * no columns, though it answers a row per page), which steps it once: one page is freed and the statement stays
 * open, and with it its write transaction, so nothing the connection writes afterwards is committed (it is gone
 * after close). `executeMultiple()` runs it to its end (test/store/telemetry-vacuum.test.ts reads back what was
 * written after it).
 */
import { createClient, type Client } from '@libsql/client/sqlite3'
import { existsSync, statSync } from 'node:fs'

const AUTO_VACUUM_PRAGMA = 'PRAGMA auto_vacuum = INCREMENTAL'

/**
 * A new (empty) file vacuums incrementally: run before `journal_mode = WAL`. Nothing on an existing file: there the
 * pragma changes nothing on a NONE file, and on an INCREMENTAL one it writes the header again, a write transaction
 * on every connection's open (failing at once, before busy_timeout is set, while another connection writes).
 */
export async function incrementalIfNew(client: Client): Promise<void> {
  if (Number((await client.execute('PRAGMA page_count')).rows[0]![0]) === 0)
    await client.execute(AUTO_VACUUM_PRAGMA)
}

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
 * A file of an earlier version (auto_vacuum NONE) gets INCREMENTAL by one VACUUM (convert), when its pages in use
 * hold at most `maxBytes`: the opening waits for it. A larger file keeps NONE (reclaiming gives nothing back) until
 * `npm run vacuum` converts it (vacuumFile). Best effort: a VACUUM that fails (a full disk, another connection
 * writing) leaves the file as it was. Answers the mode the file has now.
 */
export async function convertAtOpen(client: Client, maxBytes: number): Promise<number> {
  const s = await fileSpace(client)
  if (s.autoVacuum === INCREMENTAL || (s.pages - s.free) * s.pageSize > maxBytes)
    return s.autoVacuum
  try {
    await convert(client)
  } catch {
    // a full disk, another process holding the file: it keeps NONE (rolled back) until the next open
  }
  return (await fileSpace(client)).autoVacuum
}

/**
 * One VACUUM setting INCREMENTAL: it copies the pages in use (~90 MB/s on a 2-core machine) and holds the write
 * lock meanwhile; the disk needs their size twice (the copy goes through the WAL, then into the file).
 */
async function convert(client: Client) {
  await client.execute(AUTO_VACUUM_PRAGMA) // the mode the VACUUM writes
  await client.execute('VACUUM')
  await client.execute('PRAGMA wal_checkpoint(TRUNCATE)') // the copy, now in the WAL, into the file
}

/**
 * `npm run vacuum`, with the service stopped: a local file (`file:` URL) of any size gets INCREMENTAL (convert)
 * if it has not, else every free page given back at once. Answers its bytes before and after, or undefined when
 * there is no such file. Fails (SQLITE_BUSY) when another process writes it.
 */
export async function vacuumFile(
  url: string,
): Promise<{ before: number; after: number } | undefined> {
  const path = url.slice('file:'.length)
  if (!existsSync(path)) return undefined
  const before = statSync(path).size
  const client = createClient({ url, intMode: 'number', concurrency: 1 })
  try {
    await client.execute('PRAGMA busy_timeout = 1000')
    if ((await fileSpace(client)).autoVacuum === INCREMENTAL) {
      await client.executeMultiple('PRAGMA incremental_vacuum')
      await client.execute('PRAGMA wal_checkpoint(TRUNCATE)')
    } else await convert(client)
  } finally {
    client.close()
  }
  return { before, after: statSync(path).size }
}
