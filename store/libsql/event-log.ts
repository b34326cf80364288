/**
 * The uplink event log's reads over its two parts (docs/retention.md): the tail (`events`, a row per message,
 * written on the ingest path) and the folded blocks (`event_blocks`, store/libsql/event-blocks.ts). A list answers
 * exactly what one table of all messages would: the same filters (SQLite evaluates them, on the tail's rows and
 * on the blocks' columns and keys), the same order (ties by id), offsets, cursors and counts.
 *
 * One read transaction takes the tail's page, its count, the blocks' counts and the first blocks in the list's
 * order; later reads of blocks see only blocks that existed then (ids grow), so a fold meanwhile neither repeats
 * nor loses a message. A block's index is decompressed only when the page may take a message from it or its
 * count depends on the time range; its payloads only for the messages the page answers.
 */
import type { InValue } from '@libsql/client'
import type { Db, Row, Statement } from './db.ts'
import type { Cursor, ListArgs, Page } from '../types.ts'
import type { EventRecord } from '../fields/logs.ts'
import { filterConditions, listQuery, marks, timeBounds } from './list.ts'
import { deviceEventSpec, eventSpec } from './logs-sql.ts'
import {
  decodeIndex,
  decodePayloads,
  type BlockKey,
  type BlockSpan,
  type IndexEntry,
} from './event-blocks.ts'

/** Decoded block indexes kept (about 40 KB each for a full block). */
const INDEX_CACHE = 512
/** Blocks one read fetches at most while a page is filled in the list's order. */
const BLOCK_BATCH = 128

/** The block columns filters name; topic and status are a key's (`k`, a row of json_each over `b.keys`). */
const BLOCK_FIELDS = { deviceID: 'b.device_id', deviceName: 'b.device_name' }
const KEY_FIELDS = { topic: '(k.value ->> 0)', status: '(k.value ->> 1)' }

type SortValue = number | string | null

/** SQLite's order of values: NULL, numbers, text (byte order of its UTF-8). */
function compareValues(a: SortValue, b: SortValue): number {
  if (a === b) return 0
  if (a === null) return -1
  if (b === null) return 1
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : 1
  if (typeof a === 'number') return -1
  if (typeof b === 'number') return 1
  return Buffer.compare(Buffer.from(a), Buffer.from(b))
}

/** One message as the merge orders it: its sort value and id, and where its record comes from. */
interface Entry {
  v: SortValue
  id: number
  row?: Row
  block?: Header
  index?: IndexEntry
}

/** A block as its header answers it, with the keys the list's filters let through. */
interface Header extends BlockSpan {
  id: number
  deviceID: string
  deviceName: string | null
  productName: string | null
  keys: BlockKey[]
  /** Key numbers that match the filters. */
  hits: Set<number>
}

/** The list's sort: which value orders it and its direction (as listQuery orders the tail). */
interface Order {
  field: string
  desc: boolean
}

export class EventLog {
  private readonly cache = new Map<number, IndexEntry[]>()
  constructor(private readonly db: Db) {}

  /** A page of the tenant's messages (one device's with `deviceIntID`), as listPage would answer `events`. */
  async list(tenant: string, q: ListArgs, deviceIntID?: number): Promise<Page<EventRecord>> {
    for (let attempt = 0; ; attempt++) {
      const page = await this.tryList(tenant, q, deviceIntID)
      // undefined: a block the page needed was deleted after the snapshot (retention, a device delete): read again
      if (page || attempt === 2) return page ?? { items: [], count: 0, next: null }
    }
  }

  /** How many messages of the tenant have a msgTime in [since, until] (inclusive); no page is read. */
  async count(tenant: string, since: number, until: number): Promise<number> {
    const q: ListArgs = { page: 1, limit: 1, filters: [], startTime: since, endTime: until }
    const tail = listQuery(eventSpec(), [tenant], q)
    const blocks = blockQuery(tenant, q, orderOf(q))
    const [tailCount, counted, edges] = await this.db.read([
      tail.statements[1],
      blocks.count,
      blocks.edges,
    ])
    return (
      Number(tailCount![0]?.n ?? 0) + Number(counted![0]?.n ?? 0) + (await edgeCount(edges!, q))
    )
  }

  private async tryList(
    tenant: string,
    q: ListArgs,
    deviceIntID?: number,
  ): Promise<Page<EventRecord> | undefined> {
    const order = orderOf(q)
    const offset = q.after ? 0 : (q.page - 1) * q.limit
    const need = offset + q.limit + 1
    const { blocks, tailRows, count, snapshot, first } = await this.firstRead(
      tenant,
      q,
      order,
      need,
      deviceIntID,
    )

    const field = order.field
    const entries: Entry[] = tailRows.map((row) => ({
      v: row[field] as SortValue,
      id: Number(row.id),
      row,
    }))
    const cmp = (a: { v: SortValue; id: number }, b: { v: SortValue; id: number }) => {
      const c = compareValues(a.v, b.v) || a.id - b.id
      return order.desc ? -c : c
    }
    const after = q.after ? cursorEntry(q.after, field) : undefined
    // entries in order, cut to `need`; `worst` the last of them once there are that many
    let worst: Entry | undefined
    const settle = () => {
      entries.sort(cmp)
      entries.length = Math.min(entries.length, need)
      worst = entries.length === need ? entries[need - 1] : undefined
    }
    settle()
    let rows = first!
    for (;;) {
      const headers = rows.map(headerOf)
      // blocks by their best position (batches come in that order already)
      if (!blocks.batched)
        headers.sort((a, b) => cmp(bound(a, field, order.desc), bound(b, field, order.desc)))
      let stop = false
      const take: Header[] = []
      for (const h of headers) {
        const best = bound(h, field, order.desc).v
        // every message of this block and of the blocks after it comes after the page's last one (a tie in value
        // may still come first by id, so only a strictly later value stops)
        if (worst && compareValues(best, worst.v) * (order.desc ? -1 : 1) > 0) {
          stop = true
          break
        }
        take.push(h)
      }
      const indexes = await this.indexes(take.map((h) => h.id))
      if (!indexes) return undefined
      for (const h of take) {
        for (const e of indexes.get(h.id)!) {
          if (!h.hits.has(e.key) || !inRange(e, q)) continue
          const at = { v: sortValue(h, e, field), id: e.id }
          // not among the first `need` (entries then hold that many, sorted), or not after the cursor
          if ((worst && cmp(at, worst) > 0) || (after && cmp(at, after) <= 0)) continue
          entries.push({ ...at, block: h, index: e })
        }
        if (entries.length > 2 * need + 256) settle()
      }
      settle()
      if (stop || rows.length < BLOCK_BATCH || !blocks.batched) break
      const tailOf = headers.at(-1)!
      const last = { v: bound(tailOf, field, order.desc).v, id: tailOf.id }
      rows = await this.db.all(...unpack(blocks.batch(last, snapshot)))
    }
    const pageEntries = entries.slice(offset, offset + q.limit)
    const items = await this.records(pageEntries)
    if (!items) return undefined
    const lastEntry = pageEntries.at(-1)
    const next: Cursor | null =
      entries.length > offset + q.limit && lastEntry ? { v: lastEntry.v, id: lastEntry.id } : null
    return { items, count, next }
  }

  /**
   * A list's first read, one read transaction: the tail's first `need` rows in the list's order (after the
   * cursor), the list's count, the newest block (later batches read no block after it) and the first batch of
   * blocks, with the statements over the blocks.
   */
  private async firstRead(
    tenant: string,
    q: ListArgs,
    order: Order,
    need: number,
    deviceIntID?: number,
  ) {
    const spec = deviceIntID === undefined ? eventSpec() : deviceEventSpec()
    const baseArgs: InValue[] =
      deviceIntID === undefined ? [tenant] : [tenant, deviceIntID, deviceIntID]
    // the tail's first `need` rows in the list's order (after the cursor), and its count
    const tail = listQuery(spec, baseArgs, { ...q, page: 1, limit: need })
    const blocks = blockQuery(tenant, q, order, deviceIntID)
    const [tailRows, tailCount, maxBlock, counted, edges, first] = await this.db.read([
      ...tail.statements,
      { sql: 'SELECT coalesce(max(id), 0) AS m FROM event_blocks', args: [] },
      blocks.count,
      blocks.edges,
      blocks.batch(undefined, undefined),
    ])
    const snapshot = Number(maxBlock![0]!.m)
    const tailPage = tail.page(tailRows!, tailCount!)
    const count = tailPage.count + Number(counted![0]?.n ?? 0) + (await edgeCount(edges!, q))
    return { blocks, tailRows: tailPage.items, count, snapshot, first }
  }

  /**
   * The decoded indexes of blocks by id; undefined when one no longer exists. Blocks never change (a fold writes
   * new ones; ids are not reused), so decoded indexes are kept for the next reads (the last INDEX_CACHE blocks).
   */
  private async indexes(ids: number[]): Promise<Map<number, IndexEntry[]> | undefined> {
    const out = new Map<number, IndexEntry[]>()
    const missing: number[] = []
    for (const id of ids) {
      const hit = this.cache.get(id)
      if (!hit) missing.push(id)
      else {
        this.cache.delete(id) // most recently used last
        this.cache.set(id, hit)
        out.set(id, hit)
      }
    }
    if (!missing.length) return out
    const rows = await this.db.all(
      `SELECT id, n, hex(idx) AS idx FROM event_blocks WHERE id IN (${marks(missing.length)})`,
      missing,
    )
    if (rows.length !== missing.length) return undefined
    const decoded = await Promise.all(
      rows.map((r) => decodeIndex(Buffer.from(String(r.idx), 'hex'), Number(r.n))),
    )
    rows.forEach((r, i) => {
      out.set(Number(r.id), decoded[i]!)
      this.cache.set(Number(r.id), decoded[i]!)
    })
    for (const id of this.cache.keys()) {
      if (this.cache.size <= INDEX_CACHE) break
      this.cache.delete(id)
    }
    return out
  }

  /** The page's records: tail rows as read, block messages with their payloads; undefined when a block is gone. */
  private async records(page: Entry[]): Promise<EventRecord[] | undefined> {
    const blockIDs = [...new Set(page.flatMap((e) => (e.block ? [e.block.id] : [])))]
    const payloads = new Map<number, Map<number, string | null>>()
    if (blockIDs.length) {
      const rows = await this.db.all(
        `SELECT id, n, hex(idx) AS idx, hex(data) AS data FROM event_blocks
          WHERE id IN (${marks(blockIDs.length)})`,
        blockIDs,
      )
      if (rows.length !== blockIDs.length) return undefined
      await Promise.all(
        rows.map(async (r) => {
          const id = Number(r.id)
          const index =
            this.cache.get(id) ??
            (await decodeIndex(Buffer.from(String(r.idx), 'hex'), Number(r.n)))
          const position = new Map(index.map((e, i) => [e.id, i]))
          const wanted = page.flatMap((e) => (e.block?.id === id ? [position.get(e.id)!] : []))
          const texts = await decodePayloads(Buffer.from(String(r.data), 'hex'), new Set(wanted))
          payloads.set(id, new Map(wanted.map((at) => [index[at]!.id, texts[at] ?? null])))
        }),
      )
    }
    return page.map((e) => {
      if (e.row) return e.row as unknown as EventRecord
      const h = e.block!
      const index = e.index!
      const key = h.keys[index.key]!
      return {
        id: e.id,
        deviceID: h.deviceID,
        deviceName: h.deviceName,
        gatewayName: h.deviceName,
        productName: h.productName,
        IP: key[2],
        topic: key[0],
        payload: payloads.get(h.id)!.get(e.id) ?? null,
        status: key[1],
        reason: key[3],
        msgTime: index.msgTime,
        createAt: index.createAt,
        updateAt: null,
      }
    })
  }
}

/** The list's order as listQuery sorts the tail: msgTime newest first by default. */
function orderOf(q: ListArgs): Order {
  const field = q.sort ?? 'msgTime'
  const desc = q.order === 'asc' ? false : q.order === 'desc' ? true : !q.sort
  return { field, desc }
}

/** The cursor as a position to compare with: numeric text stands for its number (as SQLite's affinity reads it). */
function cursorEntry(c: Cursor, field: string): { v: SortValue; id: number } {
  const numeric = !['deviceID', 'deviceName', 'topic'].includes(field)
  const v =
    numeric && typeof c.v === 'string' && c.v.trim() !== '' && Number.isFinite(Number(c.v))
      ? Number(c.v)
      : c.v
  return { v, id: c.id }
}

function headerOf(r: Row): Header {
  const keys = JSON.parse(String(r.keys)) as BlockKey[]
  const hits = new Set((JSON.parse(String(r.hits)) as number[]).map(Number))
  return {
    id: Number(r.id),
    n: Number(r.n),
    id0: Number(r.id0),
    id1: Number(r.id1),
    t0: Number(r.t0),
    t1: Number(r.t1),
    c0: Number(r.c0),
    c1: Number(r.c1),
    deviceID: String(r.deviceID),
    deviceName: (r.deviceName as string | null) ?? null,
    productName: (r.productName as string | null) ?? null,
    keys,
    hits,
  }
}

/** Messages in the time range of the blocks it cuts (rows of `edges`, with their index). */
async function edgeCount(edges: Row[], q: ListArgs): Promise<number> {
  const indexes = await Promise.all(
    edges.map((r) => decodeIndex(Buffer.from(String(r.idx), 'hex'), Number(r.n))),
  )
  let n = 0
  edges.forEach((r, i) => {
    const hits = headerOf(r).hits
    for (const e of indexes[i]!) if (hits.has(e.key) && inRange(e, q)) n++
  })
  return n
}

function inRange(e: IndexEntry, q: ListArgs): boolean {
  return (
    (q.startTime === undefined || e.msgTime >= q.startTime) &&
    (q.endTime === undefined || e.msgTime <= q.endTime)
  )
}

/** A message's value of the sort field. */
function sortValue(h: Header, e: IndexEntry, field: string): SortValue {
  switch (field) {
    case 'msgTime':
      return e.msgTime
    case 'createAt':
      return e.createAt
    case 'updateAt':
      return null
    case 'id':
      return e.id
    case 'deviceID':
      return h.deviceID
    case 'deviceName':
      return h.deviceName
    case 'topic':
      return h.keys[e.key]![0]
    case 'status':
      return h.keys[e.key]![1]
    default:
      throw new Error(`events cannot be sorted by ${field}`)
  }
}

/**
 * The best position any message of the block may have in the order (the first it could take): the highest
 * (value, id) descending, the lowest ascending.
 */
function bound(h: Header, field: string, desc: boolean): { v: SortValue; id: number } {
  const id = desc ? h.id1 : h.id0
  const pick = (values: SortValue[]) =>
    values.reduce((a, b) => ((desc ? compareValues(b, a) > 0 : compareValues(b, a) < 0) ? b : a))
  switch (field) {
    case 'msgTime':
      return { v: desc ? h.t1 : h.t0, id }
    case 'createAt':
      return { v: desc ? h.c1 : h.c0, id }
    case 'topic':
    case 'status': {
      const at = field === 'topic' ? 0 : 1
      return { v: pick([...h.hits].map((k) => h.keys[k]![at])), id }
    }
    case 'updateAt':
      return { v: null, id }
    case 'id':
      return { v: id, id }
    default:
      return { v: field === 'deviceID' ? h.deviceID : h.deviceName, id }
  }
}

/**
 * The statements over the blocks of a list: the count of the messages of blocks wholly inside the time range,
 * the blocks it cuts (with their index), and batches of blocks in the list's order (by their best position) after
 * a position. Only msgTime orders read batches by an index; another order reads every candidate block in one.
 */
function blockQuery(tenant: string, q: ListArgs, order: Order, deviceIntID?: number) {
  const blockFilters = filterConditions(BLOCK_FIELDS, q.filters)
  const keyFilters = filterConditions(KEY_FIELDS, q.filters)
  const keyWhere = keyFilters.conds.length
    ? keyFilters.conds.map((c) => `(${c})`).join(' AND ')
    : '1'
  const conds = ['b.tenant_id = ?', ...blockFilters.conds]
  const args: InValue[] = [tenant, ...blockFilters.args]
  if (deviceIntID !== undefined) {
    conds.push('b.device_int_id = ?')
    args.push(deviceIntID)
  }
  if (keyFilters.conds.length) {
    conds.push(`EXISTS (SELECT 1 FROM json_each(b.keys) k WHERE ${keyWhere})`)
    args.push(...keyFilters.args)
  }
  // blocks with a message in the range, and blocks wholly inside it
  const { conds: overlap, args: overlapArgs } = timeBounds(q, 'b.t1', 'b.t0')
  const { conds: inside, args: insideArgs } = timeBounds(q, 'b.t0', 'b.t1')
  const ranged = overlap.length > 0
  const hits = `(SELECT json_group_array(k.key) FROM json_each(b.keys) k WHERE ${keyWhere})`
  const matched = keyFilters.conds.length
    ? `(SELECT coalesce(sum(k.value ->> 4), 0) FROM json_each(b.keys) k WHERE ${keyWhere})`
    : 'b.n'
  const where = (more: string[]) => [...conds, ...more].map((c) => `(${c})`).join(' AND ')
  const columns = `b.id, b.n, b.id0, b.id1, b.t0, b.t1, b.c0, b.c1, b.device_id AS deviceID,
    b.device_name AS deviceName, p.product_name AS productName, b.keys, ${hits} AS hits`
  const from = 'FROM event_blocks b LEFT JOIN products p ON p.id = b.product_int_id'
  const count: Statement = {
    sql: `SELECT coalesce(sum(${matched}), 0) AS n FROM event_blocks b WHERE ${where([...overlap, ...inside])}`,
    args: [...keyFilters.args, ...args, ...overlapArgs, ...insideArgs],
  }
  const edges: Statement = ranged
    ? {
        sql: `SELECT ${columns}, hex(b.idx) AS idx ${from}
               WHERE ${where(overlap)} AND NOT (${inside.join(' AND ')})`,
        args: [...keyFilters.args, ...args, ...overlapArgs, ...insideArgs],
      }
    : { sql: 'SELECT 1 WHERE 0', args: [] }
  // msgTime: batches by the block's best time (t1 descending, t0 ascending), ties by block id
  const batched = order.field === 'msgTime'
  const boundExpr = order.desc ? 'b.t1' : 'b.t0'
  const dir = order.desc ? 'DESC' : 'ASC'
  const batch = (after: { v: SortValue; id: number } | undefined, snapshot: number | undefined) => {
    const more = [...overlap]
    const moreArgs = [...overlapArgs]
    if (snapshot !== undefined) {
      more.push('b.id <= ?')
      moreArgs.push(snapshot)
    }
    if (after && batched) {
      more.push(`(${boundExpr}, b.id) ${order.desc ? '<' : '>'} (?, ?)`)
      moreArgs.push(after.v, after.id)
    }
    const sql = batched
      ? `SELECT ${columns} ${from} WHERE ${where(more)} ORDER BY ${boundExpr} ${dir}, b.id ${dir} LIMIT ${BLOCK_BATCH}`
      : `SELECT ${columns} ${from} WHERE ${where(more)}`
    return { sql, args: [...keyFilters.args, ...args, ...moreArgs] }
  }
  return { count, edges, batch, batched }
}

function unpack(s: Statement): [string, InValue[]] {
  return [s.sql, s.args as InValue[]]
}
