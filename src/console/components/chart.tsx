/**
 * One chart: a figure named by its caption, uPlot drawing a line, bars (from zero) or steps (a Boolean) into a
 * canvas, the unit beside its axis, a readout of the time and value under the pointer, and a sentence instead of
 * bare axes when the range holds no value.
 */
import type { RefObject } from 'preact'
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import uPlot from 'uplot'
import { epochToWire } from '../time.ts'
import { words } from '../i18n.ts'

const cw = words(
  { noValues: 'No values in this range.', on: 'on', off: 'off' },
  { noValues: '该时间范围内没有数据。', on: '开', off: '关' },
)

/** How a series is drawn: a line, bars from zero (an aggregate's windows), or steps between 0 and 1 (a Boolean). */
export type ChartKind = 'line' | 'bars' | 'steps'

/** One series: epoch seconds ascending, and a value per time (null: a gap). */
export interface SeriesData {
  time: number[]
  value: Array<number | null>
}

const HEIGHT = 200

/**
 * The content width (CSS pixels, at least 200) of the element given the returned ref, followed as it resizes; 0
 * until measured. Charts are drawn that wide and ask for that many points.
 */
export function useBoxWidth<T extends HTMLElement>(): [RefObject<T | null>, number] {
  const box = useRef<T>(null)
  const [width, setWidth] = useState(0)
  useEffect(() => {
    const el = box.current
    if (!el) return
    const measure = (px: number) => setWidth(Math.max(200, Math.floor(px)))
    if (typeof ResizeObserver === 'undefined') return measure(el.clientWidth - 32)
    const ro = new ResizeObserver(([e]) => e && measure(e.contentRect.width))
    ro.observe(el)
    return () => ro.disconnect()
  }, [])
  return [box, width]
}

/** A value as the readout and the axis show it: a Boolean as on/off, a number with the unit. */
function valueText(v: number | null | undefined, kind: ChartKind, unit: string | undefined) {
  if (v === null || v === undefined) return '—'
  if (kind === 'steps') return v ? cw().on : cw().off
  const n = Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)))
  return unit ? `${n} ${unit}` : n
}

/** The y scale: bars start at zero, steps hold 0 and 1 (a chart with marks widens it: marksPlugin). */
function yScale(kind: ChartKind): uPlot.Scale | undefined {
  if (kind === 'bars')
    return {
      range: (_u, min, max) =>
        uPlot.rangeNum(Math.min(0, min ?? 0), Math.max(0, max ?? 1), 0.1, true),
    }
  if (kind === 'steps') return { range: () => [-0.1, 1.1] }
  return undefined
}

/** The series' look for its kind. */
function seriesOf(title: string, kind: ChartKind): uPlot.Series {
  return {
    label: title,
    stroke: '#2563eb',
    width: 2,
    fill: kind === 'line' ? undefined : 'rgba(37, 99, 235, 0.5)',
    points: { show: kind === 'line', size: 5 },
    paths:
      kind === 'bars'
        ? uPlot.paths.bars?.({ size: [0.6, 40] })
        : kind === 'steps'
          ? uPlot.paths.stepped?.({ align: 1 })
          : undefined,
  }
}

/**
 * The options of a chart's uPlot: its size, time zone, series and marks, the y axis (with the unit, on/off for
 * steps); dragging across it calls `refs.zoom` (the refs are read when used, so they follow the chart's props
 * without a new plot).
 */
function plotOptions(
  o: { title: string; kind: ChartKind; unit?: string | undefined; width: number; tz: string },
  refs: {
    zoom: { current: ((from: number, to: number) => void) | undefined }
    range: { current: [number, number] }
    marks: { current: ChartMarks | undefined }
  },
): uPlot.Options {
  const { title, kind, unit, tz } = o
  const y = yScale(kind)
  return {
    width: o.width,
    height: HEIGHT,
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), tz),
    legend: { show: false },
    plugins: [marksPlugin(refs.marks)],
    cursor: { drag: { x: true, y: false, setScale: false } },
    hooks: {
      // a mark per drawing, so that a benchmark can time "range picked" to "chart drawn"
      draw: [() => performance.mark('devicecloud:chart-drawn')],
      setSelect: [
        (u) => {
          const { left, width } = u.select
          if (width < 5) return
          u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false)
          refs.zoom.current?.(u.posToVal(left, 'x'), u.posToVal(left + width, 'x'))
        },
      ],
    },
    scales: { x: { time: true, range: () => refs.range.current }, ...(y ? { y } : {}) },
    axes: [
      {},
      {
        label: unit || undefined,
        values:
          kind === 'steps'
            ? (_u, vals) => vals.map((v) => (v === 0 ? cw().off : v === 1 ? cw().on : ''))
            : undefined,
      },
    ],
    series: [{}, seriesOf(title, kind)],
  }
}

/**
 * A chart named `title`, `width` CSS pixels wide, over the time range `span` (epoch seconds, from and to); its time
 * axis reads in the zone `tz` (the service's, as the wire times are). Dragging across it calls `onZoom` with the
 * dragged range (epoch seconds).
 */
export function Chart(props: {
  title: string
  data: SeriesData
  span: [number, number]
  width: number
  tz: string
  /** Bars (an aggregate's windows, from zero) or steps (a Boolean); a line by default. */
  bars?: boolean
  kind?: ChartKind
  /** The unit of the values (the axis' label and the readout). */
  unit?: string | undefined
  onZoom?: (from: number, to: number) => void
  /** Shaded windows and a threshold line drawn over the series (the alert rules' dry run). */
  marks?: ChartMarks
}) {
  const { title, data, span, width, tz, unit } = props
  const kind: ChartKind = props.kind ?? (props.bars ? 'bars' : 'line')
  const zoom = useRef(props.onZoom)
  zoom.current = props.onZoom
  const host = useRef<HTMLDivElement>(null)
  const readout = useRef<HTMLParagraphElement>(null)
  const plot = useRef<uPlot | null>(null)
  const range = useRef(span)
  range.current = [span[0], Math.max(span[1], data.time[data.time.length - 1] ?? 0)]
  const marks = useRef(props.marks)
  marks.current = props.marks

  useEffect(() => {
    if (!host.current) return
    const u = new uPlot(
      plotOptions({ title, kind, unit, width, tz }, { zoom, range, marks }),
      [data.time, data.value],
      host.current,
    )
    plot.current = u
    return () => {
      u.destroy()
      plot.current = null
    }
  }, [title, kind, unit, tz])

  useEffect(() => {
    plot.current?.setSize({ width, height: HEIGHT })
  }, [width])

  // drawn in the render's own task (a plain effect would wait for the next frame)
  useLayoutEffect(() => {
    plot.current?.setData([data.time, data.value])
  }, [data, span, props.marks])

  /** The readout: the time and value of the point nearest the pointer (written straight into its element). */
  const onPointer = (e: PointerEvent) => {
    const u = plot.current
    const el = readout.current
    if (!u || !el) return
    const left = e.clientX - u.over.getBoundingClientRect().left
    const i = left >= 0 && left <= u.over.clientWidth ? u.posToIdx(left) : undefined
    const t = i === undefined ? undefined : u.data[0][i]
    el.textContent =
      t === undefined
        ? ''
        : `${epochToWire(t * 1000, tz)}  ${valueText(u.data[1]![i!], kind, unit)}`
  }

  const empty = !data.value.some((v) => v !== null)
  return (
    <figure class="chart" aria-label={title}>
      <figcaption>
        {title}
        {unit && <span class="muted"> ({unit})</span>}
      </figcaption>
      {empty && <p class="muted chart-empty">{cw().noValues}</p>}
      <div ref={host} hidden={empty} onPointerMove={onPointer} />
      <p class="chart-readout mono" ref={readout} aria-hidden="true" />
    </figure>
  )
}

/** Windows (epoch seconds; end null: open to the right edge) shaded over a chart, and a value drawn as a line. */
export interface ChartMarks {
  bands: Array<[number, number | null]>
  threshold?: number | null
}

/**
 * Draws `marks.current` after the series; a chart created with marks has its y scale widened to show the
 * threshold (a chart without them keeps uPlot's own y range).
 */
function marksPlugin(marks: { current: ChartMarks | undefined }): uPlot.Plugin {
  return {
    opts: (_, o) => {
      if (!marks.current) return
      o.scales = {
        ...o.scales,
        y: {
          range: (_u, min, max) => {
            const th = marks.current?.threshold
            const lo = th == null || min == null ? min : Math.min(min, th)
            const hi = th == null || max == null ? max : Math.max(max, th)
            return uPlot.rangeNum(lo ?? 0, hi ?? 1, 0.1, true)
          },
        },
      }
    },
    hooks: {
      draw: [
        (u) => {
          const m = marks.current
          if (!m) return
          const { ctx, bbox } = u
          ctx.save()
          ctx.fillStyle = 'rgba(220, 38, 38, 0.18)'
          // a window shorter than 8 px is widened about its middle, so that a brief firing still shows
          const least = 8 * devicePixelRatio
          const left = bbox.left
          const right = bbox.left + bbox.width
          for (const [from, to] of m.bands) {
            let x0 = u.valToPos(from, 'x', true)
            let x1 = to === null ? right : u.valToPos(to, 'x', true)
            if (x1 - x0 < least) [x0, x1] = [(x0 + x1 - least) / 2, (x0 + x1 + least) / 2]
            x0 = Math.max(left, Math.min(x0, right - least))
            x1 = Math.min(right, Math.max(x1, left + least))
            ctx.fillRect(x0, bbox.top, x1 - x0, bbox.height)
          }
          if (m.threshold != null) {
            const y = u.valToPos(m.threshold, 'y', true)
            ctx.strokeStyle = '#dc2626'
            ctx.lineWidth = 2
            ctx.setLineDash([6, 4])
            ctx.beginPath()
            ctx.moveTo(bbox.left, y)
            ctx.lineTo(bbox.left + bbox.width, y)
            ctx.stroke()
          }
          ctx.restore()
        },
      ],
    },
  }
}
