/**
 * Compaction of the embedded telemetry store: every flush adds one chunk per series and hour it touched; once an
 * hour is past (or holds too many chunks) its chunks are merged into one, duplicates resolved by seq (the later
 * flush wins), so a day of 1 Hz data reads as ~24 rows. Merging all chunks of a bucket at once keeps the
 * "higher seq = written later" order valid: every chunk flushed afterwards gets a higher seq than the result.
 */
import type { Client, InStatement, Row } from '@libsql/client'
import { decodeTimes, decodeValues, encodeChunk } from './telemetry-codec.ts'
import { BUCKET_MS, insertChunks, marks } from './telemetry-db.ts'
import { mergeRuns, type Run } from './telemetry-memtable.ts'

export interface Candidate {
  seriesId: number
  bucket: number
  /** Chunks known to be in the bucket (at least; others may predate this process). */
  chunks: number
}

/** The (series, hour) buckets that received chunks since they were last compacted. */
export class CompactionQueue {
  private map = new Map<string, Candidate>()

  /** Records that a chunk was added to a bucket (or, at start-up, that a bucket holds `chunks`). */
  note(seriesId: number, bucket: number, chunks = 1) {
    const key = `${seriesId}:${bucket}`
    const c = this.map.get(key)
    if (c) c.chunks += chunks
    else this.map.set(key, { seriesId, bucket, chunks })
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
    if (past || chunks === 0) this.map.delete(key)
    else this.map.set(key, { ...c, chunks })
  }

  get size() {
    return this.map.size
  }
}

const SELECT_BUCKET = `SELECT id, n, seq, kind, times, vals FROM chunks
  WHERE series_id = ? AND t_start >= ? AND t_start < ? ORDER BY seq, id`

/**
 * Merges the chunks of each candidate bucket into one chunk in one transaction; the caller holds the store's
 * lock so no flush, delete or other compaction interleaves. Returns how many chunks each bucket now has.
 */
export async function compactBuckets(
  client: Client,
  list: readonly Candidate[],
): Promise<number[]> {
  const args = (c: Candidate) => [c.seriesId, c.bucket, c.bucket + BUCKET_MS]
  const counts = await client.batch(
    list.map((c) => ({
      sql: 'SELECT count(*) FROM chunks WHERE series_id = ? AND t_start >= ? AND t_start < ?',
      args: args(c),
    })),
    'read',
  )
  const crowded = list.filter((_, i) => Number(counts[i]!.rows[0]![0]) > 1)
  const result = list.map((_, i) => Number(counts[i]!.rows[0]![0]))
  if (crowded.length === 0) return result
  const rows = await client.batch(
    crowded.map((c) => ({ sql: SELECT_BUCKET, args: args(c) })),
    'read',
  )
  const stmts: InStatement[] = []
  crowded.forEach((c, i) => stmts.push(...mergeStatements(c.seriesId, rows[i]!.rows)))
  await client.batch(stmts, 'write')
  for (const c of crowded) result[list.indexOf(c)] = 1
  return result
}

/** DELETE of the bucket's chunks and INSERT of their merge (seq = the highest merged). */
function mergeStatements(seriesId: number, rows: Row[]): InStatement[] {
  const runs: Run[] = rows.map((r) => ({
    time: decodeTimes(r.times as ArrayBuffer, Number(r.n), Number(r.kind)),
    value: decodeValues(r.vals as ArrayBuffer, Number(r.n), Number(r.kind)),
  }))
  const merged = mergeRuns(runs)
  const seq = Math.max(...rows.map((r) => Number(r.seq)))
  const ids = rows.map((r) => Number(r.id))
  return [
    { sql: `DELETE FROM chunks WHERE id IN (${marks(ids.length)})`, args: ids },
    ...insertChunks(
      [{ seriesId, chunk: encodeChunk(merged.time, merged.value, 0, merged.time.length) }],
      seq,
    ),
  ]
}
