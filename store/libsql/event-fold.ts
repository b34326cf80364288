/**
 * The event log's fold (docs/retention.md): moves tail rows (`events`) inserted before a cutoff into compressed
 * blocks (`event_blocks`, store/libsql/event-blocks.ts), a few devices a step. A step reads the devices' rows,
 * encodes and checks its blocks (decoded again and compared with the rows), then in one transaction inserts the
 * blocks and deletes the rows, guarded: when any row is gone meanwhile (a device or retention delete), the whole
 * step rolls back and nothing changes. Ids are kept, so cursors given before a fold stay valid after it.
 */
import type { InValue } from '@libsql/client'
import type { Db, Row } from './db.ts'
import { insertRows } from './db.ts'
import { marks } from './list.ts'
import {
  BLOCK_EVENTS,
  decodeIndex,
  decodePayloads,
  encodeBlock,
  type BlockEvent,
  type EncodedBlock,
} from './event-blocks.ts'

/** Devices a step folds at most. */
const STEP_DEVICES = 64
/** Rows a step reads at most (a device with more is folded over several steps). */
const STEP_ROWS = 4096

const BLOCK_COLUMNS = [
  'tenant_id',
  'device_int_id',
  'device_id',
  'device_name',
  'product_int_id',
  'n',
  'id0',
  'id1',
  't0',
  't1',
  'c0',
  'c1',
  'keys',
  'idx',
  'data',
]

/** What one step did; `next` is the device to start the next step after (undefined: the pass is done). */
export interface FoldStep {
  events: number
  blocks: number
  next: number | undefined
}

export class EventFoldRepo {
  constructor(private readonly db: Db) {}

  /**
   * The highest tail id inserted before `cutoff` (0: none). Ids grow with insert time, so a binary search over
   * ids by primary key finds it without an index on createAt. A step reads rows by the index by device: rows the
   * indexer has not reached (./event-devices.ts) stay for a later pass, so a caller indexes first.
   */
  async boundary(cutoff: number): Promise<number> {
    const r = await this.db.one('SELECT min(id) AS lo, max(id) AS hi FROM events')
    if (!r || r.lo === null) return 0
    let lo = Number(r.lo)
    let hi = Number(r.hi)
    const createdAt = async (id: number) => {
      const row = await this.db.one(
        'SELECT id, create_at AS c FROM events WHERE id >= ? ORDER BY id LIMIT 1',
        [id],
      )
      return row ? { id: Number(row.id), c: Number(row.c) } : undefined
    }
    const first = await createdAt(lo)
    if (!first || first.c >= cutoff) return 0
    // invariant: the row at or after `lo` was inserted before the cutoff
    while (lo < hi) {
      const mid = Math.floor((lo + hi + 1) / 2)
      const row = await createdAt(mid)
      if (row && row.c < cutoff) lo = row.id
      else hi = mid - 1
    }
    return lo
  }

  /**
   * Folds the tail rows with ids up to `boundary` of the next devices after device `after` (by device_int_id;
   * 0: from the first). Rows without a device, and rows not yet in the index by device (above its mark,
   * ./event-devices.ts), stay in the tail for a later pass.
   */
  async step(boundary: number, after: number): Promise<FoldStep> {
    const devices = (
      await this.db.all(
        `SELECT DISTINCT device_int_id AS d FROM event_devices
          WHERE device_int_id > ? AND id <= ? ORDER BY device_int_id LIMIT ?`,
        [after, boundary, STEP_DEVICES],
      )
    ).map((r) => Number(r.d))
    if (!devices.length) return { events: 0, blocks: 0, next: undefined }
    const rows = await this.db.all(
      `SELECT e.id, e.tenant_id AS tenantID, e.device_int_id AS deviceIntID, e.device_id AS deviceID,
              e.device_name AS deviceName, e.product_int_id AS productIntID, e.topic, e.payload, e.ip AS IP,
              e.status, e.reason, e.msg_time AS msgTime, e.create_at AS createAt
         FROM event_devices x CROSS JOIN events e ON e.id = x.id
        WHERE x.device_int_id IN (${marks(devices.length)}) AND x.id <= ?
        ORDER BY x.device_int_id, x.id LIMIT ?`,
      [...devices, boundary, STEP_ROWS + 1],
    )
    let next = devices.at(-1)!
    if (rows.length > STEP_ROWS) {
      // the last device read may have more rows: they go on in the next step, from that device
      rows.length = STEP_ROWS
      const lastDevice = Number(rows.at(-1)!.deviceIntID)
      const whole = rows.filter((r) => Number(r.deviceIntID) !== lastDevice)
      // one device with more rows than a step folds its first rows now; otherwise the devices read whole
      if (whole.length) rows.length = whole.length
      next = lastDevice - 1
    }
    const groups = groupRows(rows)
    const blocks = await Promise.all(groups.map((g) => encodeChecked(g)))
    const ids = rows.map((r) => Number(r.id))
    const values = groups.map((g, i): InValue[] => {
      const b = blocks[i]!
      const r = g[0]!
      return [
        r.tenantID as string,
        r.deviceIntID as number,
        r.deviceID as string,
        (r.deviceName as string | null) ?? null,
        (r.productIntID as number | null) ?? null,
        b.n,
        b.id0,
        b.id1,
        b.t0,
        b.t1,
        b.c0,
        b.c1,
        JSON.stringify(b.keys),
        b.idx,
        b.data,
      ]
    })
    const idList = JSON.stringify(ids)
    await this.db.batch([
      // every row read is still there, or the CHECK (ok = 1) rolls the whole step back
      {
        sql: `UPDATE event_fold_guard
                 SET ok = ((SELECT count(*) FROM events WHERE id IN (SELECT value FROM json_each(?))) = ?)
               WHERE id = 1`,
        args: [idList, ids.length],
      },
      ...insertRows('event_blocks', BLOCK_COLUMNS, values),
      { sql: 'DELETE FROM events WHERE id IN (SELECT value FROM json_each(?))', args: [idList] },
    ])
    return { events: rows.length, blocks: blocks.length, next }
  }
}

/** Rows of one block: the same tenant, device, name and product, at most BLOCK_EVENTS, in id order. */
function groupRows(rows: Row[]): Row[][] {
  const open = new Map<string, Row[]>()
  const out: Row[][] = []
  for (const r of rows) {
    const k = JSON.stringify([r.tenantID, r.deviceIntID, r.deviceID, r.deviceName, r.productIntID])
    let g = open.get(k)
    if (!g || g.length === BLOCK_EVENTS) {
      g = []
      open.set(k, g)
      out.push(g)
    }
    g.push(r)
  }
  return out
}

const asEvent = (r: Row): BlockEvent => ({
  id: Number(r.id),
  msgTime: Number(r.msgTime),
  createAt: Number(r.createAt),
  topic: (r.topic as string | null) ?? null,
  status: Number(r.status),
  IP: (r.IP as string | null) ?? null,
  reason: (r.reason as string | null) ?? null,
  payload: (r.payload as string | null) ?? null,
})

/** The block of `rows`, decoded again and compared with them before anything is deleted. */
async function encodeChecked(rows: Row[]): Promise<EncodedBlock> {
  const events = rows.map(asEvent)
  const block = await encodeBlock(events)
  const [index, payloads] = await Promise.all([
    decodeIndex(block.idx, block.n),
    decodePayloads(block.data),
  ])
  events.forEach((e, i) => {
    const got = index[i]
    const key = got && block.keys[got.key]
    if (
      !got ||
      !key ||
      got.id !== e.id ||
      got.msgTime !== e.msgTime ||
      got.createAt !== e.createAt ||
      key[0] !== e.topic ||
      key[1] !== e.status ||
      key[2] !== e.IP ||
      key[3] !== e.reason ||
      payloads[i] !== e.payload
    )
      throw new Error(`event block check failed at event ${e.id}`)
  })
  return block
}
