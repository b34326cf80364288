/**
 * The device page's Charts region: a chart per numeric data point (GET /original_data, maxPoints = the chart's
 * width) and per shown metric (GET /metrics_data, drawn as its chartType), over a range picked by buttons or
 * dragged across a chart. The last-hour view appends the device's live telemetry.
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api.ts'
import { t } from '../i18n.ts'
import { deviceOf, onLive, type Telemetry } from '../live.ts'
import { Chart, CHART_WIDTH, type SeriesData } from './chart.tsx'

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

interface OriginalData {
  dataPointID: string
  dataPointName: string
  originalData: { time: string[]; value: unknown[] }
}
interface MetricData {
  id: number
  metricName: string
  chartType: number | null
  isShow: number
  metricData: { time: string[]; value: unknown[] }
}
interface ChartOf {
  key: string
  title: string
  bars: boolean
  /** The data point whose live values extend it (metrics: none). */
  point?: string
  data: SeriesData
}

/**
 * A wire time (`YYYY-MM-DD HH:MM:SS` in the service's TIMEZONE) → epoch seconds. The JSON answers carry no epoch,
 * so this reads them as UTC: right for the default TIMEZONE=UTC, shifted by the zone's offset otherwise.
 */
export const wireSeconds = (s: string) => Date.parse(`${s.replace(' ', 'T')}Z`) / 1000

const numeric = (v: unknown) => (typeof v === 'number' ? v : v === null ? null : Number(v))
const series = (d: { time: string[]; value: unknown[] }): SeriesData => ({
  time: d.time.map(wireSeconds),
  value: d.value.map(numeric),
})

export function Charts({ deviceID, productID }: { deviceID: string; productID: string }) {
  // a range button's span up to now, or a range dragged on a chart (epoch ms)
  const [pick, setPick] = useState<{ span: number } | { from: number; to: number }>({ span: HOUR })
  const span = 'span' in pick ? pick.span : null
  const [charts, setCharts] = useState<ChartOf[] | null>(null)
  const [shown, setShown] = useState<[number, number]>([0, 0])

  useEffect(() => {
    let stale = false
    const end = 'to' in pick ? pick.to : Date.now()
    const start = 'to' in pick ? pick.from : end - pick.span
    const range = `deviceID=${encodeURIComponent(deviceID)}&startTime=${start}&endTime=${end}&maxPoints=${CHART_WIDTH}`
    Promise.all([
      api<{ items: Array<{ dataPointID: string }> }>(
        `/data_points?productID=${encodeURIComponent(productID)}&pointDataType=1&_limit=100`,
      ),
      api<OriginalData[]>(`/original_data?${range}`),
      api<MetricData[]>(`/metrics_data?${range}`),
    ]).then(
      ([points, original, metrics]) => {
        if (stale) return
        setShown([start / 1000, end / 1000])
        const numericIDs = new Set(points.items.map((p) => p.dataPointID))
        setCharts([
          ...original
            .filter((o) => numericIDs.has(o.dataPointID))
            .map((o) => ({
              key: `p-${o.dataPointID}`,
              title: o.dataPointName,
              bars: false,
              point: o.dataPointID,
              data: series(o.originalData),
            })),
          ...metrics
            .filter((m) => m.isShow === 1)
            .map((m) => ({
              key: `m-${m.id}`,
              title: m.metricName,
              bars: m.chartType === 2,
              data: series(m.metricData),
            })),
        ])
      },
      () => !stale && setCharts([]),
    )
    return () => {
      stale = true
    }
  }, [deviceID, productID, pick])

  useEffect(() => {
    if (span !== HOUR) return
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
  }, [deviceID, span])

  return (
    <section aria-labelledby="charts-h" class="card">
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
              bars={c.bars}
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
