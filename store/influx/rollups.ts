/**
 * The rollups of the InfluxDB store (the tiers of store/rollups.ts) in a second bucket, INFLUX_ROLLUP_BUCKET,
 * written by the service (measurements in rollup-flux.ts):
 * - Every write first marks the (device, UTC hour)s it touches as pending (a fresh `seq`, and `at` = now), then
 *   writes the raw values. A mark is reused for MARK_REUSE_MS, so a busy device adds one line every 10 s.
 * - A roller (each process, every ROLL_EVERY_MS) rolls the marks written at least ROLL_SETTLE_MS ago whose `seq`
 *   is not yet `rolled`: it reads the device's raw values of that hour (and of the zone's hours overlapping it),
 *   writes the hour's minute windows and those local hours, folds the local days from their hour windows, then
 *   writes `rolled` = the `seq` it read. A write landing meanwhile writes a new `seq`, so the hour stays pending;
 *   the settle time (more than the reuse plus a write's timeout) lets every write under a mark land first.
 * - Reads (store/rollup-reads.ts) treat an hour with a pending mark as dirty and read its raw values, so answers
 *   are exact in every process, whichever wrote the values.
 * - `rollup_state` says whether every stored hour has rollups or a mark (`ready`, in zone `tz`). A bucket that
 *   held raw values before rollups existed, or a change of TIMEZONE, is backfilled in the background: a mark for
 *   every (device, hour) with values, rolled by the roller; until it is ready, reads use raw values only.
 */
import { escape, HttpError, type InfluxDB, type QueryApi } from '@influxdata/influxdb-client'
import { randomBytes } from 'node:crypto'
import type { RollupSource } from '../rollup-reads.ts'
import {
  DAY_MS,
  emptyStat,
  foldStat,
  foldValues,
  HOUR_MS,
  lowerBound,
  minuteStats,
  type WindowStat,
} from '../rollups.ts'
import type { Series, SeriesRange, TelemetryPoint, Tier } from '../telemetry.ts'
import { windowBounds } from '../windows.ts'
import { predicate } from './flux.ts'
import { InfluxLineWriter } from './line-writer.ts'
import { toStoreError } from './errors.ts'
import { ALL_TIME, TIME_LIMITS } from './options.ts'
import {
  deviceRawQuery,
  groupPendingQuery,
  groupTierQuery,
  hoursWithDataQuery,
  pendingQuery,
  PENDING,
  PENDING_DAY,
  rawExtentQuery,
  ROLLUP,
  STATE,
  STATE_TIME,
  stateQuery,
  tierCountQuery,
  tierQuery,
} from './rollup-flux.ts'
import { normalize, queryRows, queryRowsRaw, queryTable } from './rows.ts'

/** A mark is written again after this long (a writer's later values need a newer mark). */
export const MARK_REUSE_MS = 10_000
/** A mark is rolled once it is this old: every write under it has landed (reuse + the 10 s request timeout). */
export const ROLL_SETTLE_MS = 30_000
/** How often each process looks for marks to roll. */
export const ROLL_EVERY_MS = 5_000
/** The hours the frequent pass looks at (data hours since); a wider pass every WIDE_EVERY_MS looks WIDE_MS back. */
const RECENT_MS = 3 * HOUR_MS
const WIDE_MS = 3 * DAY_MS
const WIDE_EVERY_MS = 10 * 60_000
/** The raw time a rollup read may fetch (store/rollup-reads.ts); wider dirty spans are left to Flux. */
const MAX_RAW_READ_MS = 3 * HOUR_MS
/** Hours rolled at once. */
const ROLL_CONCURRENCY = 4
/** The backfill scans raw values this much at a time. */
const BACKFILL_STEP_MS = DAY_MS

export interface InfluxRollupOptions {
  org: string
  /** The raw bucket. */
  bucket: string
  rollupBucket: string
  /** TIMEZONE: the zone of the hour and day windows. */
  tz: string
  now?: () => number
  onError?: (e: unknown) => void
}

/** One pending mark. */
interface Mark {
  tenantID: string
  deviceID: string
  hour: number
  seq: string
  at: number
  rolled?: string
}

const markKey = (tenantID: string, deviceID: string, hour: number) =>
  `${tenantID}\u0000${deviceID}\u0000${hour}`

const tagsOf = (tenantID: string, deviceID: string) =>
  `device=${escape.tag(deviceID)},tenant=${escape.tag(tenantID)}`

export class InfluxRollups {
  readonly #writer: InfluxLineWriter
  readonly #now: () => number
  /** Marks this process wrote lately: reused while young; the promise settles when the mark landed. */
  readonly #marks = new Map<string, { at: number; done: Promise<void> }>()
  /** Hours this process marked that the passes may not look at (older than WIDE_MS): rolled by this process. */
  readonly #late = new Map<string, Mark>()
  #ready: boolean | undefined
  #disabled = false
  #opening: Promise<void> | undefined
  #backfilling: Promise<void> | undefined
  #timer: NodeJS.Timeout | undefined
  #rolling: Promise<number> | undefined
  #lastWide = 0
  #closed = false

  constructor(
    private readonly client: InfluxDB,
    private readonly query: QueryApi,
    private readonly opts: InfluxRollupOptions,
  ) {
    this.#writer = new InfluxLineWriter(client, opts.org, opts.rollupBucket)
    this.#now = opts.now ?? Date.now
  }

  /** Background errors go to onError; with none given they are dropped, never left as unhandled rejections. */
  readonly #report = (e: unknown) => this.opts.onError?.(toStoreError(e, 'rollups', 'rollups'))

  /** Starts the roller (and the state check, with a backfill when needed). */
  start() {
    this.#timer = setInterval(() => {
      if (!this.#rolling) void this.rollDue().catch(this.#report)
    }, ROLL_EVERY_MS)
    this.#timer.unref()
    void this.open().catch(this.#report)
  }

  /** True unless rollups are off; makes sure the bucket exists first (throws when InfluxDB does not answer). */
  private async usable(): Promise<boolean> {
    if (this.#ready === undefined && !this.#disabled) await this.open()
    return !this.#disabled
  }

  /** True when reads may use the rollups (every stored hour is rolled up or marked). */
  async ready(): Promise<boolean> {
    if (this.#ready !== true && !this.#disabled && !this.#backfilling)
      await this.open().catch(() => {})
    return this.#ready === true
  }

  /**
   * Makes sure the rollup bucket exists and reads its state; when it is not ready for this zone, starts the
   * backfill (in the background: reads use raw values until it is done). A bucket that cannot be created (the
   * token may not) turns rollups off for this process, with one error logged.
   */
  open(): Promise<void> {
    this.#opening ??= this.#open().finally(() => (this.#opening = undefined))
    return this.#opening
  }

  async #open() {
    if (this.#ready === true || this.#disabled || this.#backfilling) return
    if (this.#ready === undefined)
      try {
        await ensureBucket(this.client, this.opts.org, this.opts.rollupBucket)
      } catch (e) {
        if (e instanceof HttpError && [400, 401, 403, 404, 422].includes(e.statusCode)) {
          this.#disabled = true
          this.opts.onError?.(
            new Error(`rollups off: bucket ${this.opts.rollupBucket} cannot be used: ${e.message}`),
          )
          return
        }
        throw e
      }
    const state: Record<string, string> = {}
    await queryRowsRaw(this.query, stateQuery(this.opts.rollupBucket), (row) => {
      state[row._field!] = String(row._value)
    })
    if (state.ready === 'true' && state.tz === this.opts.tz) {
      this.#ready = true
      return
    }
    this.#ready = false
    this.#backfilling = this.#rebuild(state.tz)
      .catch(this.#report) // tried again at the next pass
      .finally(() => (this.#backfilling = undefined))
  }

  /**
   * Makes the bucket ready for this zone: the state first says so, not ready (other processes of this zone then
   * only backfill, never delete); another zone's hours and days are deleted; every stored hour is marked; then
   * the state says ready.
   */
  async #rebuild(zone: string | undefined) {
    const state = (ready: boolean) =>
      this.#writer.write([
        `${STATE} tz=${escape.quoted(this.opts.tz)},ready=${ready} ${STATE_TIME}`,
      ])
    if (zone !== this.opts.tz) {
      await state(false)
      if (zone !== undefined)
        for (const tier of ['1h', '1d'])
          await this.#delete(predicate([['tier', tier]], ROLLUP), ALL_TIME.stop)
    }
    await this.#backfill()
    await state(true)
    this.#ready = true
  }

  /**
   * A mark for every (device, hour) holding raw values, written at this time like a writer's: it settles first,
   * so a write landing meanwhile is rolled up with it.
   */
  async #backfill() {
    const at = this.#now()
    let first = Infinity
    let last = -Infinity
    await queryRowsRaw(
      this.query,
      rawExtentQuery(this.opts.bucket, Date.parse(ALL_TIME.start), Date.parse(ALL_TIME.stop)),
      (row) => {
        const t = Date.parse(row._time!)
        first = Math.min(first, t)
        last = Math.max(last, t)
      },
    )
    for (let from = first; from <= last && !this.#closed; from += BACKFILL_STEP_MS) {
      const lines: string[] = []
      const seen = new Set<string>()
      await queryRowsRaw(
        this.query,
        hoursWithDataQuery(this.opts.bucket, from, Math.min(from + BACKFILL_STEP_MS, last + 1)),
        (row) => {
          const hour = Math.floor(Date.parse(row._time!) / HOUR_MS) * HOUR_MS
          const key = markKey(row.tenant!, row.device!, hour)
          if (seen.has(key)) return // a row per data point of the device
          seen.add(key)
          lines.push(
            `${PENDING},${tagsOf(row.tenant!, row.device!)} seq="${token()}",at=${at}i ${hour}`,
          )
        },
      )
      await this.#writer.write(lines)
    }
  }

  /**
   * Marks the hours the points fall in as pending, before they are written: resolves once every mark landed
   * (reusing this process's marks younger than MARK_REUSE_MS).
   */
  async mark(points: readonly TelemetryPoint[]): Promise<void> {
    if (!(await this.usable())) return
    const now = this.#now()
    const lines: string[] = []
    const waits: Promise<void>[] = []
    const fresh: string[] = []
    const keys = new Set<string>()
    for (const p of points) {
      const hour = Math.floor(p.time / HOUR_MS) * HOUR_MS
      const key = markKey(p.tenantID, p.deviceID, hour)
      if (keys.has(key)) continue
      keys.add(key)
      const seen = this.#marks.get(key)
      if (seen && now - seen.at < MARK_REUSE_MS) {
        waits.push(seen.done)
        continue
      }
      const seq = token()
      lines.push(`${PENDING},${tagsOf(p.tenantID, p.deviceID)} seq="${seq}",at=${now}i ${hour}`)
      fresh.push(key)
      if (hour < now - WIDE_MS)
        this.#late.set(key, { tenantID: p.tenantID, deviceID: p.deviceID, hour, seq, at: now })
    }
    if (lines.length) {
      const done = this.#writer.write(lines)
      done.catch(() => fresh.forEach((k) => this.#marks.delete(k)))
      for (const k of fresh) this.#marks.set(k, { at: now, done })
      waits.push(done)
    }
    if (this.#marks.size > 100_000)
      for (const [k, m] of this.#marks) if (now - m.at >= MARK_REUSE_MS) this.#marks.delete(k)
    await Promise.all(waits)
  }

  /**
   * One pass of the roller: rolls the due marks (written ROLL_SETTLE_MS ago, or every pending one with `all`) of
   * recent hours, of the last WIDE_MS every WIDE_EVERY_MS (and with `all`), and this process's late marks.
   * Answers how many hours it rolled. One pass at a time: a call while one runs waits for it, then runs its own.
   */
  rollDue(all = false): Promise<number> {
    if (this.#rolling) return this.#rolling.then(() => this.rollDue(all))
    this.#rolling = this.#rollDue(all).finally(() => (this.#rolling = undefined))
    return this.#rolling
  }

  async #rollDue(all: boolean): Promise<number> {
    if (all) await this.ready().then(() => this.#backfilling)
    if (this.#closed || !(await this.ready())) return 0
    const now = this.#now()
    const wide = all || now - this.#lastWide >= WIDE_EVERY_MS
    if (wide) this.#lastWide = now
    const from = all ? Date.parse(ALL_TIME.start) : now - (wide ? WIDE_MS : RECENT_MS)
    const marks = await this.#pending(from, Date.parse(ALL_TIME.stop), PENDING)
    for (const [k, m] of this.#late) if (!marks.has(k)) marks.set(k, m)
    const due = [...marks.values()].filter(
      (m) => m.seq !== m.rolled && (all || m.at <= now - ROLL_SETTLE_MS),
    )
    await this.#each(due, (m) => this.#roll(m))
    // then the days whose hours changed (this pass's, another process's, or a fold that lost a race)
    const days = await this.#pending(from - DAY_MS, Date.parse(ALL_TIME.stop), PENDING_DAY)
    await this.#each(
      [...days.values()].filter((m) => m.seq !== m.rolled),
      (m) => this.#foldDay(m),
    )
    return due.length
  }

  /** Runs `fn` over the marks, ROLL_CONCURRENCY at a time, until closed. */
  async #each(marks: Mark[], fn: (m: Mark) => Promise<void>) {
    for (let i = 0; i < marks.length && !this.#closed; i += ROLL_CONCURRENCY)
      await Promise.all(marks.slice(i, i + ROLL_CONCURRENCY).map(fn))
  }

  /** The marks (of hours: PENDING, of days: PENDING_DAY) in [from, to), of one device when given, by key. */
  async #pending(
    from: number,
    to: number,
    measurement: string,
    device?: { tenantID: string; deviceID: string },
  ): Promise<Map<string, Mark>> {
    const out = new Map<string, Mark>()
    from = Math.max(from, TIME_LIMITS.min)
    to = Math.min(to, TIME_LIMITS.max)
    if (from >= to) return out
    await queryRowsRaw(
      this.query,
      pendingQuery(this.opts.rollupBucket, measurement, from, to, device),
      (row) => {
        const hour = Date.parse(row._time!)
        const key = markKey(row.tenant!, row.device!, hour)
        let m = out.get(key)
        if (!m) {
          m = { tenantID: row.tenant!, deviceID: row.device!, hour, seq: '', at: 0 }
          out.set(key, m)
        }
        if (row._field === 'seq') m.seq = row._value!
        else if (row._field === 'at') m.at = Number(row._value)
        else if (row._field === 'rolled') m.rolled = row._value!
      },
    )
    return out
  }

  /** Rolls one hour of a device up (see the module's comment), then records its mark as rolled. */
  async #roll(m: Mark) {
    const { tenantID, deviceID, hour } = m
    const hours = windowBounds(hour, hour + HOUR_MS, '1h', this.opts.tz)
    const from = hours[0]!
    const to = hours[hours.length - 1]!
    const raw = new Map<string, Series>()
    const product = new Map<string, string>()
    await queryRows(
      this.query,
      deviceRawQuery(this.opts.bucket, tenantID, deviceID, from, to),
      (point, time, value, prod) => {
        let s = raw.get(point)
        if (!s) raw.set(point, (s = { time: [], value: [] }))
        s.time.push(time)
        s.value.push(value)
        if (prod !== undefined) product.set(point, prod)
      },
      'product',
    )
    const lines: string[] = []
    for (const [point, unsorted] of raw) {
      const s = normalize(unsorted)
      const tags = pointTags(tenantID, deviceID, point, product.get(point))
      const a = lowerBound(s.time, hour)
      const b = lowerBound(s.time, hour + HOUR_MS)
      for (const w of minuteStats(s.time.slice(a, b), s.value.slice(a, b)))
        lines.push(windowLine(tags, '1m', w))
      for (let i = 0; i + 1 < hours.length; i++) {
        const acc = emptyStat(hours[i]!)
        const x = lowerBound(s.time, hours[i]!)
        foldValues(acc, s.time, s.value, x, lowerBound(s.time, hours[i + 1]!, x))
        if (acc.count + acc.other > 0) lines.push(windowLine(tags, '1h', acc))
      }
    }
    await this.#writer.write(lines)
    // the local days of these hours are folded again from their hour windows (#foldDay), after these landed
    const days = new Set(hours.slice(0, -1).map((h) => this.#dayOf(h)))
    await this.#writer.write([
      ...[...days].map(
        (day) => `${PENDING_DAY},${tagsOf(tenantID, deviceID)} seq="${token()}" ${day}`,
      ),
      `${PENDING},${tagsOf(tenantID, deviceID)} rolled=${escape.quoted(m.seq)} ${hour}`,
    ])
    // this process's next write to the hour needs a new mark (normal passes never roll a mark still reused; a
    // forced pass, rollUp(), may)
    this.#late.delete(markKey(tenantID, deviceID, hour))
    this.#marks.delete(markKey(tenantID, deviceID, hour))
  }

  /** The start of the zone's day holding t. */
  #dayOf(t: number): number {
    return windowBounds(t, t + 1, '1d', this.opts.tz)[0]!
  }

  /**
   * Folds a day's window of every point of a device from its stored hour windows, then records its mark as
   * rolled. An hour rolled meanwhile writes a new day mark after its windows, so the day stays pending until a
   * fold has read them.
   */
  async #foldDay(m: Mark) {
    const { tenantID, deviceID, hour: day } = m
    const end = windowBounds(day, day + 1, '1d', this.opts.tz, 3)[1]!
    const products = new Map<string, string>()
    const every = { tenantID, deviceID, dataPointIDs: [] }
    const stored = await this.#windows(every, '1h', day, end, products)
    const lines: string[] = []
    for (const [point, list] of stored) {
      const acc = emptyStat(day)
      for (const w of list) foldStat(acc, w)
      const tags = pointTags(tenantID, deviceID, point, products.get(point))
      if (acc.count + acc.other > 0) lines.push(windowLine(tags, '1d', acc))
    }
    await this.#writer.write(lines)
    await this.#writer.write([
      `${PENDING_DAY},${tagsOf(tenantID, deviceID)} rolled=${escape.quoted(m.seq)} ${day}`,
    ])
  }

  /**
   * The windows of a tier starting in [from, to) for some points of a device (every point when none are named),
   * time ascending; `products` gets each point's product.
   */
  async #windows(
    r: { tenantID: string; deviceID: string; dataPointIDs: readonly string[] },
    tier: Tier,
    from: number,
    to: number,
    products?: Map<string, string>,
  ): Promise<Map<string, WindowStat[]>> {
    const out = new Map<string, WindowStat[]>()
    for (const dp of r.dataPointIDs) out.set(dp, [])
    await queryTable(this.query, tierQuery(this.opts.rollupBucket, r, tier, from, to), (get) => {
      const start = Date.parse(get('_time'))
      const point = get('point')
      let list = out.get(point)
      if (!list) {
        if (r.dataPointIDs.length) return
        out.set(point, (list = []))
      }
      products?.set(point, get('product'))
      list.push({
        start,
        count: Number(get('n')),
        other: Number(get('o')),
        min: Number(get('min')),
        tmin: start + Number(get('tmin')),
        max: Number(get('max')),
        tmax: start + Number(get('tmax')),
        sum: Number(get('sum')),
      })
    })
    for (const list of out.values()) list.sort((a, b) => a.start - b.start)
    return out
  }

  /** What store/rollup-reads.ts needs, reading raw values through `readRaw`. */
  source(readRaw: RollupSource['readRaw']): RollupSource {
    return {
      tz: this.opts.tz,
      readRaw,
      // more raw than a few hours is aggregated by Flux in InfluxDB's storage, cheaper than reading it here
      maxRawSpanMs: MAX_RAW_READ_MS,
      dirtyHours: async (range) => {
        const from = Math.floor(range.start / HOUR_MS) * HOUR_MS
        const marks = await this.#pending(from, range.end, PENDING, range)
        const hours = [...marks.values()].filter((m) => m.seq !== m.rolled).map((m) => m.hour)
        return new Map(range.dataPointIDs.map((dp) => [dp, hours]))
      },
      staleDays: async (range) => {
        const marks = await this.#pending(range.start - DAY_MS, range.end, PENDING_DAY, range)
        return [...marks.values()].filter((m) => m.seq !== m.rolled).map((m) => m.hour)
      },
      tierWindows: (range, tier, from, to) => this.#windows(range, tier, from, to),
    }
  }

  /**
   * A group source (store/group-series.ts) of one data point: its keys are deviceIDs of the range's tenant; raw
   * values come through `readRaw` (deviceIDs, [start, end) → by deviceID).
   */
  groupSource(
    dataPointID: string,
    readRaw: (
      tenantID: string,
      deviceIDs: readonly string[],
      start: number,
      end: number,
    ) => Promise<Map<string, Series>>,
  ): RollupSource {
    const group = (r: SeriesRange) => ({
      tenantID: r.tenantID,
      deviceIDs: r.dataPointIDs,
      dataPointID,
      start: r.start,
      end: r.end,
    })
    return {
      tz: this.opts.tz,
      maxRawSpanMs: MAX_RAW_READ_MS,
      readRaw: (r) => readRaw(r.tenantID, r.dataPointIDs, r.start, r.end),
      dirtyHours: async (r) => {
        const from = Math.floor(r.start / HOUR_MS) * HOUR_MS
        return this.#dirtyOf(PENDING, group(r), from, r.end)
      },
      staleDays: async (r) => {
        const days = await this.#dirtyOf(PENDING_DAY, group(r), r.start - DAY_MS, r.end)
        return [...days.values()].flat()
      },
      tierWindows: async (r, tier, from, to) => {
        // a window per device and time, its fields filled as their rows come (tmin, tmax: not needed here)
        const windows = new Map<string, Map<string, WindowStat>>(
          r.dataPointIDs.map((d) => [d, new Map()]),
        )
        const query = groupTierQuery(this.opts.rollupBucket, group(r), tier, from, to)
        await queryTable(this.query, query, (get) => {
          const mine = windows.get(get('device'))
          if (!mine) return
          const at = get('_time')
          let w = mine.get(at)
          if (!w) mine.set(at, (w = emptyStat(Date.parse(at))))
          const field = get('_field')
          w[field === 'n' ? 'count' : (field as 'min' | 'max' | 'sum')] = Number(get('_value'))
        })
        return new Map(
          [...windows].map(([d, m]) => [d, [...m.values()].sort((a, b) => a.start - b.start)]),
        )
      },
    }
  }

  /** Per device of `g`, the times of its marks in [from, to) not rolled up yet. */
  async #dirtyOf(
    measurement: string,
    g: { tenantID: string; deviceIDs: readonly string[] },
    from: number,
    to: number,
  ): Promise<Map<string, number[]>> {
    const out = new Map<string, number[]>()
    from = Math.max(from, TIME_LIMITS.min)
    to = Math.min(to, TIME_LIMITS.max)
    if (from >= to || g.deviceIDs.length === 0) return out
    const marks = new Map<string, { device: string; seq?: string; rolled?: string }>()
    await queryTable(
      this.query,
      groupPendingQuery(this.opts.rollupBucket, measurement, g, from, to),
      (get) => {
        const key = `${get('device')}\u0000${get('_time')}`
        const m = marks.get(key) ?? { device: get('device') }
        if (get('_field') === 'seq') m.seq = get('_value')
        else m.rolled = get('_value')
        marks.set(key, m)
      },
    )
    for (const [key, m] of marks) {
      if (m.seq !== undefined && m.seq === m.rolled) continue
      const list = out.get(m.device) ?? []
      list.push(Date.parse(key.slice(key.indexOf('\u0000') + 1)))
      out.set(m.device, list)
    }
    return out
  }

  /**
   * The range's data points whose windows inside the range count more values than its raw values hold there: raw
   * values of some of their hours are gone (retention) and only rollups answer for them. Counted over the zone's
   * whole hours inside the range (its minutes when it holds fewer than two).
   */
  async rolledWithoutRaw(
    range: SeriesRange,
    rawCounts: (r: SeriesRange) => Promise<Map<string, number>>,
  ): Promise<Set<string>> {
    const hours = windowBounds(range.start, range.end, '1h', this.opts.tz)
    const whole = hours.filter((b) => b >= range.start && b <= range.end)
    const [tier, from, to]: [Tier, number, number] =
      whole.length >= 3
        ? ['1h', whole[0]!, whole[whole.length - 1]!]
        : ['1m', Math.ceil(range.start / 60_000) * 60_000, Math.floor(range.end / 60_000) * 60_000]
    const out = new Set<string>()
    if (to <= from) return out
    const rolled = new Map<string, number>()
    await queryRowsRaw(
      this.query,
      tierCountQuery(this.opts.rollupBucket, range, tier, from, to),
      (row) => rolled.set(row.point!, (rolled.get(row.point!) ?? 0) + Number(row._value)),
    )
    if (rolled.size === 0) return out
    const raw = await rawCounts({ ...range, start: from, end: to })
    for (const [dp, n] of rolled) if (n > (raw.get(dp) ?? 0)) out.add(dp)
    return out
  }

  /**
   * Deletes a device's rollups (its marks stay: they only say which hours to read raw). Deleted again once this
   * process's roller pass is over, so a roll that read the values before they went leaves nothing behind.
   */
  async deleteDevice(tenantID: string, deviceID: string) {
    if (!(await this.usable())) return
    const pred = predicate(
      [
        ['tenant', tenantID],
        ['device', deviceID],
      ],
      ROLLUP,
    )
    await this.#delete(pred)
    if (this.#rolling) {
      await this.#rolling.catch(() => {})
      await this.#delete(pred)
    }
  }

  /** Deletes one data point's rollups of every device of a product. */
  async deleteDataPoint(tenantID: string, productID: string, dataPointID: string) {
    if (!(await this.usable())) return
    await this.#delete(
      predicate(
        [
          ['tenant', tenantID],
          ['product', productID],
          ['point', dataPointID],
        ],
        ROLLUP,
      ),
    )
  }

  /** RETENTION_ROLLUP_DAYS: deletes the windows (and marks) that end before `before`. */
  async deleteBefore(before: number) {
    if (!(await this.usable())) return
    const len: Record<Tier, number> = { '1m': 60_000, '1h': 2 * HOUR_MS, '1d': 2 * DAY_MS }
    for (const tier of ['1m', '1h', '1d'] as const)
      await this.#delete(
        predicate([['tier', tier]], ROLLUP),
        new Date(before - len[tier] - 1).toISOString(),
      )
    await this.#delete(predicate([], PENDING), new Date(before - HOUR_MS - 1).toISOString())
  }

  async #delete(pred: string, stop: string = ALL_TIME.stop) {
    const { org, rollupBucket } = this.opts
    const path = `/api/v2/delete?org=${encodeURIComponent(org)}&bucket=${encodeURIComponent(rollupBucket)}`
    await this.client.transport.request(
      path,
      { start: ALL_TIME.start, stop, predicate: pred },
      { method: 'POST' },
    )
  }

  /** Stops the roller and waits for its pass and the writes in flight. */
  async close() {
    this.#closed = true
    clearInterval(this.#timer)
    await this.#rolling?.catch(() => {})
    await this.#opening?.catch(() => {})
    await this.#backfilling
    await this.#writer.close()
  }
}

/**
 * Creates the bucket (infinite retention: RETENTION_ROLLUP_DAYS deletes) unless it exists. `org` is a name or an
 * id, as INFLUX_ORG.
 */
async function ensureBucket(client: InfluxDB, org: string, name: string) {
  const q = (o: string) => `&org=${encodeURIComponent(o)}`
  // InfluxDB answers 404 for a name it does not have
  const found = (await client.transport
    .request(`/api/v2/buckets?name=${encodeURIComponent(name)}${q(org)}`, null, { method: 'GET' })
    .catch((e: unknown) => {
      if (e instanceof HttpError && e.statusCode === 404) return {}
      throw e
    })) as { buckets?: unknown[] }
  if (found.buckets?.length) return
  const orgs = (await client.transport
    .request(`/api/v2/orgs?org=${encodeURIComponent(org)}`, null, {
      method: 'GET',
    })
    .catch(() => ({ orgs: [] }))) as { orgs?: Array<{ id: string }> }
  const orgID = orgs.orgs?.[0]?.id ?? org
  await client.transport
    .request('/api/v2/buckets', { orgID, name, retentionRules: [] }, { method: 'POST' })
    .catch(async (e: unknown) => {
      // another process created it first
      if (!(e instanceof HttpError && e.statusCode === 422)) throw e
      const again = (await client.transport.request(
        `/api/v2/buckets?name=${encodeURIComponent(name)}${q(org)}`,
        null,
        { method: 'GET' },
      )) as { buckets?: unknown[] }
      if (!again.buckets?.length) throw e
    })
}

/** The tags of a point's windows. */
const pointTags = (tenantID: string, deviceID: string, point: string, product = '-') =>
  `${tagsOf(tenantID, deviceID)},point=${escape.tag(point)},product=${escape.tag(product || '-')}`

/** A random mark token. */
const token = () => randomBytes(9).toString('base64url')

/** The line of one window. */
function windowLine(tags: string, tier: Tier, w: WindowStat): string {
  const num = (x: number) => (Number.isFinite(x) ? String(x) : '0')
  return (
    `${ROLLUP},${tags},tier=${tier} min=${num(w.min)},max=${num(w.max)},sum=${num(w.sum)},` +
    `n=${w.count}i,o=${w.other}i,tmin=${w.count ? w.tmin - w.start : 0}i,tmax=${w.count ? w.tmax - w.start : 0}i ${w.start}`
  )
}
