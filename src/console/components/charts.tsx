/**
 * The device page's Charts region: a chart per numeric data point (GET /original_data, maxPoints = the chart's
 * width in CSS pixels) and per shown metric (GET /metrics_data, drawn as its chartType), over a range picked by
 * buttons, typed as from/to (wall-clock times in the service's zone) or dragged across a chart. The charts are as
 * wide as the region; a width change of more than a fifth asks again. The last-hour view appends the device's live
 * telemetry.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { api } from '../api/client.ts'
import { t, words } from '../i18n.ts'
import { deviceOf, onLive, type Telemetry } from '../live.ts'
import { epochToWire, serviceZone, wireToEpoch } from '../time.ts'
import { Chart, useBoxWidth, type ChartKind, type SeriesData } from './chart.tsx'
import type { OriginalDataItemWire } from '../api/wire.ts'
import type { MetricsDataItemWire } from '../api/wire.ts'

/** `seconds` in its largest whole unit, named by `units` (days, hours, minutes, seconds): `1 h`, `5 min`. */
function spanText(seconds: number, units: [string, string, string, string]): string {
  const [d, h, min, sec] = units
  if (seconds % 86_400 === 0) return `${seconds / 86_400} ${d}`
  if (seconds % 3600 === 0) return `${seconds / 3600} ${h}`
  if (seconds % 60 === 0) return `${seconds / 60} ${min}`
  return `${seconds} ${sec}`
}

const cw = words(
  {
    from: 'From',
    to: 'To',
    show: 'Show range',
    zone: 'Times in',
    typo: 'Type both times as YYYY-MM-DD HH:MM:SS, From before To.',
    per: (seconds: number) => `per ${spanText(seconds, ['d', 'h', 'min', 's'])}`,
  },
  {
    from: '从',
    to: '到',
    show: '显示该范围',
    zone: '时区',
    typo: '两个时间都按 YYYY-MM-DD HH:MM:SS 填写，且开始早于结束。',
    per: (seconds: number) => `每 ${spanText(seconds, ['天', '小时', '分钟', '秒'])}`,
  },
)

const HOUR = 3600_000
/** The range buttons: label and span in ms. */
export const RANGES: Array<[string, number]> = [
  ['1 h', HOUR],
  ['6 h', 6 * HOUR],
  ['24 h', 24 * HOUR],
  ['7 d', 7 * 24 * HOUR],
  ['30 d', 30 * 24 * HOUR],
  ['90 d', 90 * 24 * HOUR],
]

type OriginalData = OriginalDataItemWire
type MetricData = MetricsDataItemWire
interface ChartOf {
  key: string
  title: string
  kind: ChartKind
  unit?: string | undefined
  /** The data point whose live values extend it (metrics: none). */
  point?: string
  data: SeriesData
}

/** A wire time (`YYYY-MM-DD HH:MM:SS` in the service's TIMEZONE, `tz`) → epoch seconds. */
export const wireSeconds = (s: string, tz: string) => wireToEpoch(s, tz) / 1000

const numeric = (v: unknown) => (typeof v === 'number' ? v : v === null ? null : Number(v))
const series = (d: { time: string[]; value: unknown[] }, tz: string): SeriesData => ({
  time: d.time.map((x) => wireSeconds(x, tz)),
  value: d.value.map(numeric),
})

/** A typed time (`YYYY-MM-DD HH:MM[:SS]`, the wire form) → the wire form, or undefined when unreadable. */
const inputToWire = (v: string) => {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})(:\d{2})?$/.exec(v.trim())
  return m ? `${m[1]} ${m[2]}${m[3] ?? ':00'}` : undefined
}

/** The width to ask for: the first measured, then a new one only when it differs by more than a fifth. */
const queryWidth = (asked: number, now: number) =>
  asked === 0 || Math.abs(now - asked) > asked / 5 ? now : asked

type Pick = { span: number } | { from: number; to: number } | { fromWire: string; toWire: string }

/** The range a pick means: epoch ms, and the query's startTime and endTime. */
function rangeOf(pick: Pick, tz: string): { start: number; end: number; times: string } {
  if ('fromWire' in pick) {
    return {
      start: wireToEpoch(pick.fromWire, tz),
      end: wireToEpoch(pick.toWire, tz),
      times: `startTime=${encodeURIComponent(pick.fromWire)}&endTime=${encodeURIComponent(pick.toWire)}`,
    }
  }
  const end = 'to' in pick ? pick.to : Date.now()
  const start = 'to' in pick ? pick.from : end - pick.span
  return { start, end, times: `startTime=${start}&endTime=${end}` }
}

/** A data point the charts draw: numeric (a line) or Boolean (steps), with its unit. */
export interface ChartPoint {
  dataPointID: string
  pointDataType: number
  unitSymbol: string | null
  unitName: string | null
}

/** Boolean data points (their values drawn as steps between off and on). */
const BOOLEAN_TYPES = new Set([5, 23])

/** The window of a series of bars, in seconds, from its times (epoch seconds); none for fewer than two bars. */
export function windowOf(times: readonly number[]): number | undefined {
  let least = Infinity
  for (let i = 1; i < times.length; i++) least = Math.min(least, times[i]! - times[i - 1]!)
  return Number.isFinite(least) && least > 0 ? least : undefined
}

/** A window such as `30m`, `1h` or `1d` in seconds (months vary: none). */
export function intervalSeconds(interval: string | undefined): number | undefined {
  const m = /^(\d+)(s|m|h|d)$/.exec(interval ?? '')
  return m
    ? Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86_400 }[m[2] as 's' | 'm' | 'h' | 'd']
    : undefined
}

/** A metric's title: its name, and for bars what each bar is (`max per 1 h`). */
function metricTitle(m: MetricData, data: SeriesData): string {
  // an aggregate's bars are its windows (named by the answer, else seen between bars); a formula's are its own times
  if (m.chartType !== 2 || m.metricType !== 2) return m.metricName
  const window = intervalSeconds(m.metricData.interval) ?? windowOf(data.time)
  const what = m.aggregateTypeLabel ?? ''
  return window !== undefined
    ? `${m.metricName} (${what ? `${what}, ` : ''}${cw().per(window)})`
    : m.metricName
}

/** A chart per numeric or Boolean data point, then one per metric shown (`isShow` 1, bars for `chartType` 2). */
function chartsOf(
  points: ChartPoint[],
  original: OriginalData[],
  metrics: MetricData[],
  tz: string,
): ChartOf[] {
  const byID = new Map(points.map((p) => [p.dataPointID, p]))
  return [
    ...original
      .filter((o) => byID.has(o.dataPointID))
      .map((o) => {
        const p = byID.get(o.dataPointID)!
        return {
          key: `p-${o.dataPointID}`,
          title: o.dataPointName,
          kind: BOOLEAN_TYPES.has(p.pointDataType) ? ('steps' as const) : ('line' as const),
          unit: p.unitSymbol || p.unitName || undefined,
          point: o.dataPointID,
          data: series(o.originalData, tz),
        }
      }),
    ...metrics
      .filter((m) => m.isShow === 1)
      .map((m) => {
        const data = series(m.metricData, tz)
        return {
          key: `m-${m.id}`,
          title: metricTitle(m, data),
          kind: m.chartType === 2 ? ('bars' as const) : ('line' as const),
          data,
        }
      }),
  ]
}

/** While `on` (the last hour shown), the device's live telemetry is appended to its data points' charts. */
function useLiveTail(
  deviceID: string,
  on: boolean,
  setCharts: (f: (cs: ChartOf[] | null) => ChartOf[] | null) => void,
) {
  useEffect(() => {
    if (!on) return
    return onLive((e) => {
      if (e.type !== 'telemetry' || deviceOf(e) !== deviceID) return
      const tm = e.data as Telemetry
      const at = tm.time < 1e12 ? tm.time : tm.time / 1000
      setCharts((cs) =>
        cs
          ? cs.map((c) => {
              const v = c.point === undefined ? undefined : tm.values[c.point]
              if (v === undefined) return c
              return {
                ...c,
                data: { time: [...c.data.time, at], value: [...c.data.value, numeric(v)] },
              }
            })
          : cs,
      )
    })
  }, [deviceID, on])
}

/** A range typed as two wire times in the service's zone; a typo says so instead of asking. */
function TypedRange(p: {
  typed: { from: string; to: string }
  setTyped: (t: { from: string; to: string }) => void
  tz: string
  onPick: (pick: Pick) => void
}) {
  const { typed, setTyped, tz, onPick } = p
  const [typo, setTypo] = useState(false)
  return (
    <form
      class="toolbar custom-range"
      onSubmit={(e) => {
        e.preventDefault()
        const fromWire = inputToWire(typed.from)
        const toWire = inputToWire(typed.to)
        const ok = fromWire !== undefined && toWire !== undefined && fromWire < toWire
        setTypo(!ok)
        if (ok) onPick({ fromWire, toWire })
      }}
    >
      <label>
        {cw().from}
        <input
          value={typed.from}
          placeholder="YYYY-MM-DD HH:MM:SS"
          size={19}
          onInput={(e) => setTyped({ ...typed, from: e.currentTarget.value })}
        />
      </label>
      <label>
        {cw().to}
        <input
          value={typed.to}
          placeholder="YYYY-MM-DD HH:MM:SS"
          size={19}
          onInput={(e) => setTyped({ ...typed, to: e.currentTarget.value })}
        />
      </label>
      <button type="submit">{cw().show}</button>
      <span>
        {cw().zone} {tz}
      </span>
      {typo && <p role="alert">{cw().typo}</p>}
    </form>
  )
}

/**
 * The charts of the range `pick` at `asked` points each, read again when the device, the product, the range or
 * that width change; `setTyped` is handed the range asked for (as typed in the from/to fields).
 */
function useChartData(
  deviceID: string,
  productID: string,
  pick: Pick,
  asked: number,
  tz: string,
  setTyped: (t: { from: string; to: string }) => void,
) {
  const [charts, setCharts] = useState<ChartOf[] | null>(null)
  const [shown, setShown] = useState<[number, number]>([0, 0])
  const productOf = useRef<{ id?: string; points: Promise<ChartPoint[]>; metrics: boolean }>({
    points: Promise.resolve([]),
    metrics: true,
  })

  // a layout effect: the request starts in the click's own task, not a frame later
  useLayoutEffect(() => {
    if (!asked) return
    let stale = false
    const { start, end, times } = rangeOf(pick, tz)
    setTyped({ from: epochToWire(start, tz), to: epochToWire(end, tz) })
    const range = `deviceID=${encodeURIComponent(deviceID)}&${times}&maxPoints=${asked}`
    // the product's numeric and Boolean data points, and whether it shows any metric, are read once per product: a new range
    // asks only for its values (and for metrics_data only when a metric is shown)
    const product = productOf.current
    if (product.id !== productID) {
      product.id = productID
      product.points = api<{ items: ChartPoint[] }>(
        `/data_points?productID=${encodeURIComponent(productID)}&pointDataType_in=1,5,23&_limit=100`,
      ).then((r) => r.items)
      product.metrics = true
    }
    Promise.all([
      product.points,
      product.points.then((ps) =>
        ps.length
          ? api<OriginalData[]>(
              `/original_data?${range}&dataPointID=${ps.map((p) => p.dataPointID).join(',')}`,
            )
          : [],
      ),
      product.metrics ? api<MetricData[]>(`/metrics_data?${range}`) : [],
    ]).then(
      ([points, original, metrics]) => {
        if (stale) return
        product.metrics = metrics.some((m) => m.isShow === 1)
        setShown([start / 1000, end / 1000])
        setCharts(chartsOf(points, original, metrics, tz))
      },
      () => !stale && setCharts([]),
    )
    return () => {
      stale = true
    }
  }, [deviceID, productID, pick, asked, tz])
  return { charts, setCharts, shown }
}

export function Charts({ deviceID, productID }: { deviceID: string; productID: string }) {
  const tz = serviceZone()
  // a range button's span up to now, a range dragged on a chart (epoch ms), or one typed (wire times)
  const [pick, setPick] = useState<Pick>({ span: HOUR })
  const span = 'span' in pick ? pick.span : null
  // the region's content width (the charts' width) and the width the data was asked for
  const [box, width] = useBoxWidth<HTMLElement>()
  const [asked, setAsked] = useState(0)
  const [typed, setTyped] = useState({ from: '', to: '' })

  useEffect(() => {
    if (width) setAsked((a) => queryWidth(a, width))
  }, [width])

  const { charts, setCharts, shown } = useChartData(deviceID, productID, pick, asked, tz, setTyped)

  useLiveTail(deviceID, span === HOUR, setCharts)

  return (
    <section aria-labelledby="charts-h" class="card" ref={box}>
      <h2 id="charts-h">{t().charts}</h2>
      <div role="group" aria-label={t().range} class="ranges">
        {RANGES.map(([label, ms]) => (
          <button
            key={label}
            type="button"
            aria-pressed={span === ms}
            onClick={() => setPick({ span: ms })}
          >
            {label}
          </button>
        ))}
      </div>
      <TypedRange typed={typed} setTyped={setTyped} tz={tz} onPick={setPick} />
      {charts === null ? (
        <p>{t().loading}</p>
      ) : charts.length === 0 ? (
        <p>{t().none}</p>
      ) : (
        <div class="charts">
          {charts.map((c) => (
            <Chart
              key={c.key}
              title={c.title}
              data={c.data}
              span={shown}
              kind={c.kind}
              unit={c.unit}
              width={width}
              tz={tz}
              onZoom={(from, to) =>
                setPick({ from: Math.floor(from * 1000), to: Math.ceil(to * 1000) })
              }
            />
          ))}
        </div>
      )}
    </section>
  )
}
