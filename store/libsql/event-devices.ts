/**
 * The event log's index by device (migration 270, docs/storage.md): `event_devices` holds
 * (device, msgTime, id) of the tail rows up to `event_device_mark.upto`, filled by `indexStep` in id order, away
 * from the ingest path, so that a commit of uplinks appends to `events` and its time-ordered indexes only. A read
 * of one device's tail takes the indexed ids and scans the ids above the mark (the rows since the last step), both
 * in one read transaction, so each row is found once.
 */
import type { Db } from './db.ts'

/**
 * Tail rows a step indexes at most. A step touches every active device's index pages once, so larger steps cost
 * less a row: with 1,000 devices 1.6 µs a row at 20,000 and 1.1 at 40,000 (45 ms of the writer alone; one step per
 * indexer run at ~20,000 uplinks a second instead of two of 32 ms each).
 */
export const INDEX_STEP_ROWS = 40_000

/** The ids of one device's tail rows (its record id twice as arguments): a subquery for `id IN (…)`. */
export const DEVICE_EVENT_IDS = `SELECT x.id FROM event_devices x WHERE x.device_int_id = ?
  UNION ALL SELECT r.id FROM events r WHERE r.id > (SELECT m.upto FROM event_device_mark m) AND r.device_int_id = ?`

/**
 * Indexes the next tail rows above the mark (ids up to `limit` past it), a device's entries together, and moves the
 * mark, in one transaction; rows without a device are passed over. A step of another process meanwhile finds the
 * mark moved (entries are inserted once). Answers how many rows it indexed and whether rows are left above the mark.
 */
export async function indexStep(
  db: Db,
  limit = INDEX_STEP_ROWS,
): Promise<{ indexed: number; more: boolean }> {
  const [inserted, mark] = await db.batch([
    {
      sql: `INSERT OR IGNORE INTO event_devices (device_int_id, msg_time, id)
              SELECT device_int_id, msg_time, id FROM events
               WHERE id > (SELECT upto FROM event_device_mark) AND id <= (SELECT upto FROM event_device_mark) + ?
                 AND device_int_id IS NOT NULL
               ORDER BY device_int_id, msg_time, id`,
      args: [limit],
    },
    {
      sql: `UPDATE event_device_mark SET upto = min(upto + ?, (SELECT max(id) FROM events))
             WHERE upto < (SELECT max(id) FROM events)
            RETURNING upto < (SELECT max(id) FROM events) AS more`,
      args: [limit],
    },
  ])
  return { indexed: inserted!.rowsAffected, more: Number(mark!.rows[0]?.more ?? 0) === 1 }
}
