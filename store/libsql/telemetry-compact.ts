/**
 * Compaction of the embedded telemetry store: every flush adds one chunk per series and hour it touched; once an
 * hour is past (or holds too many chunks) its chunks are merged into one, duplicates resolved by seq (the later
 * flush wins), so a day of 1 Hz data reads as ~24 rows. Merging all chunks of a bucket at once keeps the
 * "higher seq = written later" order valid: every chunk flushed afterwards gets a higher seq than the result.
 */
import type { Client, InStatement, Row } from '@libsql/client'
import { KIND_TIMES_SHARED, decodeTimes, decodeValues, encodeChunk } from './telemetry-codec.ts'
import { BUCKET_MS, CHUNK_TIMES_SQL, insertChunks, marks, sharesTimes } from './telemetry-db.ts'
import { mergeRuns, type Run } from './telemetry-memtable.ts'
import { RollupWriter } from './telemetry-rollups.ts'

export interface Candidate {
  seriesId: number
  bucket: number
  /** Chunks known to be in the bucket (at least; others may predate this process). */
  chunks: number
}

/** The (series, hour) buckets that received chunks since they were last compacted. */
export class CompactionQueue {
  private map = new Map<string, Candidate>()
  /** Series id → its queued buckets: the hours whose rollups may be behind their chunks. */
  private bySeries = new Map<number, Set<number>>()

  /** Records that a chunk was added to a bucket (or, at start-up, that a bucket holds `chunks`). */
  note(seriesId: number, bucket: number, chunks = 1) {
    const key = `${seriesId}:${bucket}`
    const c = this.map.get(key)
    if (c) c.chunks += chunks
    else {
      this.map.set(key, { seriesId, bucket, chunks })
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

  /** Buckets to compact now: past ones (end + grace ≤ now), crowded ones, or every one when `all`. */
  due(now: number, graceMs: number, maxChunks: number, all: boolean): Candidate[] {
    const out: Candidate[] = []
    for (const c of this.map.values())
      if (all || c.bucket + BUCKET_MS + graceMs <= now || c.chunks >= maxChunks) out.push(c)
    return out
  }

  /** The bucket now holds `chunks` chunks (1 after a merge); past buckets are forgotten. */
  settle(c: Candidate, chunks: number, past: boolean) {
    const key = `${c.seriesId}:${c.bucket}`
    if (past || chunks === 0) this.forget(key, c)
    else this.map.set(key, { ...c, chunks })
  }

  get size() {
    return this.map.size
  }
}

const SELECT_BUCKET = `SELECT id, n, seq, kind, ${CHUNK_TIMES_SQL} AS times, vals FROM chunks
  WHERE series_id = ? AND t_start >= ? AND t_start < ? ORDER BY seq, id`

/**
 * Merges the chunks of each candidate bucket into one chunk and rolls the hour up (telemetry-rollups.ts) in one
 * transaction, for buckets holding several chunks or a chunk not rolled up yet; the caller holds the store's lock
 * so no flush, delete or other compaction interleaves. Returns how many chunks each bucket now has.
 */
export async function compactBuckets(
  client: Client,
  list: readonly Candidate[],
  tz: string,
): Promise<number[]> {
  const args = (c: Candidate) => [c.seriesId, c.bucket, c.bucket + BUCKET_MS]
  const counts = await client.batch(
    list.map((c) => ({
      sql: `SELECT count(*), coalesce(sum(rolled = 0), 0) FROM chunks
              WHERE series_id = ? AND t_start >= ? AND t_start < ?`,
      args: args(c),
    })),
    'read',
  )
  const result = list.map((_, i) => Number(counts[i]!.rows[0]![0]))
  const due = list.filter((_, i) => result[i]! > 1 || Number(counts[i]!.rows[0]![1]) > 0)
  if (due.length === 0) return result
  const rows = await client.batch(
    due.map((c) => ({ sql: SELECT_BUCKET, args: args(c) })),
    'read',
  )
  const stmts: InStatement[] = []
  const rollups = new RollupWriter(client, tz)
  for (let i = 0; i < due.length; i++) {
    const c = due[i]!
    const merged = await mergeBucket(c, rows[i]!.rows, stmts)
    await rollups.rollHour(c.seriesId, c.bucket, merged.time, merged.value)
  }
  await client.batch([...stmts, ...rollups.statements()], 'write')
  for (const c of due) result[list.indexOf(c)] = 1
  return result
}

/**
 * The values of a bucket's chunks merged (duplicates resolved by seq), with the statements leaving one rolled-up
 * chunk: DELETE of the chunks and INSERT of their merge (seq = the highest merged), or the lone chunk marked (or
 * written again, when its times are inline and worth sharing: a flush's chunk that was alone in its hour).
 */
async function mergeBucket(c: Candidate, rows: Row[], stmts: InStatement[]): Promise<Run> {
  const runs: Run[] = rows.map((r) => ({
    time: decodeTimes(r.times as ArrayBuffer, Number(r.n), Number(r.kind)),
    value: decodeValues(r.vals as ArrayBuffer, Number(r.n), Number(r.kind)),
  }))
  const merged = mergeRuns(runs)
  const ids = rows.map((r) => Number(r.id))
  const lone = rows[0]!
  const inlineTimes = !(Number(lone.kind) & KIND_TIMES_SHARED)
  if (rows.length === 1 && !(inlineTimes && sharesTimes((lone.times as ArrayBuffer).byteLength))) {
    stmts.push({ sql: 'UPDATE chunks SET rolled = 1 WHERE id = ?', args: [ids[0]!] })
    return merged
  }
  const seq = Math.max(...rows.map((r) => Number(r.seq)))
  stmts.push(
    { sql: `DELETE FROM chunks WHERE id IN (${marks(ids.length)})`, args: ids },
    ...insertChunks(
      [
        {
          seriesId: c.seriesId,
          chunk: encodeChunk(merged.time, merged.value, 0, merged.time.length),
        },
      ],
      seq,
      true,
    ),
  )
  return merged
}
