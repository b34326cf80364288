/** One chart: a figure named by its caption, uPlot drawing a line or bars into a canvas. */
import type { RefObject } from 'preact'
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import uPlot from 'uplot'

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

/**
 * The options of a chart's uPlot: its size, time zone, series (a line or bars) and marks; dragging across it calls
 * `refs.zoom` (the refs are read when used, so they follow the chart's props without a new plot).
 */
function plotOptions(
  o: { title: string; bars?: boolean; width: number; tz: string },
  refs: {
    zoom: { current: ((from: number, to: number) => void) | undefined }
    range: { current: [number, number] }
    marks: { current: ChartMarks | undefined }
  },
): uPlot.Options {
  const { title, bars } = o
  return {
    width: o.width,
    height: HEIGHT,
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), o.tz),
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
    scales: { x: { time: true, range: () => refs.range.current } },
    series: [
      {},
      {
        label: title,
        stroke: '#2563eb',
        width: 2,
        fill: bars ? 'rgba(37, 99, 235, 0.5)' : undefined,
        points: { show: true, size: 5 },
        paths: bars ? uPlot.paths.bars?.({ size: [0.6, 40] }) : undefined,
      },
    ],
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
  bars?: boolean
  onZoom?: (from: number, to: number) => void
  /** Shaded windows and a threshold line drawn over the series (the alert rules' dry run). */
  marks?: ChartMarks
}) {
  const { title, data, span, bars, width, tz } = props
  const zoom = useRef(props.onZoom)
  zoom.current = props.onZoom
  const host = useRef<HTMLDivElement>(null)
  const plot = useRef<uPlot | null>(null)
  const range = useRef(span)
  range.current = [span[0], Math.max(span[1], data.time[data.time.length - 1] ?? 0)]
  const marks = useRef(props.marks)
  marks.current = props.marks

  useEffect(() => {
    if (!host.current) return
    const u = new uPlot(
      plotOptions({ title, bars, width, tz }, { zoom, range, marks }),
      [data.time, data.value],
      host.current,
    )
    plot.current = u
    return () => {
      u.destroy()
      plot.current = null
    }
  }, [title, bars, tz])

  useEffect(() => {
    plot.current?.setSize({ width, height: HEIGHT })
  }, [width])

  // drawn in the render's own task (a plain effect would wait for the next frame)
  useLayoutEffect(() => {
    plot.current?.setData([data.time, data.value])
  }, [data, span, props.marks])

  return (
    <figure class="chart" aria-label={title}>
      <figcaption>{title}</figcaption>
      <div ref={host} />
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
