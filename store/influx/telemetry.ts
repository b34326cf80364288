import { InfluxDB, type QueryApi } from '@influxdata/influxdb-client'
import type {
  AggregateFn,
  GroupRange,
  GroupSeries,
  LastValue,
  Resolution,
  RetentionRule,
  Series,
  SeriesRange,
  SeriesSlice,
  TelemetryPoint,
  TelemetryStore,
  WindowSpec,
} from '../telemetry.ts'
import { toStoreError } from './errors.ts'
import {
  aggregateQuery,
  countByPointQuery,
  dataPointPredicate,
  devicePredicate,
  productPredicate,
  extentQuery,
  type GroupRead,
  extremesQuery,
  groupAggregateQuery,
  groupRawQuery,
  latestQuery,
  latestOfQuery,
  readRawQuery,
} from './flux.ts'
import { storableTag, toLines } from './lines.ts'
import { ALL_TIME, DEFAULT_TIMEOUT_MS, QUERY_GZIP, TIME_LIMITS } from './options.ts'
import { normalize, queryRows, queryRowsRaw, queryTable } from './rows.ts'

/** Devices per latestOf query (each an equality InfluxDB's storage filters by). */
const LATEST_DEVICES = 100
/** The UTC windows group aggregates of raw values are read in, coarsest first (groupFromFlux). */
const GRAINS: ReadonlyArray<readonly [string, number]> = [
  ['1h', 3_600_000],
  ['30m', 1_800_000],
  ['15m', 900_000],
  ['5m', 300_000],
  ['1m', 60_000],
]
import { windowBounds, windowIndex } from '../windows.ts'
import { bucketsOf } from '../downsample.ts'
import { alignedBuckets } from '../rollups.ts'
import { streamByDay } from '../slices.ts'
import { InfluxLineWriter } from './line-writer.ts'
import { InfluxRollups } from './rollups.ts'
import { aggregateFromRollups, downsampleFromRollups } from '../rollup-reads.ts'
import {
  deviceChunks,
  GroupFold,
  groupFromRaw,
  groupFromRollups,
  type WindowPart,
} from '../group-series.ts'

export interface InfluxOptions {
  url: string
  token: string
  org: string
  bucket: string
  /** HTTP request timeout in ms (default 10 s): calls reject with Unavailable instead of hanging. */
  timeoutMs?: number
  /**
   * The bucket of the rollups (store/influx/rollups.ts; created when missing). Absent: no rollups, aggregates and
   * downsamples computed by Flux from raw values.
   */
  rollupBucket?: string
  /** TIMEZONE: the zone of the hour and day rollups (default UTC). */
  timezone?: string
  /** Where background errors of the roller go. */
  onError?: (e: unknown) => void
  /** The clock of the roller (tests). */
  now?: () => number
}

/**
 * The InfluxDB 2.x telemetry store: line protocol through the client's WriteApi (batched, gzip), reads in Flux.
 * Measurement `telemetry`, tags tenant/product/device/point, field `v` (float), `s` (string) or `b` (boolean).
 * A data point's type is fixed by its pointDataType, so each point has one field; the same (tenant, device,
 * point, time) written twice keeps the last value (InfluxDB overwrites series + time + field).
 */
export class InfluxTelemetryStore implements TelemetryStore {
  readonly kind = 'influxdb'
  readonly #writer: InfluxLineWriter
  readonly #query: QueryApi
  readonly #rollups: InfluxRollups | undefined

  private constructor(
    private readonly client: InfluxDB,
    private readonly opts: InfluxOptions,
  ) {
    this.#writer = new InfluxLineWriter(client, opts.org, opts.bucket)
    this.#query = client.getQueryApi({ org: opts.org, type: 'flux', gzip: QUERY_GZIP })
    if (opts.rollupBucket)
      this.#rollups = new InfluxRollups(client, this.#query, {
        org: opts.org,
        bucket: opts.bucket,
        rollupBucket: opts.rollupBucket,
        tz: opts.timezone ?? 'UTC',
        now: opts.now,
        onError: opts.onError,
      })
  }

  /** Creates the client; does not contact InfluxDB (the service starts while InfluxDB is briefly down). */
  static async open(opts: InfluxOptions): Promise<InfluxTelemetryStore> {
    const client = new InfluxDB({
      url: opts.url,
      token: opts.token,
      timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    })
    const store = new InfluxTelemetryStore(client, opts)
    store.#rollups?.start()
    return store
  }

  /**
   * Rolls up every pending hour now, settled or not (maintenance and tests: a mark another process still reuses
   * may be rolled early); answers how many hours.
   */
  rollUp(): Promise<number> {
    return this.#rollups?.rollDue(true) ?? Promise.resolve(0)
  }

  /** One pass of the roller, as its timer runs it (hours whose marks settled); answers how many hours. */
  rollDue(): Promise<number> {
    return this.#rollups?.rollDue() ?? Promise.resolve(0)
  }

  /** The rollups, when they may answer reads now. */
  private async rollups(): Promise<InfluxRollups | undefined> {
    return this.#rollups && (await this.#rollups.ready()) ? this.#rollups : undefined
  }

  /**
   * Resolves once InfluxDB accepted every point (HTTP 204). Rejects with Invalid before sending anything when
   * a point cannot be represented, with Invalid when InfluxDB refuses the data, else with Unavailable.
   */
  async write(points: readonly TelemetryPoint[]): Promise<void> {
    const lines = toLines(points)
    // the hours are marked pending before their values land (store/influx/rollups.ts)
    await this.#rollups?.mark(points).catch((e) => {
      throw toStoreError(e, 'write')
    })
    await this.#writer.write(lines)
  }

  /** Raw values of the requested data points in [start, end), time ascending; every point gets an entry. */
  async readRaw(range: SeriesRange): Promise<Map<string, Series>> {
    const out = new Map<string, Series>()
    for (const id of range.dataPointIDs) out.set(id, { time: [], value: [] })
    const r = this.clamp(range)
    if (!r) return out
    const query = readRawQuery(this.opts.bucket, r)
    await queryRows(this.#query, query, (point, time, value) => {
      const s = out.get(point)
      if (s) {
        s.time.push(time)
        s.value.push(value)
      }
    })
    for (const [id, s] of out) out.set(id, normalize(s))
    return out
  }

  /**
   * Per-window aggregates computed by Flux (`aggregateWindow` with `timezone.location`), relabelled with the
   * true window starts of store/windows.ts (Flux labels a window cut by the range start with the range start).
   */
  async aggregate(
    range: SeriesRange,
    fn: AggregateFn,
    window: WindowSpec,
  ): Promise<Map<string, Series>> {
    const out = new Map<string, Series>()
    for (const id of range.dataPointIDs) out.set(id, { time: [], value: [] })
    const r = this.clamp(range)
    if (!r) return out
    const bounds = windowBounds(r.start, r.end, window.every, window.tz)
    const rollups = await this.rollups()
    if (rollups) {
      const source = rollups.source((x) => this.readRaw(x))
      const got = await aggregateFromRollups(source, r, fn, bounds)
      for (const [id, s] of got.out) out.set(id, s)
      if (got.unplanned.length === 0) return out
      r.dataPointIDs = got.unplanned
    }
    await queryRows(
      this.#query,
      aggregateQuery(this.opts.bucket, r, fn, window.every, window.tz),
      (point, time, value) => {
        const s = out.get(point)
        if (s) {
          s.time.push(bounds[windowIndex(bounds, time)]!)
          s.value.push(value)
        }
      },
    )
    for (const id of r.dataPointIDs) out.set(id, normalize(out.get(id)!))
    return out
  }

  /**
   * One data point of a group's devices per window: from the rollups and raw edges a hundred devices at a time
   * (store/group-series.ts); devices the rollups cannot plan (or all, while rollups are off or backfilling) are
   * aggregated by Flux from raw values.
   */
  async groupSeries(range: GroupRange, window: WindowSpec): Promise<GroupSeries> {
    const start = Math.max(range.start, TIME_LIMITS.min)
    const end = Math.min(range.end, TIME_LIMITS.max)
    const bounds = windowBounds(start, end, window.every, window.tz)
    const fold = new GroupFold(bounds, range.shown)
    if (range.deviceIDs.length === 0 || end <= start) return fold.result('raw')
    const r = { ...range, start, end }
    let rest: readonly string[] = range.deviceIDs
    let resolution: Resolution = 'raw'
    const rollups = await this.rollups()
    if (rollups) {
      const source = rollups.groupSource(r.dataPointID, (tenantID, deviceIDs, from, to) =>
        this.groupRaw({ tenantID, deviceIDs, dataPointID: r.dataPointID, start: from, end: to }),
      )
      ;({ resolution, unplanned: rest } = await groupFromRollups(source, r, bounds, fold))
    }
    if (rest.length) await this.groupFromFlux(r, rest, bounds, fold)
    return fold.result(resolution)
  }

  /**
   * The devices the rollups could not serve, aggregated by InfluxDB from raw values in UTC windows of the coarsest
   * grain every answer window is made of (pushed down to its storage, which windows in a zone are not), folded into
   * the answer windows here; windows not made of whole minutes are read raw.
   */
  private async groupFromFlux(
    r: GroupRange,
    deviceIDs: readonly string[],
    bounds: number[],
    fold: GroupFold,
  ) {
    const inner = bounds.slice(1, -1)
    const grain = GRAINS.find(([, ms]) => inner.every((b) => b % ms === 0))?.[0]
    const read = (devices: readonly string[], start: number, end: number) =>
      this.groupRaw({ ...r, deviceIDs: devices, start, end })
    if (!grain) return groupFromRaw(read, r, deviceIDs, bounds, fold)
    for (const part of deviceChunks(r, deviceIDs)) {
      const g = { ...r, deviceIDs: part.dataPointIDs }
      // one part per device and UTC window, its fields filled as their rows come
      const parts = new Map<string, WindowPart & { device: string; at: number }>()
      await queryTable(this.#query, groupAggregateQuery(this.opts.bucket, g, grain), (get) => {
        const key = `${get('device')}\u0000${get('_time')}`
        let p = parts.get(key)
        if (!p) {
          const at = Date.parse(get('_time'))
          parts.set(key, (p = { device: get('device'), at, count: 0, min: 0, max: 0, sum: 0 }))
        }
        p[get('fn') as keyof WindowPart] = Number(get('_value'))
      })
      for (const p of parts.values()) fold.add(p.device, windowIndex(bounds, p.at), p)
    }
  }

  /** The numbers of one data point of some devices in [start, end), by deviceID (time ascending). */
  private async groupRaw(g: GroupRead): Promise<Map<string, Series>> {
    const out = new Map<string, Series>()
    await queryRows(
      this.#query,
      groupRawQuery(this.opts.bucket, g),
      (_point, time, value, device) => {
        if (device === undefined) return
        let s = out.get(device)
        if (!s) out.set(device, (s = { time: [], value: [] }))
        s.time.push(time)
        s.value.push(value)
      },
    )
    for (const [d, s] of out) out.set(d, normalize(s))
    return out
  }

  /**
   * At most maxPoints values per point: points with fewer are read whole, the others reduced in Flux to each
   * bucket's max and min (first and last for strings and booleans), the buckets of store/downsample.ts.
   */
  async downsample(
    range: SeriesRange,
    maxPoints: number,
    tz = 'UTC',
  ): Promise<Map<string, Series>> {
    const out = new Map<string, Series>()
    for (const id of range.dataPointIDs) out.set(id, { time: [], value: [] })
    const r = this.clamp(range)
    if (!r) return out
    const counts = await this.countByPoint(r)
    const aligned = alignedBuckets(r.start, r.end, maxPoints, tz)
    const rollups = aligned && (await this.rollups())
    let few = r.dataPointIDs.filter(
      (id) => (counts.get(id) ?? 0) > 0 && counts.get(id)! <= maxPoints,
    )
    let many = r.dataPointIDs.filter((id) => (counts.get(id) ?? 0) > maxPoints)
    if (rollups) {
      // a point with few raw values may have more in rollups whose raw values are gone (retention)
      const fewOrNone = r.dataPointIDs.filter((id) => !many.includes(id))
      const gone = fewOrNone.length
        ? await rollups.rolledWithoutRaw({ ...r, dataPointIDs: fewOrNone }, (x) =>
            this.countByPoint(x),
          )
        : new Set<string>()
      many = r.dataPointIDs.filter((id) => (counts.get(id) ?? 0) > maxPoints || gone.has(id))
      few = few.filter((id) => !gone.has(id))
      const source = rollups.source((x) => this.readRaw(x))
      const got = await downsampleFromRollups(source, { ...r, dataPointIDs: many }, aligned.bounds)
      for (const [id, s] of got.out) out.set(id, s)
      many = got.unplanned
    }
    if (few.length)
      for (const [id, s] of await this.readRaw({ ...r, dataPointIDs: few })) out.set(id, s)
    if (many.length) {
      const { width } = bucketsOf(r.start, r.end, maxPoints)
      await queryRows(
        this.#query,
        extremesQuery(
          this.opts.bucket,
          { ...r, dataPointIDs: many },
          aligned ? { every: aligned.every, tz } : { widthMs: width },
        ),
        (point, time, value) => {
          const s = out.get(point)
          if (s) {
            s.time.push(time)
            s.value.push(value)
          }
        },
      )
      for (const id of many) out.set(id, normalize(out.get(id)!))
    }
    return out
  }

  /** How many values the range holds (the per-point counts of Flux `count()`, summed). */
  async count(range: SeriesRange): Promise<number> {
    const r = this.clamp(range)
    if (!r) return 0
    let n = 0
    for (const c of (await this.countByPoint(r)).values()) n += c
    return n
  }

  /** The number of values of each data point of a (clamped) range that has any. */
  private async countByPoint(r: SeriesRange): Promise<Map<string, number>> {
    const counts = new Map<string, number>()
    await queryRowsRaw(this.#query, countByPointQuery(this.opts.bucket, r), (row) => {
      counts.set(row.point!, (counts.get(row.point!) ?? 0) + Number(row._value))
    })
    return counts
  }

  /** From the first to just after the last value of the data points in the range (Flux first() and last()). */
  async extent(range: SeriesRange): Promise<{ start: number; end: number } | undefined> {
    const r = this.clamp(range)
    if (!r) return undefined
    let first = Infinity
    let last = -Infinity
    await queryRowsRaw(this.#query, extentQuery(this.opts.bucket, r), (row) => {
      const t = Date.parse(row._time!)
      first = Math.min(first, t)
      last = Math.max(last, t)
    })
    return first > last ? undefined : { start: first, end: last + 1 }
  }

  /** The range's values data point by data point, one query per day of one point (bounded memory). */
  stream(range: SeriesRange): AsyncIterable<SeriesSlice> {
    return streamByDay(this.clamp(range) ?? { ...range, dataPointIDs: [] }, this)
  }

  /** The range with its times clamped to what InfluxDB stores; undefined when nothing can match. */
  private clamp(range: SeriesRange): SeriesRange | undefined {
    const start = Math.max(range.start, TIME_LIMITS.min)
    const end = Math.min(range.end, TIME_LIMITS.max)
    return range.dataPointIDs.length === 0 || end <= start ? undefined : { ...range, start, end }
  }

  async latest(tenantID: string, deviceID: string): Promise<Map<string, LastValue>> {
    const out = new Map<string, LastValue>()
    await queryRows(
      this.#query,
      latestQuery(this.opts.bucket, tenantID, deviceID),
      (point, time, value) => {
        const seen = out.get(point)
        if (!seen || time >= seen.time) out.set(point, { time, value })
      },
    )
    return out
  }

  /** latest() of many devices: one query per LATEST_DEVICES of them (a filter InfluxDB pushes down). */
  async latestOf(
    tenantID: string,
    deviceIDs: readonly string[],
  ): Promise<Map<string, Map<string, LastValue>>> {
    const out = new Map<string, Map<string, LastValue>>()
    const ids = [...new Set(deviceIDs)]
    for (let i = 0; i < ids.length; i += LATEST_DEVICES) {
      const query = latestOfQuery(this.opts.bucket, tenantID, ids.slice(i, i + LATEST_DEVICES))
      await queryRows(this.#query, query, (point, time, value, device) => {
        if (device === undefined) return
        let values = out.get(device)
        if (!values) {
          values = new Map()
          out.set(device, values)
        }
        const seen = values.get(point)
        if (!seen || time >= seen.time) values.set(point, { time, value })
      })
    }
    return out
  }

  /** Deletes every value of the device over all time (InfluxDB's delete API, predicate on tenant and device). */
  async deleteDevice(tenantID: string, deviceID: string): Promise<void> {
    await this.deleteWhere(devicePredicate(tenantID, deviceID))
    await this.#rollups?.deleteDevice(tenantID, deviceID).catch((e) => {
      throw toStoreError(e, 'delete')
    })
  }

  /**
   * Deletes every value of one data point of the product's devices over all time (the delete API, predicate on
   * the tenant, product and point tags). Ids no tag can hold were never stored: nothing is sent for them.
   */
  async deleteDataPoint(tenantID: string, productID: string, dataPointID: string): Promise<void> {
    if (![tenantID, productID, dataPointID].every(storableTag)) return
    await this.deleteWhere(dataPointPredicate(tenantID, productID, dataPointID))
    await this.#rollups?.deleteDataPoint(tenantID, productID, dataPointID).catch((e) => {
      throw toStoreError(e, 'delete')
    })
  }

  /**
   * Retention: one delete API call per rule, the product's values from the start of time to 1 ms before its
   * limit (the API's bounds are inclusive); `otherwise` has no predicate here (InfluxDB cannot say "no rule") and
   * is ignored. `rollupsBefore` deletes the rollup windows ending before it. The API does not count what it
   * deleted: answers -1 (0 without rules).
   */
  async deleteBefore(
    rules: readonly RetentionRule[],
    _otherwise?: number,
    rollupsBefore?: number,
  ): Promise<number> {
    for (const r of rules) {
      if (![r.tenantID, r.productID].every(storableTag)) continue
      const stop = new Date(Math.max(TIME_LIMITS.min, r.before - 1)).toISOString()
      await this.deleteWhere(productPredicate(r.tenantID, r.productID), stop)
    }
    if (rollupsBefore !== undefined)
      await this.#rollups?.deleteBefore(rollupsBefore).catch((e) => {
        throw toStoreError(e, 'delete')
      })
    return rules.length ? -1 : 0
  }

  /** POST /api/v2/delete of every value matching `predicate` up to `stop` (default: all time); resolves on 204. */
  private async deleteWhere(predicate: string, stop: string = ALL_TIME.stop): Promise<void> {
    const { org, bucket } = this.opts
    const path = `/api/v2/delete?org=${encodeURIComponent(org)}&bucket=${encodeURIComponent(bucket)}`
    const body = { start: ALL_TIME.start, stop, predicate }
    try {
      await this.client.transport.request(path, body, { method: 'POST' })
    } catch (err) {
      throw toStoreError(err, 'delete')
    }
  }

  /** InfluxDB's `GET /ping` (204, no token needed). */
  async ping(): Promise<void> {
    try {
      await this.client.transport.request('/ping', null, { method: 'GET' })
    } catch (err) {
      throw toStoreError(err, 'ping')
    }
  }

  /** Waits for the writes in flight; later writes reject with Unavailable. */
  async close(): Promise<void> {
    await this.#rollups?.close()
    await this.#writer.close()
  }
}
