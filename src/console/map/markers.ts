/**
 * How the map draws its points: a device online as a green circle, offline as a grey square (shape and colour, so
 * that colour is not the only cue; the page's legend shows the same), a cluster as a dark blue disc with its count
 * and a ring whose green part is its share online.
 */
import type { Cluster } from './cluster.ts'

export const ONLINE = '#15803d'
export const OFFLINE = '#4b5563'
export const CLUSTER = '#1e3a8a'

/** The marker's radius in CSS pixels (what a click or a hover hits). */
export function radiusOf(c: Cluster): number {
  const n = c.members.length
  if (n === 1) return 8
  return n < 10 ? 14 : n < 100 ? 17 : n < 1000 ? 20 : 23
}

/** A count as a cluster shows it: 1234 → 1.2k, 12345 → 12k. */
export const shortCount = (n: number) =>
  n < 1000 ? String(n) : `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`

function drawDevice(
  ctx: CanvasRenderingContext2D,
  x: number,
  y: number,
  online: boolean,
  hot: boolean,
) {
  ctx.lineWidth = hot ? 3 : 2
  ctx.strokeStyle = hot ? '#111827' : '#fff'
  ctx.beginPath()
  if (online) ctx.arc(x, y, 7, 0, 2 * Math.PI)
  else ctx.rect(x - 6, y - 6, 12, 12)
  ctx.fillStyle = online ? ONLINE : OFFLINE
  ctx.fill()
  ctx.stroke()
}

function drawCluster(
  ctx: CanvasRenderingContext2D,
  x: number,
  y: number,
  c: Cluster,
  hot: boolean,
) {
  const r = radiusOf(c)
  const n = c.members.length
  // the ring: grey, its online share green from the top, clockwise
  ctx.lineWidth = 4
  ctx.beginPath()
  ctx.arc(x, y, r - 2, 0, 2 * Math.PI)
  ctx.strokeStyle = OFFLINE
  ctx.stroke()
  if (c.online > 0) {
    ctx.beginPath()
    ctx.arc(x, y, r - 2, -Math.PI / 2, -Math.PI / 2 + (2 * Math.PI * c.online) / n)
    ctx.strokeStyle = ONLINE
    ctx.stroke()
  }
  ctx.beginPath()
  ctx.arc(x, y, r - 4, 0, 2 * Math.PI)
  ctx.fillStyle = CLUSTER
  ctx.fill()
  ctx.beginPath()
  ctx.arc(x, y, r, 0, 2 * Math.PI)
  ctx.lineWidth = hot ? 3 : 1.5
  ctx.strokeStyle = hot ? '#111827' : '#fff'
  ctx.stroke()
  ctx.fillStyle = '#fff'
  ctx.fillText(shortCount(n), x, y + 0.5)
}

/** Draws each cluster (a single device as its marker) at its position in the view; `hot` the one hovered. */
export function drawMarkers(
  ctx: CanvasRenderingContext2D,
  items: ReadonlyArray<{ c: Cluster; x: number; y: number }>,
  online: Uint8Array,
  hot: Cluster | undefined,
) {
  ctx.font = '600 12px system-ui, sans-serif'
  ctx.textAlign = 'center'
  ctx.textBaseline = 'middle'
  for (const { c, x, y } of items)
    if (c.members.length === 1) drawDevice(ctx, x, y, online[c.members[0]!] === 1, c === hot)
    else drawCluster(ctx, x, y, c, c === hot)
}
