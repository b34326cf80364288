/**
 * The built-in world outline (Natural Earth's land and borders at 1:110m, src/console/map/world-110m.ts), drawn
 * under the tiles: where a tile has not loaded, or when the service names no tile source, the map still shows where
 * its devices are, with no request to the internet.
 */
import { BORDERS, LAND } from './world-110m.ts'
import { boundsOf, project, toScreen, type View } from './mercator.ts'
import { decodeLines } from './outline-text.ts'

/**
 * Lines in world coordinates (x, y pairs; x in [0, 1] but for rings across the antimeridian), and the world
 * widths each must also be drawn shifted by (-1 or 1: the part of it past the world's edge).
 */
type WorldLines = Array<{ xy: Float64Array; shifts: number[]; box: Box }>

/** West, north, east, south (world coordinates). */
type Box = [number, number, number, number]

let cache: { land: WorldLines; borders: WorldLines } | undefined

const toWorldLines = (lines: number[][]): WorldLines =>
  lines.map((l) => {
    const xy = new Float64Array(l.length)
    for (let i = 0; i < l.length; i += 2) [xy[i], xy[i + 1]] = project(l[i]!, l[i + 1]!)
    const xs = xy.filter((_, i) => i % 2 === 0)
    const ys = xy.filter((_, i) => i % 2 === 1)
    const box: Box = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]
    const shifts = [0]
    if (box[0] < 0) shifts.push(1)
    if (box[2] > 1) shifts.push(-1)
    return { xy, shifts, box }
  })

/** The outline in world coordinates, decoded on first use. */
function outline() {
  cache ??= { land: toWorldLines(decodeLines(LAND)), borders: toWorldLines(decodeLines(BORDERS)) }
  return cache
}

/** The lines in view as one path in the view's pixels (rings closed when `closed`). */
function tracePath(ctx: CanvasRenderingContext2D, v: View, lines: WorldLines, closed: boolean) {
  const [w, n, e, s] = boundsOf(v)
  ctx.beginPath()
  for (const { xy, shifts, box } of lines)
    for (const shift of shifts) {
      if (box[0] + shift > e || box[2] + shift < w || box[1] > s || box[3] < n) continue
      for (let i = 0; i < xy.length; i += 2) {
        const [sx, sy] = toScreen(v, xy[i]! + shift, xy[i + 1]!)
        if (i === 0) ctx.moveTo(sx, sy)
        else ctx.lineTo(sx, sy)
      }
      if (closed) ctx.closePath()
    }
}

export const SEA = '#c6dbef'
export const LAND_FILL = '#f1efe6'

/** Sea over the world's square, land, its coast and the borders between countries. */
export function drawOutline(ctx: CanvasRenderingContext2D, v: View) {
  const { land, borders } = outline()
  // the world's square, within the view
  const [x0, y0] = toScreen(v, 0, 0).map((p) => Math.max(0, p))
  const [x1, y1] = toScreen(v, 1, 1)
  ctx.fillStyle = SEA
  ctx.fillRect(x0!, y0!, Math.min(v.width, x1) - x0!, Math.min(v.height, y1) - y0!)
  tracePath(ctx, v, land, true)
  ctx.fillStyle = LAND_FILL
  ctx.fill('evenodd')
  ctx.strokeStyle = '#8aa2b8'
  ctx.lineWidth = 1
  ctx.stroke()
  tracePath(ctx, v, borders, false)
  ctx.strokeStyle = '#b9b3a3'
  ctx.stroke()
}
