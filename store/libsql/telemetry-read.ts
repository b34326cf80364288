/**
 * Chunk reads of the embedded telemetry store: the chunks of some series overlapping a range (one query), and
 * the newest value per series kept in chunks. Chunks never cross an hour bucket, so `t_start ≥ bucket(start)`
 * bounds the index range scan on (series_id, t_start).
 */
import type { Client, Row } from '@libsql/client'
import type { LastValue } from '../telemetry.ts'
import { decodeTimes, decodeValues, lastValue } from './telemetry-codec.ts'
import { BUCKET_MS, bucketOf, marks } from './telemetry-db.ts'
import { clip, type Run } from './telemetry-memtable.ts'

/** The values of each series' chunks in [start, end), one run per chunk, oldest seq first. */
export async function readChunks(client: Client, ids: readonly number[], start: number, end: number): Promise<Map<number, Run[]>> {
  const rs = await client.execute({
    sql: `SELECT series_id, n, kind, times, vals FROM chunks WHERE series_id IN (${marks(ids.length)})
            AND t_start >= ? AND t_start < ? AND t_end >= ? ORDER BY seq, id`,
    args: [...ids, bucketOf(start), end, start],
  })
  const runs = new Map<number, Run[]>(ids.map((id) => [id, []]))
  for (const r of rs.rows) {
    const n = Number(r[1])
    const run = { time: decodeTimes(r[3] as ArrayBuffer, n), value: decodeValues(r[4] as ArrayBuffer, n, Number(r[2])) }
    runs.get(Number(r[0]))!.push(clip(run, start, end))
  }
  return runs
}

/** Series per query (SQLite allows 500 terms in a compound SELECT). */
const LATEST_STEP = 200
/** The chunks of a series' newest hour bucket (and maybe the one before): its newest value is in one of them. */
const LATEST_SQL = `SELECT * FROM (SELECT series_id, t_end, seq, n, kind, vals FROM chunks WHERE series_id = ?
  AND t_start >= (SELECT max(t_start) FROM chunks WHERE series_id = ?) - ${BUCKET_MS})`

/** The newest value of each series kept in chunks: the greatest t_end, the higher seq at equal times. */
export async function newestInChunks(client: Client, ids: readonly number[]): Promise<Map<number, LastValue>> {
  const newest = new Map<number, { t: number; seq: number; row: Row }>()
  for (let i = 0; i < ids.length; i += LATEST_STEP) {
    const part = ids.slice(i, i + LATEST_STEP)
    const rs = await client.execute({ sql: part.map(() => LATEST_SQL).join(' UNION ALL '), args: part.flatMap((id) => [id, id]) })
    for (const row of rs.rows) {
      const [id, t, seq] = [Number(row[0]), Number(row[1]), Number(row[2])]
      const best = newest.get(id)
      if (!best || t > best.t || (t === best.t && seq > best.seq)) newest.set(id, { t, seq, row })
    }
  }
  const out = new Map<number, LastValue>()
  for (const [id, { t, row }] of newest)
    out.set(id, { time: t, value: lastValue(row[5] as ArrayBuffer, Number(row[3]), Number(row[4])) })
  return out
}

/**
 * The number of chunk values of the series in [start, end): chunks wholly inside by their counts (no decoding),
 * the ones crossing an edge by decoding their times.
 */
export async function countChunks(client: Client, ids: readonly number[], start: number, end: number): Promise<number> {
  const [inside, edges] = await client.batch(
    [
      {
        sql: `SELECT coalesce(sum(n), 0) FROM chunks WHERE series_id IN (${marks(ids.length)})
                AND t_start >= ? AND t_end < ?`,
        args: [...ids, start, end],
      },
      {
        sql: `SELECT n, times FROM chunks WHERE series_id IN (${marks(ids.length)})
                AND t_start >= ? AND t_start < ? AND t_end >= ? AND (t_start < ? OR t_end >= ?)`,
        args: [...ids, bucketOf(start), end, start, start, end],
      },
    ],
    'read',
  )
  let n = Number(inside!.rows[0]![0])
  for (const r of edges!.rows) for (const t of decodeTimes(r[1] as ArrayBuffer, Number(r[0]))) if (t >= start && t < end) n++
  return n
}
