/** One chart: a figure named by its caption, uPlot drawing a line or bars into a canvas. */
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'

/** One series: epoch seconds ascending, and a value per time (null: a gap). */
export interface SeriesData {
  time: number[]
  value: Array<number | null>
}

const HEIGHT = 200

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
}) {
  const { title, data, span, bars, width, tz } = props
  const zoom = useRef(props.onZoom)
  zoom.current = props.onZoom
  const host = useRef<HTMLDivElement>(null)
  const plot = useRef<uPlot | null>(null)
  const range = useRef(span)
  range.current = [span[0], Math.max(span[1], data.time[data.time.length - 1] ?? 0)]

  useEffect(() => {
    if (!host.current) return
    const u = new uPlot(
      {
        width,
        height: HEIGHT,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), tz),
        legend: { show: false },
        cursor: { drag: { x: true, y: false, setScale: false } },
        hooks: {
          // a mark per drawing, so that a benchmark can time "range picked" to "chart drawn"
          draw: [() => performance.mark('devicecloud:chart-drawn')],
          setSelect: [
            (u) => {
              const { left, width } = u.select
              if (width < 5) return
              u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false)
              zoom.current?.(u.posToVal(left, 'x'), u.posToVal(left + width, 'x'))
            },
          ],
        },
        scales: { x: { time: true, range: () => range.current } },
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
      },
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
  }, [data, span])

  return (
    <figure class="chart" aria-label={title}>
      <figcaption>{title}</figcaption>
      <div ref={host} />
    </figure>
  )
}
