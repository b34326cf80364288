/**
 * The database file of the embedded telemetry store: connection settings, schema (versioned by a row in `meta`),
 * start-up state and the multi-row statements the store issues.
 */
import { createLocalClient as createClient, type Client, type InStatement } from '../libsql/db.ts'
import { createHash } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { KIND_TIMES_SHARED, type EncodedChunk } from './codec.ts'
import { incrementalIfNew } from '../libsql/vacuum.ts'

/** Chunks never cross an hour boundary: compaction merges a series' chunks of one hour into one. */
export const BUCKET_MS = 3_600_000
export const bucketOf = (t: number) => Math.floor(t / BUCKET_MS) * BUCKET_MS

/**
 * 1: chunks without statistics; 2: chunks keep vmin, vmax, vsum, vcnt (null in rows written by version 1);
 * 3: series keep product_id, the product of the device's latest write (null in rows of version 2 until the device
 * is written again). 4: chunks may be packed (codec.ts KIND_PACKED, KIND_TIMES_PACKED; older chunks read
 * as before): a version 3 reader would misread them, so it refuses the file. 5: rollups (rollups.ts)
 * and chunks.rolled (1: the chunk's values are in the rollups); a version 4 file's chunks are all rolled up after
 * the upgrade, in the background, by compaction. 6: time columns shared (`chunk_times`, KIND_TIMES_SHARED): a
 * version 5 reader would misread such chunks' times, so it refuses the file; older chunks read as before. 7: value
 * packs (`chunk_packs`: compaction's chunks keep their values in one blob per device and hour, chunks.pack naming
 * it); a version 6 reader would find such chunks' `vals` empty, so it refuses the file.
 */
export const SCHEMA_VERSION = 7

/**
 * Chunks whose times are shared (codec.ts KIND_TIMES_SHARED) keep in `times` the 16-byte hash of a row of
 * `chunk_times`, whose `bytes` are the time blob. The series of a device written by the same messages have the same
 * times: an hour of 10 data points keeps its time column once instead of 10 times. Blobs shorter than
 * SHARED_TIMES_MIN_BYTES stay inline (a flush's chunks of a few values, regular series' 16 bytes), where a hash
 * would cost more than it saves.
 */
const SHARED_TIMES_MIN_BYTES = 64

/**
 * The time blob of a `chunks` row, inline or shared, as an SQL expression over the row's columns (unqualified:
 * `chunk_times` has neither a `times` nor a `kind` column, so they bind to the chunk).
 */
export const CHUNK_TIMES_SQL = `CASE WHEN kind & ${KIND_TIMES_SHARED} THEN (SELECT bytes FROM chunk_times WHERE hash = times) ELSE times END`

/**
 * Value packs. A chunk compaction writes for a past hour keeps its values in a `chunk_packs` row holding the
 * values of every chunk of the same device and hour compacted together, at [pack_off, pack_off + pack_len); its
 * own `vals` is empty (compact.ts sliceByDevice: the current hour's merges stay inline). Why: SQLite
 * keeps a row larger than a page partly in its leaf page and the rest in overflow pages, and a leaf page holds only
 * one such row, so an hour of one series (a few KB) filled its pages to ~75%; a device's hour of all its series is
 * one larger row of full overflow pages. `refs` counts the chunks naming the pack: the
 * chunk_packs_release trigger drops it with its last chunk (retention, device deletion, compaction). A chunk
 * merged again (a late value in a past hour) leaves its old bytes in the old pack until the pack's other chunks go.
 */
export const CHUNK_VALS_SQL = `CASE WHEN pack IS NULL THEN vals ELSE substr((SELECT bytes FROM chunk_packs WHERE id = pack), pack_off + 1, pack_len) END`

/**
 * WAL journal + synchronous NORMAL: a committed transaction survives kill -9 of the process (not a power cut).
 * The client gets one connection (`concurrency: 1`), so these per-connection settings cannot silently revert
 * on a second connection; `client.transaction()` is never used. A new file vacuums incrementally (incrementalIfNew,
 * before these). The `-wal` file is cut back to 4 MiB when it starts over after a complete checkpoint: a backfill
 * of 1,000,000 values left it at 24 MB until the next clean stop.
 */
const PRAGMAS = [
  'PRAGMA journal_mode = WAL',
  'PRAGMA synchronous = NORMAL',
  `PRAGMA journal_size_limit = ${4 * 2 ** 20}`,
]

/** How long a statement waits for a write lock another connection holds before it fails (SQLITE_BUSY). */
export const BUSY_TIMEOUT_MS = 5000

const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)',
  `CREATE TABLE IF NOT EXISTS series (id INTEGER PRIMARY KEY AUTOINCREMENT, tenant_id TEXT NOT NULL,
     device_id TEXT NOT NULL, data_point_id TEXT NOT NULL, product_id TEXT,
     UNIQUE (tenant_id, device_id, data_point_id))`,
  'CREATE TABLE IF NOT EXISTS wal (id INTEGER PRIMARY KEY, data BLOB NOT NULL)',
  `CREATE TABLE IF NOT EXISTS chunks (id INTEGER PRIMARY KEY, series_id INTEGER NOT NULL, t_start INTEGER NOT NULL,
     t_end INTEGER NOT NULL, n INTEGER NOT NULL, seq INTEGER NOT NULL, kind INTEGER NOT NULL, times BLOB NOT NULL,
     vals BLOB NOT NULL, vmin REAL, vmax REAL, vsum REAL, vcnt INTEGER, rolled INTEGER NOT NULL DEFAULT 0,
     pack INTEGER, pack_off INTEGER, pack_len INTEGER)`,
  'CREATE INDEX IF NOT EXISTS chunks_series_start ON chunks (series_id, t_start)',
  // shared time blobs: `refs` counts the chunks naming `hash`; whoever inserts a chunk adds its reference in the
  // same transaction (insertChunks), and every delete of a chunk, whatever its path, drops it here
  `CREATE TABLE IF NOT EXISTS chunk_times (id INTEGER PRIMARY KEY, hash BLOB NOT NULL UNIQUE,
     refs INTEGER NOT NULL, bytes BLOB NOT NULL)`,
  `CREATE TRIGGER IF NOT EXISTS chunk_times_release AFTER DELETE ON chunks WHEN old.kind & ${KIND_TIMES_SHARED}
     BEGIN
       UPDATE chunk_times SET refs = refs - 1 WHERE hash = old.times;
       DELETE FROM chunk_times WHERE hash = old.times AND refs <= 0;
     END`,
  // value packs (CHUNK_VALS_SQL); their release trigger is created after the upgrades (AFTER_UPGRADES)
  'CREATE TABLE IF NOT EXISTS chunk_packs (id INTEGER PRIMARY KEY, refs INTEGER NOT NULL, bytes BLOB NOT NULL)',
  `CREATE TABLE IF NOT EXISTS rollups (series_id INTEGER NOT NULL, tier INTEGER NOT NULL, t_start INTEGER NOT NULL,
     data BLOB NOT NULL, PRIMARY KEY (series_id, tier, t_start)) WITHOUT ROWID`,
  'CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)',
  `INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ${SCHEMA_VERSION}), ('seq', 0)`,
]

/**
 * The statements taking a file from the version before each key to that version: version 1 files get the
 * statistics columns (their old chunks keep nulls there and are decoded when aggregated); version 2 files get the
 * series' product (null until the device is written again: deleteDataPoint cannot match such series before).
 */
const UPGRADES: ReadonlyArray<readonly [number, readonly string[]]> = [
  [
    2,
    ['vmin REAL', 'vmax REAL', 'vsum REAL', 'vcnt INTEGER'].map(
      (c) => `ALTER TABLE chunks ADD COLUMN ${c}`,
    ),
  ],
  [3, ['ALTER TABLE series ADD COLUMN product_id TEXT']],
  [4, []],
  [5, ['ALTER TABLE chunks ADD COLUMN rolled INTEGER NOT NULL DEFAULT 0']],
  [6, []],
  [
    7,
    ['pack INTEGER', 'pack_off INTEGER', 'pack_len INTEGER'].map(
      (c) => `ALTER TABLE chunks ADD COLUMN ${c}`,
    ),
  ],
]

/**
 * Schema naming columns an upgrade adds: created once the upgrades ran (SQLite accepts a trigger naming a column
 * the table lacks, then fails every DELETE it fires on).
 */
const AFTER_UPGRADES = [
  `CREATE TRIGGER IF NOT EXISTS chunk_packs_release AFTER DELETE ON chunks WHEN old.pack IS NOT NULL
     BEGIN
       UPDATE chunk_packs SET refs = refs - 1 WHERE id = old.pack;
       DELETE FROM chunk_packs WHERE id = old.pack AND refs <= 0;
     END`,
]

/** A connection to the file with the settings applied (no schema: see openTelemetryClient). */
export async function connectTelemetry(
  url: string,
  busyTimeoutMs = BUSY_TIMEOUT_MS,
  autocheckpointPages?: number,
): Promise<Client> {
  const client = createClient({ url, intMode: 'number', concurrency: 1 })
  try {
    await incrementalIfNew(client)
    for (const p of PRAGMAS) await client.execute(p)
    await client.execute(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`)
    if (autocheckpointPages !== undefined)
      await client.execute(`PRAGMA wal_autocheckpoint = ${Math.floor(autocheckpointPages)}`)
  } catch (e) {
    client.close()
    throw e
  }
  return client
}

/** Opens the file (creating its directory), applies the settings and the schema, refuses a newer schema. */
export async function openTelemetryClient(
  url: string,
  busyTimeoutMs = BUSY_TIMEOUT_MS,
  autocheckpointPages?: number,
): Promise<Client> {
  if (url.startsWith('file:')) {
    const path = url.slice('file:'.length)
    if (path && path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  }
  const client = await connectTelemetry(url, busyTimeoutMs, autocheckpointPages)
  try {
    await client.batch(SCHEMA, 'write')
    const v = await client.execute("SELECT value FROM meta WHERE key = 'schema_version'")
    const version = Number(v.rows[0]?.value)
    if (version > SCHEMA_VERSION)
      throw new Error(
        `telemetry database ${url} has schema ${version}, newer than ${SCHEMA_VERSION}`,
      )
    const steps = UPGRADES.filter(([to]) => to > version).flatMap(([, sql]) => sql)
    await client.batch(
      steps.length
        ? [
            ...steps,
            `UPDATE meta SET value = ${SCHEMA_VERSION} WHERE key = 'schema_version'`,
            ...AFTER_UPGRADES,
          ]
        : AFTER_UPGRADES,
      'write',
    )
    return client
  } catch (e) {
    client.close()
    throw e
  }
}

export interface SeriesRow {
  id: number
  tenantID: string
  deviceID: string
  dataPointID: string
  /** The product of the device's latest write; null in series of version 2 files not written since. */
  productID: string | null
}

/** What start-up needs: every series, the next series id and chunk seq, the WAL rows in order. */
export interface StoredState {
  series: SeriesRow[]
  nextSeriesId: number
  seq: number
  wal: ArrayBuffer[]
  /** (series, hour) buckets holding more than one chunk or chunks not rolled up: compaction candidates. */
  crowded: Array<{ seriesId: number; bucket: number; chunks: number }>
}

export async function loadState(client: Client): Promise<StoredState> {
  const [series, next, seq, wal, crowded] = await client.batch(
    [
      'SELECT id, tenant_id, device_id, data_point_id, product_id FROM series',
      "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'series'), 0) AS last",
      "SELECT value FROM meta WHERE key = 'seq'",
      'SELECT data FROM wal ORDER BY id',
      `SELECT series_id, t_start - ((t_start % ${BUCKET_MS}) + ${BUCKET_MS}) % ${BUCKET_MS} AS bucket, count(*) AS c,
         sum(rolled = 0) AS u FROM chunks GROUP BY series_id, bucket HAVING c > 1 OR u > 0`,
    ],
    'read',
  )
  return {
    series: series!.rows.map((r) => ({
      id: Number(r[0]),
      tenantID: r[1] as string,
      deviceID: r[2] as string,
      dataPointID: r[3] as string,
      productID: r[4] as string | null,
    })),
    nextSeriesId: Number(next!.rows[0]![0]) + 1,
    seq: Number(seq!.rows[0]?.[0] ?? 0),
    wal: wal!.rows.map((r) => r[0] as ArrayBuffer),
    crowded: crowded!.rows.map((r) => ({
      seriesId: Number(r[0]),
      bucket: Number(r[1]),
      chunks: Number(r[2]),
    })),
  }
}

const ROWS_PER_INSERT = 200

/** Multi-row INSERTs of new series rows (explicit ids). */
export function insertSeries(rows: readonly SeriesRow[]): InStatement[] {
  const out: InStatement[] = []
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const part = rows.slice(i, i + ROWS_PER_INSERT)
    out.push({
      sql: `INSERT INTO series (id, tenant_id, device_id, data_point_id, product_id)
            VALUES ${part.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
      args: part.flatMap((r) => [r.id, r.tenantID, r.deviceID, r.dataPointID, r.productID]),
    })
  }
  return out
}

/** Whether a chunk's time blob is worth sharing (see KIND_TIMES_SHARED). */
const sharesTimes = (timesBytes: number) => timesBytes >= SHARED_TIMES_MIN_BYTES

/** A chunk to insert: its series, its seq, and (compaction's chunks) the key of the value pack it joins. */
export interface NewChunk {
  seriesId: number
  chunk: EncodedChunk
  seq: number
  /** Chunks of one key share a value pack (CHUNK_VALS_SQL): compaction gives the device and hour. */
  pack?: string
}

/**
 * Multi-row INSERTs of chunks. Compaction's chunks (`packIds`: merged, their values already in the rollups, kept
 * until retention) share their time blobs of at least SHARED_TIMES_MIN_BYTES: one `chunk_times` row per distinct
 * blob, its reference count raised by the chunks naming it, and the chunks keep its hash. They also keep their
 * values in packs: one `chunk_packs` row per `pack` key, with ids from `packIds.next` on (the caller holds the
 * store's lock and read the greatest id in use). A flush's chunks keep both blobs inline: compaction replaces them
 * within the hour, so sharing them would be work for nothing. The statements run in one transaction (the caller's
 * batch), in any order relative to the deletes it holds: a blob whose count a delete takes to 0 is written again
 * here, and a pack's id is above every id in use, released or not.
 */
export function insertChunks(
  chunks: readonly NewChunk[],
  packIds?: { next: number },
): InStatement[] {
  const out: InStatement[] = []
  const shared = new Map<string, { hash: Uint8Array; bytes: Uint8Array; refs: number }>()
  const packs = new Map<string, { id: number; parts: Uint8Array[]; bytes: number; refs: number }>()
  const rows = chunks.map(({ seriesId, chunk, seq, pack: key }) => {
    if (!packIds) return { seriesId, chunk, seq }
    let c = chunk
    if (sharesTimes(chunk.times.length)) {
      const hash = new Uint8Array(createHash('sha256').update(chunk.times).digest().subarray(0, 16))
      const hex = Buffer.from(hash).toString('hex')
      const entry = shared.get(hex)
      if (entry) entry.refs++
      else shared.set(hex, { hash, bytes: chunk.times, refs: 1 })
      c = { ...c, kind: c.kind | KIND_TIMES_SHARED, times: hash }
    }
    if (key === undefined) return { seriesId, chunk: c, seq }
    let pack = packs.get(key)
    if (!pack) packs.set(key, (pack = { id: packIds.next++, parts: [], bytes: 0, refs: 0 }))
    const at = { pack: pack.id, off: pack.bytes, len: c.vals.length }
    pack.parts.push(c.vals)
    pack.bytes += c.vals.length
    pack.refs++
    return { seriesId, chunk: { ...c, vals: EMPTY }, seq, at }
  })
  const blobs = [...shared.values()]
  for (let i = 0; i < blobs.length; i += ROWS_PER_INSERT) {
    const part = blobs.slice(i, i + ROWS_PER_INSERT)
    out.push({
      sql: `INSERT INTO chunk_times (hash, refs, bytes) VALUES ${part.map(() => '(?, ?, ?)').join(', ')}
            ON CONFLICT (hash) DO UPDATE SET refs = refs + excluded.refs`,
      args: part.flatMap((b) => [b.hash, b.refs, b.bytes]),
    })
  }
  // one pack a statement: a device's hour is tens of KB
  for (const p of packs.values())
    out.push({
      sql: 'INSERT INTO chunk_packs (id, refs, bytes) VALUES (?, ?, ?)',
      args: [p.id, p.refs, Buffer.concat(p.parts)],
    })
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const part = rows.slice(i, i + ROWS_PER_INSERT)
    out.push({
      sql: `INSERT INTO chunks (series_id, t_start, t_end, n, seq, kind, times, vals, vmin, vmax, vsum, vcnt, rolled,
              pack, pack_off, pack_len)
            VALUES ${part.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      args: part.flatMap(({ seriesId, chunk: c, seq, at }) => [
        seriesId,
        c.tStart,
        c.tEnd,
        c.n,
        seq,
        c.kind,
        c.times,
        c.vals,
        c.stats.min,
        c.stats.max,
        c.stats.sum,
        c.stats.count,
        packIds ? 1 : 0,
        at?.pack ?? null,
        at?.off ?? null,
        at?.len ?? null,
      ]),
    })
  }
  return out
}

const EMPTY = new Uint8Array(0)

/** Every series of a device now belongs to `productID` (the device was written under another product). */
export function moveSeries(tenantID: string, deviceID: string, productID: string): InStatement {
  return {
    sql: 'UPDATE series SET product_id = ? WHERE tenant_id = ? AND device_id = ?',
    args: [productID, tenantID, deviceID],
  }
}

/**
 * One DELETE per series of its chunks whose last value is older than `before` (chunks_series_start bounds the
 * walk to the series), each answering the value counts it removed.
 */
export function deleteChunksBefore(
  due: ReadonlyArray<readonly [seriesId: number, before: number]>,
): InStatement[] {
  return due.map(([seriesId, before]) => ({
    sql: 'DELETE FROM chunks WHERE series_id = ? AND t_start < ? AND t_end < ? RETURNING n',
    args: [seriesId, before, before],
  }))
}

/** Ids per DELETE: far below SQLite's limit of bound parameters. */
const IDS_PER_DELETE = 500

/** DELETEs of some series and every chunk of theirs (their WAL values are skipped on replay: unknown ids). */
export function deleteSeries(ids: readonly number[]): InStatement[] {
  const out: InStatement[] = []
  for (let i = 0; i < ids.length; i += IDS_PER_DELETE) {
    const part = ids.slice(i, i + IDS_PER_DELETE)
    out.push(
      { sql: `DELETE FROM chunks WHERE series_id IN (${marks(part.length)})`, args: part },
      { sql: `DELETE FROM rollups WHERE series_id IN (${marks(part.length)})`, args: part },
      { sql: `DELETE FROM series WHERE id IN (${marks(part.length)})`, args: part },
    )
  }
  return out
}

/** `?, ?, ?` for n arguments. */
export const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ')
