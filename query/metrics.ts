/**
 * metrics_data: the values of a device's metrics over a range.
 * - Formula metrics (metricType 1): the metric's mathjs formula (query/formula.ts, compiled once and cached) at
 *   every time where all its inputs have a value: inputs of different data points are aligned by equal times (a
 *   message carries its data points with one time). Results that are not finite numbers are left out.
 * - Aggregate metrics (metricType 2): max, min, mean or sum (aggregateType 1-4) per window of the store
 *   (store/windows.ts), over the raw data point (aggregateData 2, the default) computed by the store (Flux on
 *   InfluxDB), or over the formula's values (aggregateData 1) computed here with the same windows.
 * Raw inputs are read a day at a time, so memory stays bounded by the answer, not by the range.
 */
import type {
  AggregateFn,
  Series,
  SeriesRange,
  TelemetryStore,
  TelemetryValue,
} from '../store/telemetry.ts'
import { windowBounds, WindowAggregator, WindowError } from '../store/windows.ts'
import { Downsampler } from '../store/downsample.ts'
import { daySlices, narrowed } from '../store/slices.ts'
import { compileFormula, FormulaError, type Formula } from './formula.ts'
import { within, type Deadline } from './deadline.ts'
import { checkRawSize, type RawQuery } from './original.ts'
import { QueryParamError, type QueryRange } from './range.ts'

/** The symbol of a formula for the metric's own data point (src/rules/metrics.ts OWN_POINT). */
const OWN = 'value'

/** aggregateType 1 max, 2 min, 3 mean, 4 sum. */
export const AGGREGATES: Record<number, AggregateFn> = { 1: 'max', 2: 'min', 3: 'mean', 4: 'sum' }

/** What metrics_data needs of a metric. */
export interface MetricSpec {
  id: number
  metricType: number
  /** The metric's own data point. */
  dataPointID: string
  expressions: string | null
  aggregateType: number | null
  aggregateData: number | null
  /** An aggregate metric's own window (`aggregateInterval`), used when the request names no `interval`. */
  window: string | null
  /** Changes whenever the metric is edited (the formula cache key). */
  updateAt: unknown
}

/** A stored metric row (store/libsql/metrics.ts columns) as metricsData needs it. */
export function metricSpecOf(m: Record<string, unknown>): MetricSpec {
  const int = (v: unknown) => (v === null || v === undefined ? null : Number(v))
  return {
    id: Number(m.id),
    metricType: Number(m.metricType),
    dataPointID: String(m.dataPointID),
    expressions: typeof m.expressions === 'string' ? m.expressions : null,
    aggregateType: int(m.aggregateType),
    aggregateData: int(m.aggregateData),
    window: typeof m.aggregateInterval === 'string' ? m.aggregateInterval : null,
    updateAt: m.updateAt,
  }
}

export interface MetricsQuery {
  tenantID: string
  deviceID: string
  /** Every dataPointID of the device's product (what a formula may name). */
  productPoints: readonly string[]
  range: QueryRange
  tz: string
  /** The aggregate window (`interval`, else the range's default; a metric's own window wins over the default). */
  window: string
  /** The parameter that set `window` (`interval`, else the range's `param`), named when it cannot be served. */
  windowParam: string
  /** Downsample formula series to this many values. */
  maxPoints?: number
  /** QUERY_MAX_POINTS: formula metrics without maxPoints refuse ranges with more raw values. */
  limit: number
  /** QUERY_TIMEOUT_MS of the request (none when absent). */
  budget?: Deadline
}

const CACHE_SIZE = 500
const formulas = new Map<string, Formula | FormulaError>()

/** The compiled formula of a metric (cached per metric edit), or the error that stops it. */
export function metricFormula(
  m: MetricSpec,
  productPoints: readonly string[],
): Formula | FormulaError {
  const key = `${m.id}\u0000${String(m.updateAt)}\u0000${m.expressions}\u0000${productPoints.join('\u0000')}`
  let f = formulas.get(key)
  if (f) return f
  try {
    f = compileFormula(m.expressions ?? '', [...productPoints, OWN])
  } catch (e) {
    // whatever stops a stored formula from compiling leaves only that metric without values
    f = e instanceof FormulaError ? e : new FormulaError((e as Error).message)
  }
  if (formulas.size >= CACHE_SIZE) formulas.delete(formulas.keys().next().value!)
  formulas.set(key, f)
  return f
}

/** The data point each formula symbol reads. */
const inputsOf = (f: Formula, own: string) => f.symbols.map((s) => (s === OWN ? own : s))

const asNumber = (v: TelemetryValue | undefined): number | undefined =>
  typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : undefined

/**
 * Evaluates `f` at every time where each input has a numeric value; hands each finite result to `sink`.
 * A time where the formula throws is left out, like a non-finite result; the first such error's message is
 * answered (undefined when every evaluation went through).
 * The input with fewest values drives; the others are walked forward with one cursor each.
 */
export function evaluateAligned(
  f: Formula,
  inputs: readonly string[],
  raw: Map<string, Series>,
  sink: (t: number, v: number) => void,
): string | undefined {
  const series = inputs.map((dp) => raw.get(dp) ?? { time: [], value: [] })
  let failed: string | undefined
  if (series.length === 0) return
  let driver = 0
  series.forEach((s, i) => {
    if (s.time.length < series[driver]!.time.length) driver = i
  })
  const cursors = series.map(() => 0)
  // keyed by dataPointIDs: no prototype, so `__proto__` or `constructor` is an ordinary key
  const scope = Object.create(null) as Record<string, number>
  const d = series[driver]!
  outer: for (let k = 0; k < d.time.length; k++) {
    const t = d.time[k]!
    for (let i = 0; i < series.length; i++) {
      const s = series[i]!
      let c = cursors[i]!
      while (c < s.time.length && s.time[c]! < t) c++
      cursors[i] = c
      if (s.time[c] !== t) continue outer
      const v = asNumber(s.value[c])
      if (v === undefined) continue outer
      scope[f.symbols[i]!] = v
    }
    let out: number
    try {
      out = f.evaluate(scope)
    } catch (e) {
      failed ??= (e as Error).message || 'the formula failed'
      continue // a formula that fails at this time has no value here
    }
    if (Number.isFinite(out)) sink(t, out)
  }
  return failed
}

/**
 * Runs a formula over the range a day at a time, handing each result to `sink`; answers the first evaluation
 * error, if any.
 */
async function runFormula(
  store: TelemetryStore,
  q: MetricsQuery,
  f: Formula,
  own: string,
  sink: (t: number, v: number) => void,
) {
  const inputs = inputsOf(f, own)
  const unique = [...new Set(inputs)]
  const whole: SeriesRange = {
    tenantID: q.tenantID,
    deviceID: q.deviceID,
    dataPointIDs: unique,
    start: q.range.start,
    end: q.range.end,
  }
  const part = await within(q.budget, narrowed(store, whole))
  let failed: string | undefined
  for (const range of part ? daySlices(part) : []) {
    if (range.start > part!.start) await new Promise<void>((resolve) => setImmediate(resolve)) // other requests run between days
    failed ??= evaluateAligned(f, inputs, await within(q.budget, store.readRaw(range)), sink)
  }
  return failed
}

/**
 * One metric's answer: its series (an aggregate's with the window used), or empty arrays and the reason it could
 * not be computed (its formula, or its own window over this range).
 */
export type MetricSeries = Series & { error?: string; interval?: string }

/** The window an aggregate metric is computed in: the request's `interval`, else its own, else the range's. */
const windowOf = (q: MetricsQuery, m: MetricSpec) =>
  q.windowParam === 'interval' ? q.window : (m.window ?? q.window)

/**
 * The series of each metric (by id): formula values, or window aggregates labelled by window start. A formula
 * that fails (at compile or at any evaluation) leaves its metric with empty arrays and `error`; the other
 * metrics are answered as usual.
 */
export async function metricsData(
  store: TelemetryStore,
  q: MetricsQuery,
  metrics: readonly MetricSpec[],
): Promise<Map<number, MetricSeries>> {
  try {
    return await seriesOf(store, q, metrics)
  } catch (e) {
    if (e instanceof WindowError) throw new QueryParamError({ [q.windowParam]: e.message })
    throw e
  }
}

/** A formula metric's values over the range: all of them, or downsampled to maxPoints; or its error. */
async function formulaSeries(
  store: TelemetryStore,
  q: MetricsQuery,
  formula: Formula,
  own: string,
): Promise<MetricSeries> {
  if (q.maxPoints === undefined) {
    const raw: RawQuery = {
      tenantID: q.tenantID,
      deviceID: q.deviceID,
      dataPointIDs: [...new Set(inputsOf(formula, own))],
      range: q.range,
      budget: q.budget,
    }
    await checkRawSize(store, raw, q.limit, 'set maxPoints, or ask for an aggregate metric')
  }
  const whole: Series = { time: [], value: [] }
  let sampled: Downsampler | undefined
  const error = await runFormula(store, q, formula, own, (t, v) => {
    if (sampled) return sampled.add([t], [v])
    whole.time.push(t)
    whole.value.push(v)
    if (q.maxPoints !== undefined && whole.time.length > q.maxPoints) {
      sampled = new Downsampler(q.range.start, q.range.end, q.maxPoints, q.tz)
      sampled.add(whole.time, whole.value)
    }
  })
  if (error) return { time: [], value: [], error }
  return sampled ? sampled.result() : whole
}

/** Raw aggregates of one function and window, all their data points in one store call. */
interface AggregateCall {
  fn: AggregateFn
  every: string
  ms: MetricSpec[]
}

async function seriesOf(
  store: TelemetryStore,
  q: MetricsQuery,
  metrics: readonly MetricSpec[],
): Promise<Map<number, MetricSeries>> {
  const out = new Map<number, MetricSeries>()
  const failed = (id: number, error: string) => out.set(id, { time: [], value: [], error })
  const calls = new Map<string, AggregateCall>()
  // windows of formula aggregates, computed once per window (the store computes its own for raw aggregates)
  const bounds = new Map<string, number[]>()
  const windows = (every: string) => {
    let b = bounds.get(every)
    if (!b) bounds.set(every, (b = windowBounds(q.range.start, q.range.end, every, q.tz)))
    return b
  }
  // a metric's own window that cannot serve this range fails that metric alone; the request's fails the request
  const ownWindowFailed = (e: unknown, ms: MetricSpec[]) => {
    if (!(e instanceof WindowError) || q.windowParam === 'interval') throw e
    for (const m of ms)
      failed(m.id, `${e.message} (the metric's window; ask with a wider interval)`)
  }

  for (const m of metrics) {
    out.set(m.id, { time: [], value: [] })
    const fn = m.metricType === 2 ? AGGREGATES[m.aggregateType ?? 0] : undefined
    if (m.metricType === 2 && !fn) continue
    const formula =
      m.metricType === 1 || (fn && m.aggregateData === 1)
        ? metricFormula(m, q.productPoints)
        : undefined
    if (formula instanceof FormulaError) {
      failed(m.id, formula.message)
      continue
    }
    const every = windowOf(q, m)
    if (fn && !formula) {
      const key = `${fn} ${every}`
      if (!calls.has(key)) calls.set(key, { fn, every, ms: [] })
      calls.get(key)!.ms.push(m)
    } else if (fn && formula) {
      let agg: WindowAggregator
      try {
        agg = new WindowAggregator(windows(every), fn)
      } catch (e) {
        ownWindowFailed(e, [m])
        continue
      }
      const error = await runFormula(store, q, formula, m.dataPointID, (t, v) => agg.add([t], [v]))
      if (error) failed(m.id, error)
      else out.set(m.id, { ...agg.result(), interval: every })
    } else if (formula) out.set(m.id, await formulaSeries(store, q, formula, m.dataPointID))
  }
  for (const { fn, every, ms } of calls.values()) {
    const range = {
      tenantID: q.tenantID,
      deviceID: q.deviceID,
      dataPointIDs: [...new Set(ms.map((m) => m.dataPointID))],
      start: q.range.start,
      end: q.range.end,
    }
    let r: Map<string, Series>
    try {
      r = await within(q.budget, store.aggregate(range, fn, { every, tz: q.tz }))
    } catch (e) {
      ownWindowFailed(e, ms)
      continue
    }
    for (const m of ms) out.set(m.id, { ...r.get(m.dataPointID)!, interval: every })
  }
  return out
}
