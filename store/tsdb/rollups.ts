/**
 * The rollups of the embedded telemetry store (the tiers of store/rollups.ts), packed beside the hour chunks in
 * the `rollups` table: one row per series, tier and block, never a row per window.
 * - tier 1 (`1m`): a block is one UTC hour (the hour of a chunk), up to 60 minute windows;
 * - tier 2 (`1h`): a block is one day of the store's zone, its local hours;
 * - tier 3 (`1d`): a block is one month of the zone, its local days.
 * A block holds its windows as columns (start offset, count, non-numbers, times of min and max, min, max, sum),
 * integers packed as pack.ts packs chunk times, numbers as decimal-scaled integers where exact
 * (codec.ts packNumbers), else Float64.
 *
 * Compaction (compact.ts) rolls an hour when it merges its chunks (or finds a lone chunk not rolled):
 * the hour's minute windows replace its tier-1 block, then the local hours overlapping it are recomputed from the
 * tier-1 blocks and replace their entries in their day's tier-2 block, then those days' totals replace their
 * entries in their month's tier-3 block. An hour is rolled again whenever it gets new chunks, so rollups always
 * end up equal to the stored values; until then the reads treat the hour as dirty and read its raw values.
 */
import type { Client, InStatement } from '../libsql/db.ts'
import {
  emptyStat,
  foldStat,
  HOUR_MS,
  minuteStats,
  MINUTE_MS,
  type Tier,
  type WindowStat,
} from '../rollups.ts'
import { windowBounds } from '../windows.ts'
import type { TelemetryValue } from '../telemetry.ts'
import { packNumbers, unpackNumbers } from './codec.ts'
import { packInts, unpackInts } from './pack.ts'

export const TIER_ID: Record<Tier, number> = { '1m': 1, '1h': 2, '1d': 3 }

const VERSION = 1
const COL_INTS = 0
const COL_F64 = 1
const COL_DECIMAL = 2

/** Appends a column: its encoding, byte length (u32) and bytes. */
function column(parts: Uint8Array[], values: number[], ints: boolean) {
  let enc = COL_F64
  let bytes: Uint8Array | undefined
  if (ints && (bytes = packInts(values))) enc = COL_INTS
  else if (!ints && (bytes = packNumbers(values))) enc = COL_DECIMAL
  else bytes = new Uint8Array(new Float64Array(values).buffer)
  const head = new Uint8Array(5)
  head[0] = enc
  new DataView(head.buffer).setUint32(1, bytes.length, true)
  parts.push(head, bytes)
}

/** A block of windows (ascending starts, all at whole minutes from blockStart) as bytes. */
export function encodeBlock(blockStart: number, stats: readonly WindowStat[]): Uint8Array {
  const head = new Uint8Array(5)
  head[0] = VERSION
  new DataView(head.buffer).setUint32(1, stats.length, true)
  const parts: Uint8Array[] = [head]
  // the columns in decodeBlock's order: integers (offsets, counts, times of extremes), then numbers
  const ints: Array<(s: WindowStat) => number> = [
    (s) => (s.start - blockStart) / MINUTE_MS,
    (s) => s.count,
    (s) => s.other,
    (s) => (s.count ? s.tmin - s.start : 0),
    (s) => (s.count ? s.tmax - s.start : 0),
  ]
  const numbers: Array<(s: WindowStat) => number> = [(s) => s.min, (s) => s.max, (s) => s.sum]
  for (const f of ints) column(parts, stats.map(f), true)
  for (const f of numbers) column(parts, stats.map(f), false)
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let pos = 0
  for (const p of parts) {
    out.set(p, pos)
    pos += p.length
  }
  return out
}

/** The windows of a block. */
export function decodeBlock(blockStart: number, blob: ArrayBuffer | Uint8Array): WindowStat[] {
  const bytes = blob instanceof Uint8Array ? blob : new Uint8Array(blob)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (bytes[0] !== VERSION) throw new Error(`rollup block of unknown version ${bytes[0]}`)
  const n = view.getUint32(1, true)
  let pos = 5
  const cols: number[][] = []
  for (let c = 0; c < 8; c++) {
    const enc = bytes[pos]!
    const len = view.getUint32(pos + 1, true)
    const body = bytes.subarray(pos + 5, pos + 5 + len)
    pos += 5 + len
    if (enc === COL_INTS) cols.push(unpackInts(body, n))
    else if (enc === COL_DECIMAL) cols.push(unpackNumbers(body, n))
    else cols.push(Array.from(new Float64Array(body.slice().buffer)))
  }
  const [off, count, other, tmin, tmax, min, max, sum] = cols as [
    number[],
    number[],
    number[],
    number[],
    number[],
    number[],
    number[],
    number[],
  ]
  const out: WindowStat[] = new Array<WindowStat>(n)
  for (let i = 0; i < n; i++) {
    const start = blockStart + off[i]! * MINUTE_MS
    out[i] = {
      start,
      count: count[i]!,
      other: other[i]!,
      min: min[i]!,
      tmin: start + tmin[i]!,
      max: max[i]!,
      tmax: start + tmax[i]!,
      sum: sum[i]!,
    }
  }
  return out
}

/** The block a window of a tier belongs to: its UTC hour (1m), its local day (1h) or its local month (1d). */
export function blockOf(tier: Tier, t: number, tz: string): number {
  if (tier === '1m') return Math.floor(t / HOUR_MS) * HOUR_MS
  return windowBounds(t, t + 1, tier === '1h' ? '1d' : '1mo', tz)[0]!
}

/** The blocks of a tier that may hold windows starting in [from, to) (a block starts at most this much earlier). */
const BLOCK_REACH: Record<Tier, number> = {
  '1m': HOUR_MS,
  '1h': 26 * HOUR_MS,
  '1d': 32 * 24 * HOUR_MS,
}

const rowKey = (seriesId: number, tier: number, start: number) => `${seriesId}:${tier}:${start}`

/**
 * Rolls hours up within one transaction's statements: reads the blocks it needs (through `client`, cached for the
 * call), computes the new ones, and answers the statements writing them.
 */
export class RollupWriter {
  private readonly rows = new Map<
    string,
    { seriesId: number; tier: number; start: number; stats: WindowStat[] }
  >()
  private readonly changed = new Set<string>()

  constructor(
    private readonly client: Client,
    private readonly tz: string,
  ) {}

  /** The windows of a block (read once, then from this call's cache). */
  private async block(seriesId: number, tier: number, start: number) {
    const key = rowKey(seriesId, tier, start)
    let row = this.rows.get(key)
    if (!row) {
      const rs = await this.client.execute({
        sql: 'SELECT data FROM rollups WHERE series_id = ? AND tier = ? AND t_start = ?',
        args: [seriesId, tier, start],
      })
      const data = rs.rows[0]?.[0] as ArrayBuffer | undefined
      row = { seriesId, tier, start, stats: data ? decodeBlock(start, data) : [] }
      this.rows.set(key, row)
    }
    return row
  }

  /** Replaces the windows of [from, to) in a block by `stats`. */
  private async splice(
    seriesId: number,
    tier: number,
    start: number,
    from: number,
    to: number,
    stats: WindowStat[],
  ) {
    const row = await this.block(seriesId, tier, start)
    const keep = row.stats.filter((s) => s.start < from || s.start >= to)
    row.stats = [...keep, ...stats.filter((s) => s.count + s.other > 0)].sort(
      (a, b) => a.start - b.start,
    )
    this.changed.add(rowKey(seriesId, tier, start))
  }

  /** Rolls up one UTC hour of a series from its values (all of the hour's stored values, time ascending). */
  async rollHour(
    seriesId: number,
    hour: number,
    time: ArrayLike<number>,
    value: ArrayLike<TelemetryValue>,
  ) {
    await this.splice(seriesId, 1, hour, hour, hour + HOUR_MS, minuteStats(time, value))
    await this.propagate(seriesId, hour)
  }

  /** Recomputes the local hours overlapping UTC hour `hour` from tier 1, and their days' totals in tier 3. */
  async propagate(seriesId: number, hour: number) {
    const hours = windowBounds(hour, hour + HOUR_MS, '1h', this.tz)
    const days = new Set<number>()
    for (let i = 0; i + 1 < hours.length; i++) {
      const [a, b] = [hours[i]!, hours[i + 1]!]
      const acc = emptyStat(a)
      for (let h = Math.floor(a / HOUR_MS) * HOUR_MS; h < b; h += HOUR_MS)
        for (const s of (await this.block(seriesId, 1, h)).stats)
          if (s.start >= a && s.start < b) foldStat(acc, s)
      const day = blockOf('1h', a, this.tz)
      await this.splice(seriesId, 2, day, a, b, [acc])
      days.add(day)
    }
    for (const day of days) {
      const acc = emptyStat(day)
      for (const s of (await this.block(seriesId, 2, day)).stats) foldStat(acc, s)
      const month = blockOf('1d', day, this.tz)
      await this.splice(seriesId, 3, month, day, day + 1, [acc])
    }
  }

  /** The statements writing every changed block (an emptied block is deleted). */
  statements(): InStatement[] {
    const out: InStatement[] = []
    for (const key of this.changed) {
      const r = this.rows.get(key)!
      out.push(
        r.stats.length
          ? {
              sql: 'INSERT OR REPLACE INTO rollups (series_id, tier, t_start, data) VALUES (?, ?, ?, ?)',
              args: [r.seriesId, r.tier, r.start, encodeBlock(r.start, r.stats)],
            }
          : {
              sql: 'DELETE FROM rollups WHERE series_id = ? AND tier = ? AND t_start = ?',
              args: [r.seriesId, r.tier, r.start],
            },
      )
    }
    return out
  }
}

/**
 * The windows of a tier of some series starting in [from, to), per series in time order (one query per tier,
 * one snapshot with the caller's other reads when given in one batch).
 */
export function tierQuery(
  ids: readonly number[],
  tier: Tier,
  from: number,
  to: number,
): InStatement {
  return {
    sql: `SELECT series_id, t_start, data FROM rollups WHERE series_id IN (${ids.map(() => '?').join(', ')})
            AND tier = ? AND t_start >= ? AND t_start < ? ORDER BY series_id, t_start`,
    args: [...ids, TIER_ID[tier], from - BLOCK_REACH[tier], to],
  }
}

/** The windows of tierQuery's rows that start in [from, to), per series id. */
export function tierWindows(
  rows: ReadonlyArray<ArrayLike<unknown>>,
  from: number,
  to: number,
): Map<number, WindowStat[]> {
  const out = new Map<number, WindowStat[]>()
  for (const r of rows) {
    const id = Number(r[0])
    let list = out.get(id)
    if (!list) out.set(id, (list = []))
    for (const s of decodeBlock(Number(r[1]), r[2] as ArrayBuffer))
      if (s.start >= from && s.start < to) list.push(s)
  }
  return out
}

/** DELETEs of the rollup blocks of some series ending before `before` (RETENTION_ROLLUP_DAYS), per tier. */
export function deleteRollupsBefore(ids: readonly number[], before: number): InStatement[] {
  return (['1m', '1h', '1d'] as const).map((tier) => ({
    sql: `DELETE FROM rollups WHERE series_id IN (${ids.map(() => '?').join(', ')}) AND tier = ? AND t_start < ?`,
    args: [...ids, TIER_ID[tier], before - BLOCK_REACH[tier]],
  }))
}

/** Blocks of tier 1 re-read per step when hour and day rollups are rebuilt for another zone. */
const REBUILD_STEP = 500

/**
 * Makes the file's hour and day rollups follow `tz`: a file rolled up in another zone (TIMEZONE changed) gets its
 * tiers 2 and 3 rebuilt from tier 1 (UTC minutes serve every zone) before the store opens.
 */
export async function followZone(client: Client, tz: string) {
  const rs = await client.execute("SELECT value FROM settings WHERE key = 'rollup_zone'")
  const zone = rs.rows[0] ? (rs.rows[0][0] as string) : undefined
  if (zone === tz) return
  if (zone !== undefined) {
    await client.execute('DELETE FROM rollups WHERE tier > 1')
    let after: [number, number] = [-1, 0] // series ids start at 1
    for (;;) {
      const page = await client.execute({
        sql: `SELECT series_id, t_start FROM rollups WHERE tier = 1 AND (series_id, t_start) > (?, ?)
                ORDER BY series_id, t_start LIMIT ${REBUILD_STEP}`,
        args: after,
      })
      if (page.rows.length === 0) break
      const w = new RollupWriter(client, tz)
      for (const r of page.rows) await w.propagate(Number(r[0]), Number(r[1]))
      await client.batch(w.statements(), 'write')
      const last = page.rows[page.rows.length - 1]!
      after = [Number(last[0]), Number(last[1])]
    }
  }
  await client.execute({
    sql: "INSERT OR REPLACE INTO settings (key, value) VALUES ('rollup_zone', ?)",
    args: [tz],
  })
}

/** True when a series has minute rollups in [start, end) in an hour whose raw values are gone (retention). */
export async function rolledWithoutRaw(
  client: Client,
  seriesId: number,
  start: number,
  end: number,
): Promise<boolean> {
  const rs = await client.execute({
    sql: `SELECT EXISTS (SELECT 1 FROM rollups r WHERE r.series_id = ? AND r.tier = 1 AND r.t_start >= ?
            AND r.t_start < ? AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.series_id = r.series_id
            AND c.t_start >= r.t_start AND c.t_start < r.t_start + ${HOUR_MS}))`,
    args: [seriesId, Math.floor(start / HOUR_MS) * HOUR_MS, end],
  })
  return Number(rs.rows[0]![0]) === 1
}
