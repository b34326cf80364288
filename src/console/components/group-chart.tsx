/**
 * The group page's Chart section: one numeric data point of the group's product (picked by name) over the last hour,
 * day, week or month, from GET /group_data (one call, read from the rollups): each member's series (the first 20 by
 * name, a color each, named in the legend) over the group's min–max band and its mean line, the unit in the value
 * axis' label, a readout of the window under the pointer (as the device charts have), and a note when the range holds
 * no values.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import uPlot from 'uplot'
import { api } from '../api/client.ts'
import { t, words } from '../i18n.ts'
import { serviceZone, wireToEpoch } from '../time.ts'
import { useBoxWidth } from './chart.tsx'
import { ErrorNote } from './paged-list.tsx'
import type { GroupDataWire, PointItemWire } from '../api/wire.ts'

export const gcw = words(
  {
    chart: 'Chart',
    dataPoint: 'Data point',
    noPoints: "The group's product has no numeric data point.",
    empty: 'No values in this range.',
    legend: 'Legend',
    band: 'Group min–max',
    mean: 'Group mean',
    noValues: 'no values',
    values: (n: number) => (n === 1 ? '1 value' : `${n} values`),
    truncated: (n: number, of: number) =>
      `The first ${n} of ${of} devices by name; the band covers all.`,
  },
  {
    chart: '图表',
    dataPoint: '功能点',
    noPoints: '该分组的产品没有数值型功能点。',
    empty: '该时间范围内没有数据。',
    legend: '图例',
    band: '分组最小–最大',
    mean: '分组平均',
    noValues: '无数据',
    values: (n: number) => `${n} 个值`,
    truncated: (n: number, of: number) =>
      `按名称显示前 ${n} 个设备（共 ${of} 个）；区间带包含全部设备。`,
  },
)

const HOUR = 3_600_000
/** The range buttons: label, span in ms and the window asked for (about 60 to 170 windows each). */
const RANGES: Array<[string, number, string]> = [
  ['1 h', HOUR, '1m'],
  ['24 h', 24 * HOUR, '15m'],
  ['7 d', 7 * 24 * HOUR, '1h'],
  ['30 d', 30 * 24 * HOUR, '6h'],
]

/** Point data types group_data charts (the types stored as numbers: query/group.ts NUMBER_TYPES). */
const NUMBER_TYPES = new Set([1, 15, 16, 17, 18, 21, 22, 25])

/** 20 colors told apart on white (Tableau 20, the mean's blue left out of the members'). */
const COLORS = [
  '#e15759',
  '#59a14f',
  '#f28e2b',
  '#b07aa1',
  '#76b7b2',
  '#edc948',
  '#ff9da7',
  '#9c755f',
  '#8cd17d',
  '#d37295',
  '#86bcb6',
  '#f1ce63',
  '#a0cbe8',
  '#ffbe7d',
  '#bab0ac',
  '#499894',
  '#d4a6c8',
  '#79706e',
  '#b6992d',
  '#fabfd2',
]
const MEAN = '#2563eb'
const HEIGHT = 260

/** The product's numeric data points in their order (the picker names them); undefined while loading. */
function usePoints(productID: string) {
  const [points, setPoints] = useState<PointItemWire[] | undefined>(undefined)
  useEffect(() => {
    let stale = false
    api<{ items: PointItemWire[] }>(
      `/data_points?productID=${encodeURIComponent(productID)}&_sort=id&_order=asc&_limit=100`,
    ).then(
      (r) => !stale && setPoints(r.items.filter((p) => NUMBER_TYPES.has(p.pointDataType))),
      () => !stale && setPoints([]),
    )
    return () => {
      stale = true
    }
  }, [productID])
  return points
}

/** GET /group_data of the pick, read again when the group, the point or the range changes. */
function useGroupData(groupIntID: number, dataPointID: string | undefined, range: number) {
  const [data, setData] = useState<{ answer: GroupDataWire; span: [number, number] } | null>(null)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    if (!dataPointID) return
    let stale = false
    const [, span, interval] = RANGES[range]!
    const end = Date.now()
    const start = end - span
    setData(null)
    const q = `groupIntID=${groupIntID}&dataPointID=${encodeURIComponent(dataPointID)}&startTime=${start}&endTime=${end}&interval=${interval}`
    api<GroupDataWire>(`/group_data?${q}`).then(
      (answer) => !stale && (setData({ answer, span: [start / 1000, end / 1000] }), setError(null)),
      (e: Error) => !stale && setError(e.message),
    )
    return () => {
      stale = true
    }
  }, [groupIntID, dataPointID, range])
  return { data, error }
}

/** The plot's columns: the group's window times (seconds), max, min, each member's mean (null: none), the mean. */
function columns(a: GroupDataWire, tz: string): uPlot.AlignedData {
  const time = a.group.map((w) => wireToEpoch(w.time, tz) / 1000)
  const at = new Map(a.group.map((w, i) => [w.time, i]))
  const members = a.series.map((s) => {
    const col: Array<number | null> = time.map(() => null)
    for (const p of s.points) {
      const i = at.get(p.time)
      if (i !== undefined) col[i] = p.value
    }
    return col
  })
  return [
    time,
    a.group.map((w) => w.max),
    a.group.map((w) => w.min),
    ...members,
    a.group.map((w) => w.avg),
  ]
}

/** The uPlot options of a group chart: the band between max and min, a line per member, the mean drawn last. */
function plotOptions(
  a: GroupDataWire,
  o: { width: number; tz: string; span: [number, number]; axis: string },
): uPlot.Options {
  const w = gcw()
  const edge = { stroke: 'rgba(37, 99, 235, 0.35)', width: 1, points: { show: false } }
  return {
    width: o.width,
    height: HEIGHT,
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), o.tz),
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: true, range: () => o.span } },
    axes: [{}, { label: o.axis, size: 60 }],
    bands: [{ series: [1, 2], fill: 'rgba(37, 99, 235, 0.12)' }],
    series: [
      {},
      { label: `${w.band} max`, ...edge },
      { label: `${w.band} min`, ...edge },
      ...a.series.map((s, i) => ({
        label: s.deviceName,
        stroke: COLORS[i % COLORS.length],
        width: 1.5,
        spanGaps: true,
        points: { show: s.points.length < 3 },
      })),
      { label: w.mean, stroke: MEAN, width: 2.5, points: { show: a.group.length < 3 } },
    ],
  }
}

/** The chart of one answer, drawn again when the answer or the width changes. */
function GroupPlot(p: {
  answer: GroupDataWire
  span: [number, number]
  width: number
  title: string
}) {
  const host = useRef<HTMLDivElement>(null)
  const readout = useRef<HTMLParagraphElement>(null)
  const plot = useRef<uPlot | null>(null)
  const tz = serviceZone()
  useEffect(() => {
    if (!host.current || !p.width) return
    const opts = plotOptions(p.answer, { width: p.width, tz, span: p.span, axis: p.title })
    const u = new uPlot(opts, columns(p.answer, tz), host.current)
    plot.current = u
    return () => {
      u.destroy()
      plot.current = null
    }
  }, [p.answer, p.span, p.width, p.title, tz])

  /** The readout: the window nearest the pointer, its mean, min–max and count (written into its element). */
  const onPointer = (e: PointerEvent) => {
    const u = plot.current
    const el = readout.current
    if (!u || !el) return
    const left = e.clientX - u.over.getBoundingClientRect().left
    const i = left >= 0 && left <= u.over.clientWidth ? u.posToIdx(left) : undefined
    const g = i === undefined ? undefined : p.answer.group[i]
    el.textContent = g ? readoutText(g, p.answer.unitSymbol ?? p.answer.unitName) : ''
  }

  return (
    <figure class="chart" aria-label={p.title}>
      <figcaption>{p.title}</figcaption>
      <div ref={host} onPointerMove={onPointer} />
      <p class="chart-readout mono" ref={readout} aria-hidden="true" />
    </figure>
  )
}

/** A number as the readout shows it (six significant digits at most), with the unit when there is one. */
const num = (v: number, unit: string | null) => {
  const n = Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)))
  return unit ? `${n} ${unit}` : n
}

/** The readout of one window: its time, the group's mean, min–max and how many values. */
function readoutText(g: GroupDataWire['group'][number], unit: string | null) {
  const w = gcw()
  return `${g.time}  ${w.mean} ${num(g.avg, unit)}  (${num(g.min, null)} – ${num(g.max, unit)}, ${w.values(g.count)})`
}

/** The legend: the band, the mean and each member shown, with its color; members without values say so. */
function Legend({ answer }: { answer: GroupDataWire }) {
  const w = gcw()
  return (
    <ul class="group-legend" aria-label={w.legend}>
      <li>
        <span class="swatch band" aria-hidden="true" />
        {w.band}
      </li>
      <li>
        <span class="swatch" style={{ background: MEAN }} aria-hidden="true" />
        {w.mean}
      </li>
      {answer.series.map((s, i) => (
        <li key={s.deviceID}>
          <span
            class="swatch"
            style={{ background: COLORS[i % COLORS.length] }}
            aria-hidden="true"
          />
          {s.deviceName}
          {s.points.length === 0 && <span class="muted"> ({w.noValues})</span>}
        </li>
      ))}
    </ul>
  )
}

export function GroupChart({ groupIntID, productID }: { groupIntID: number; productID: string }) {
  const w = gcw()
  const points = usePoints(productID)
  const [picked, setPicked] = useState<string | undefined>(undefined)
  const [range, setRange] = useState(0)
  const [box, width] = useBoxWidth<HTMLElement>()
  const dataPointID = picked ?? points?.[0]?.dataPointID
  const { data, error } = useGroupData(groupIntID, dataPointID, range)
  const a = data?.answer
  const unit = a ? (a.unitSymbol ?? a.unitName) : null
  const title = a ? (unit ? `${a.dataPointName} (${unit})` : a.dataPointName) : ''
  return (
    <section class="card group-chart" aria-labelledby="group-chart-h" ref={box}>
      <h2 id="group-chart-h">{w.chart}</h2>
      {points?.length === 0 && <p>{w.noPoints}</p>}
      {points && points.length > 0 && (
        <div class="toolbar">
          <label>
            {w.dataPoint}
            <select value={dataPointID} onChange={(e) => setPicked(e.currentTarget.value)}>
              {points.map((p) => (
                <option key={p.dataPointID} value={p.dataPointID}>
                  {p.dataPointName}
                </option>
              ))}
            </select>
          </label>
          <div role="group" aria-label={t().range} class="ranges">
            {RANGES.map(([label], i) => (
              <button
                key={label}
                type="button"
                aria-pressed={range === i}
                onClick={() => setRange(i)}
              >
                {label}
              </button>
            ))}
          </div>
        </div>
      )}
      <ErrorNote error={error} />
      {dataPointID && !a && !error && <p>{t().loading}</p>}
      {a && a.group.length === 0 && <p role="status">{w.empty}</p>}
      {a && a.group.length > 0 && (
        <>
          <GroupPlot answer={a} span={data.span} width={width} title={title} />
          <Legend answer={a} />
          {a.truncated && <p class="muted">{w.truncated(a.series.length, a.deviceCount)}</p>}
        </>
      )}
    </section>
  )
}
