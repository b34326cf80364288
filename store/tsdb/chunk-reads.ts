/**
 * The SQL reads of the `chunks` table of the embedded telemetry store, which reads.ts merges with the
 * memtable: the chunks of some series overlapping a range (one query; for aggregates, whole-hour chunks as their
 * statistics alone), their value count and time extent, and the newest value per series kept in chunks.
 * Chunks never cross an hour bucket, so `t_start ≥ bucket(start)` bounds the index range scan on
 * (series_id, t_start).
 */
import type { Client, DriverRow as Row } from '../libsql/db.ts'
import type { LastValue } from '../telemetry.ts'
import type { ChunkStats } from './codec.ts'
import { decodeTimes, decodeValues, lastValue } from './codec.ts'
import { BUCKET_MS, CHUNK_TIMES_SQL, CHUNK_VALS_SQL, bucketOf, marks } from './file.ts'
import { clip, type Run } from './memtable.ts'

/** The values of each series' chunks in [start, end), one run per chunk, oldest seq first. */
export async function readChunks(
  client: Client,
  ids: readonly number[],
  start: number,
  end: number,
): Promise<Map<number, Run[]>> {
  const rs = await client.execute({
    sql: `SELECT series_id, n, kind, ${CHUNK_TIMES_SQL}, ${CHUNK_VALS_SQL} FROM chunks WHERE series_id IN (${marks(ids.length)})
            AND t_start >= ? AND t_start < ? AND t_end >= ? ORDER BY seq, id`,
    args: [...ids, bucketOf(start), end, start],
  })
  const runs = new Map<number, Run[]>(ids.map((id) => [id, []]))
  for (const r of rs.rows) {
    const n = Number(r[1])
    const run = {
      time: decodeTimes(r[3] as ArrayBuffer, n, Number(r[2])),
      value: decodeValues(r[4] as ArrayBuffer, n, Number(r[2])),
    }
    runs.get(Number(r[0]))!.push(clip(run, start, end))
  }
  return runs
}

/** Series per query (SQLite allows 500 terms in a compound SELECT). */
const LATEST_STEP = 200
/** The chunks of a series' newest hour bucket (and maybe the one before): its newest value is in one of them. */
const LATEST_SQL = `SELECT * FROM (SELECT series_id, t_end, seq, n, kind, ${CHUNK_VALS_SQL} FROM chunks WHERE series_id = ?
  AND t_start >= (SELECT max(t_start) FROM chunks WHERE series_id = ?) - ${BUCKET_MS})`

/** The newest value of each series kept in chunks: the greatest t_end, the higher seq at equal times. */
export async function newestInChunks(
  client: Client,
  ids: readonly number[],
): Promise<Map<number, LastValue>> {
  const newest = new Map<number, { t: number; seq: number; row: Row }>()
  for (let i = 0; i < ids.length; i += LATEST_STEP) {
    const part = ids.slice(i, i + LATEST_STEP)
    const rs = await client.execute({
      sql: part.map(() => LATEST_SQL).join(' UNION ALL '),
      args: part.flatMap((id) => [id, id]),
    })
    for (const row of rs.rows) {
      const [id, t, seq] = [Number(row[0]), Number(row[1]), Number(row[2])]
      const best = newest.get(id)
      if (!best || t > best.t || (t === best.t && seq > best.seq)) newest.set(id, { t, seq, row })
    }
  }
  const out = new Map<number, LastValue>()
  for (const [id, { t, row }] of newest)
    out.set(id, {
      time: t,
      value: lastValue(row[5] as ArrayBuffer, Number(row[3]), Number(row[4])),
    })
  return out
}

/**
 * The number of chunk values of the series in [start, end): chunks wholly inside by their counts (no decoding),
 * the ones crossing an edge by decoding their times.
 */
export async function countChunks(
  client: Client,
  ids: readonly number[],
  start: number,
  end: number,
): Promise<number> {
  const [inside, edges] = await client.batch(
    [
      {
        sql: `SELECT coalesce(sum(n), 0) FROM chunks WHERE series_id IN (${marks(ids.length)})
                AND t_start >= ? AND t_end < ?`,
        args: [...ids, start, end],
      },
      {
        sql: `SELECT n, ${CHUNK_TIMES_SQL}, kind FROM chunks WHERE series_id IN (${marks(ids.length)})
                AND t_start >= ? AND t_start < ? AND t_end >= ? AND (t_start < ? OR t_end >= ?)`,
        args: [...ids, bucketOf(start), end, start, start, end],
      },
    ],
    'read',
  )
  let n = Number(inside!.rows[0]![0])
  for (const r of edges!.rows)
    for (const t of decodeTimes(r[1] as ArrayBuffer, Number(r[0]), Number(r[2])))
      if (t >= start && t < end) n++
  return n
}

/** A chunk as an aggregate sees it: its statistics alone (blobs not read), or its values. */
export interface AggregateChunk {
  seriesId: number
  /** Start of the chunk's hour bucket. */
  bucket: number
  /** Set when the chunk is the only one of its bucket, the bucket lies wholly in the range and has statistics. */
  stats?: ChunkStats
  /** The values (clipped to the range) otherwise. */
  run?: Run
}

/**
 * The chunks of some series overlapping [start, end), in one query (one consistent snapshot), for aggregates: a
 * bucket wholly inside the range whose only chunk has statistics comes back as those statistics, without its
 * blobs; every other chunk with its values. Oldest seq first, as readChunks.
 */
export async function readChunksForAggregate(
  client: Client,
  ids: readonly number[],
  start: number,
  end: number,
): Promise<AggregateChunk[]> {
  const bucket = `(t_start - ((t_start % ${BUCKET_MS}) + ${BUCKET_MS}) % ${BUCKET_MS})`
  const rs = await client.execute({
    sql: `SELECT series_id, b, n, kind, vmin, vmax, vsum, vcnt, summary, CASE WHEN summary THEN NULL ELSE ${CHUNK_TIMES_SQL} END,
            CASE WHEN summary THEN NULL ELSE ${CHUNK_VALS_SQL} END
          FROM (SELECT *, ${bucket} AS b, (count(*) OVER (PARTITION BY series_id, ${bucket}) = 1 AND vcnt IS NOT NULL
                  AND ${bucket} >= ? AND ${bucket} + ${BUCKET_MS} <= ?) AS summary
                FROM chunks WHERE series_id IN (${marks(ids.length)}) AND t_start >= ? AND t_start < ? AND t_end >= ?)
          ORDER BY seq, id`,
    args: [start, end, ...ids, bucketOf(start), end, start],
  })
  return rs.rows.map((r) => {
    const seriesId = Number(r[0])
    const b = Number(r[1])
    if (Number(r[8]))
      return {
        seriesId,
        bucket: b,
        stats: { min: Number(r[4]), max: Number(r[5]), sum: Number(r[6]), count: Number(r[7]) },
      }
    const n = Number(r[2])
    const run = {
      time: decodeTimes(r[9] as ArrayBuffer, n, Number(r[3])),
      value: decodeValues(r[10] as ArrayBuffer, n, Number(r[3])),
    }
    return { seriesId, bucket: b, run: clip(run, start, end) }
  })
}

/** The earliest t_start and latest t_end of the series' chunks overlapping [start, end), or undefined when none. */
export async function chunkExtent(
  client: Client,
  ids: readonly number[],
  start: number,
  end: number,
): Promise<{ first: number; last: number } | undefined> {
  const rs = await client.execute({
    sql: `SELECT min(t_start), max(t_end) FROM chunks WHERE series_id IN (${marks(ids.length)})
            AND t_start >= ? AND t_start < ? AND t_end >= ?`,
    args: [...ids, bucketOf(start), end, start],
  })
  const row = rs.rows[0]
  return row?.[0] === null || row?.[0] === undefined
    ? undefined
    : { first: Number(row[0]), last: Number(row[1]) }
}
