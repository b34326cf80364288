/**
 * Compaction of the embedded telemetry store: every flush adds one chunk per series and hour it touched; once an
 * hour is past its chunks are merged into one (rolled up, and packed with its device's hour), duplicates resolved
 * by seq (the later flush wins), so a day of 1 Hz data reads as ~24 rows. While the hour lasts, a bucket that
 * received maxChunksPerBucket chunks since its last merge has those chunks, the newest, merged into one: never the
 * chunks of earlier merges, so a value is merged once while its hour lasts and once when it is past, however long
 * the hour and fast the series (merging the whole hour each time rewrote it over and over: the store's work per
 * value grew through the hour). Merging the newest chunks (the highest seqs) keeps "higher seq = written later"
 * valid: the result takes the highest seq it merged, above every chunk left, below every chunk flushed afterwards.
 */
import type { Client, InStatement, DriverRow as Row } from '../libsql/db.ts'
import { decodeTimes, decodeValues, encodeChunk } from './codec.ts'
import {
  BUCKET_MS,
  CHUNK_TIMES_SQL,
  CHUNK_VALS_SQL,
  insertChunks,
  marks,
  type NewChunk,
} from './file.ts'
import { mergeRuns, type Run } from './memtable.ts'
import { RollupWriter } from './rollups.ts'

export interface Candidate {
  seriesId: number
  bucket: number
  /** Chunks known to be in the bucket (at least; others may predate this process). */
  chunks: number
  /** Of them, those added since the bucket's last merge while its hour lasted (all, for a bucket not merged yet). */
  fresh: number
}

/** Whether a bucket's hour is past: its end plus the grace for late writes is at or before `now`. */
export const isPast = (c: Candidate, now: number, graceMs: number) =>
  c.bucket + BUCKET_MS + graceMs <= now

/** The (series, hour) buckets that received chunks since they were last compacted. */
export class CompactionQueue {
  private map = new Map<string, Candidate>()
  /** Series id → its queued buckets: the hours whose rollups may be behind their chunks. */
  private bySeries = new Map<number, Set<number>>()

  /** Records that a chunk was added to a bucket (or, at start-up, that a bucket holds `chunks`). */
  note(seriesId: number, bucket: number, chunks = 1) {
    const key = `${seriesId}:${bucket}`
    const c = this.map.get(key)
    if (c) {
      c.chunks += chunks
      c.fresh += chunks
    } else {
      this.map.set(key, { seriesId, bucket, chunks, fresh: chunks })
      let set = this.bySeries.get(seriesId)
      if (!set) this.bySeries.set(seriesId, (set = new Set()))
      set.add(bucket)
    }
  }

  /** The queued buckets of a series in [from, to). */
  bucketsOf(seriesId: number, from: number, to: number): number[] {
    const set = this.bySeries.get(seriesId)
    if (!set) return []
    const out: number[] = []
    for (const b of set) if (b + BUCKET_MS > from && b < to) out.push(b)
    return out
  }

  /** Forgets a bucket. */
  private forget(key: string, c: Candidate) {
    this.map.delete(key)
    const set = this.bySeries.get(c.seriesId)
    set?.delete(c.bucket)
    if (set?.size === 0) this.bySeries.delete(c.seriesId)
  }

  /**
   * Buckets to compact now: past ones (end + grace ≤ now), crowded ones (maxChunks added since their last merge),
   * or every one when `all`.
   */
  due(now: number, graceMs: number, maxChunks: number, all: boolean): Candidate[] {
    const out: Candidate[] = []
    for (const c of this.map.values())
      if (all || isPast(c, now, graceMs) || c.fresh >= maxChunks) out.push(c)
    return out
  }

  /**
   * The bucket now holds `chunks` chunks, none of them fresh (the merge took them; it held the store's lock, so none
   * arrived meanwhile); past buckets are forgotten.
   */
  settle(c: Candidate, chunks: number, past: boolean) {
    const key = `${c.seriesId}:${c.bucket}`
    if (past || chunks === 0) this.forget(key, c)
    else this.map.set(key, { ...c, chunks, fresh: 0 })
  }

  get size() {
    return this.map.size
  }
}

const BUCKET_ROWS = `SELECT id, n, seq, kind, ${CHUNK_TIMES_SQL} AS times, ${CHUNK_VALS_SQL} AS vals,
    pack IS NOT NULL AS packed FROM chunks WHERE series_id = ? AND t_start >= ? AND t_start < ?`
/** A bucket's chunks in seq order (the later flush last). */
const SELECT_BUCKET = `${BUCKET_ROWS} ORDER BY seq, id`
/** A bucket's newest ? chunks, in the same order (a merge while the hour lasts). */
const SELECT_NEWEST = `SELECT * FROM (${BUCKET_ROWS} ORDER BY seq DESC, id DESC LIMIT ?) ORDER BY seq, id`

/** Series ids per lookup of their devices (far below SQLite's limit of bound parameters). */
const IDS_PER_LOOKUP = 500

/**
 * Candidates compacted in one transaction, with the key of the value pack each one's chunk joins (undefined: its
 * values stay inline).
 */
export interface CompactionSlice {
  list: Candidate[]
  packs: Array<string | undefined>
}

/**
 * The candidates cut into slices of about `step`, keeping the buckets of one device and hour in the same slice, so
 * that their chunks share one value pack (file.ts CHUNK_VALS_SQL); a device's hour of more than `step`
 * series is a slice of its own. The devices come from the `series` table (a series deleted meanwhile packs alone).
 * Only `packable` buckets (past hours) get a pack: a crowded bucket of the current hour is merged again and again
 * while the hour lasts, and a pack written then would keep the bytes of every merge until all its chunks went.
 */
export async function sliceByDevice(
  client: Client,
  due: readonly Candidate[],
  step: number,
  packable: (c: Candidate) => boolean,
): Promise<CompactionSlice[]> {
  const ids = [...new Set(due.map((c) => c.seriesId))]
  const owner = new Map<number, string>()
  for (let i = 0; i < ids.length; i += IDS_PER_LOOKUP) {
    const part = ids.slice(i, i + IDS_PER_LOOKUP)
    const rs = await client.execute({
      sql: `SELECT id, tenant_id, device_id FROM series WHERE id IN (${marks(part.length)})`,
      args: part,
    })
    for (const r of rs.rows) owner.set(Number(r[0]), `${r[1] as string}\u0000${r[2] as string}`)
  }
  const groups = new Map<string, Candidate[]>()
  for (const c of due) {
    const key = `${owner.get(c.seriesId) ?? `#${c.seriesId}`}\u0000${c.bucket}`
    const g = groups.get(key)
    if (g) g.push(c)
    else groups.set(key, [c])
  }
  const slices: CompactionSlice[] = []
  let cur: CompactionSlice = { list: [], packs: [] }
  for (const [key, g] of groups) {
    if (cur.list.length > 0 && cur.list.length + g.length > step) {
      slices.push(cur)
      cur = { list: [], packs: [] }
    }
    for (const c of g) {
      cur.list.push(c)
      cur.packs.push(packable(c) ? key : undefined)
    }
  }
  if (cur.list.length > 0) slices.push(cur)
  return slices
}

/**
 * Merges the chunks of each candidate bucket into one chunk and rolls the hour up (rollups.ts) in one
 * transaction, for buckets holding several chunks, a chunk not rolled up, or (given a pack) one not packed; the
 * caller holds the store's lock so no flush, delete or other compaction interleaves. The merged chunks of one
 * `packs` key share a value pack. A bucket without a pack (its hour lasts) has only its fresh chunks merged, and
 * is not rolled up: reads take an hour still queued for compaction from its chunks. Returns how many chunks each
 * bucket now has.
 */
export async function compactBuckets(
  client: Client,
  { list, packs }: CompactionSlice,
  tz: string,
): Promise<number[]> {
  const args = (c: Candidate) => [c.seriesId, c.bucket, c.bucket + BUCKET_MS]
  const counts = await client.batch(
    list.map((c) => ({
      sql: `SELECT count(*), coalesce(sum(rolled = 0), 0), coalesce(sum(pack IS NULL), 0) FROM chunks
              WHERE series_id = ? AND t_start >= ? AND t_start < ?`,
      args: args(c),
    })),
    'read',
  )
  const result = list.map((_, i) => Number(counts[i]!.rows[0]![0]))
  /** fresh: merge that many of the newest chunks (the hour lasts); undefined: all, rolled up, packed. */
  type Due = { c: Candidate; k: number; pack: string | undefined; fresh: number | undefined }
  const due = list.flatMap((c, i): Due[] => {
    const row = counts[i]!.rows[0]!
    const [n, unrolled, unpacked] = [Number(row[0]), Number(row[1]), Number(row[2])]
    const pack = packs[i]
    // while the hour lasts: its fresh chunks (all of them, when more arrived than this process counted)
    if (pack === undefined) {
      const fresh = Math.min(c.fresh, n)
      return fresh > 1 ? [{ c, k: i, pack, fresh }] : []
    }
    return n > 1 || unrolled > 0 || unpacked > 0 ? [{ c, k: i, pack, fresh: undefined }] : []
  })
  if (due.length === 0) return result
  const [top, ...rows] = await client.batch(
    [
      'SELECT coalesce(max(id), 0) FROM chunk_packs',
      ...due.map(({ c, fresh }) =>
        fresh === undefined
          ? { sql: SELECT_BUCKET, args: args(c) }
          : { sql: SELECT_NEWEST, args: [...args(c), fresh] },
      ),
    ],
    'read',
  )
  const stmts: InStatement[] = []
  const whole: NewChunk[] = []
  const partial: NewChunk[] = []
  const rollups = new RollupWriter(client, tz)
  for (let i = 0; i < due.length; i++) {
    const { c, k, pack, fresh } = due[i]!
    if (fresh !== undefined) {
      const newest = rows[i]!.rows
      if (newest.length < 2) continue
      mergeBucket(c, newest, stmts, partial, undefined)
      result[k] = result[k]! - (newest.length - 1)
      continue
    }
    const merged = mergeBucket(c, rows[i]!.rows, stmts, whole, pack)
    await rollups.rollHour(c.seriesId, c.bucket, merged.time, merged.value)
    result[k] = 1
  }
  const packIds = { next: Number(top!.rows[0]![0]) + 1 }
  await client.batch(
    [...stmts, ...insertChunks(whole, packIds), ...insertChunks(partial), ...rollups.statements()],
    'write',
  )
  return result
}

/** A lone chunk is written again (into its pack, its times shared) when its blobs are at least this long. */
const REWRITE_MIN_BYTES = 64

/**
 * The values of a bucket's chunks merged (duplicates resolved by seq): the DELETE of the chunks in `stmts` and
 * their merge (seq = the highest merged) in `fresh`, or the lone chunk marked rolled up; a lone chunk not in a
 * pack yet is written again into `pack`, if given, when its blobs are worth it.
 */
function mergeBucket(
  c: Candidate,
  rows: Row[],
  stmts: InStatement[],
  fresh: NewChunk[],
  pack: string | undefined,
): Run {
  const runs: Run[] = rows.map((r) => ({
    time: decodeTimes(r.times as ArrayBuffer, Number(r.n), Number(r.kind)),
    value: decodeValues(r.vals as ArrayBuffer, Number(r.n), Number(r.kind)),
  }))
  const merged = mergeRuns(runs)
  const ids = rows.map((r) => Number(r.id))
  const lone = rows[0]!
  const blobs = (lone.times as ArrayBuffer).byteLength + (lone.vals as ArrayBuffer).byteLength
  const repack = pack !== undefined && !Number(lone.packed) && blobs >= REWRITE_MIN_BYTES
  if (rows.length === 1 && !repack) {
    stmts.push({ sql: 'UPDATE chunks SET rolled = 1 WHERE id = ?', args: [ids[0]!] })
    return merged
  }
  stmts.push({ sql: `DELETE FROM chunks WHERE id IN (${marks(ids.length)})`, args: ids })
  fresh.push({
    seriesId: c.seriesId,
    chunk: encodeChunk(merged.time, merged.value, 0, merged.time.length),
    seq: Math.max(...rows.map((r) => Number(r.seq))),
    pack,
  })
  return merged
}
