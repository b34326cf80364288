/**
 * Web Mercator as XYZ tiles use it: a point of the world as x (west to east) and y (north to south) in [0, 1], the
 * world TILE·2^zoom pixels wide at a zoom; and the view of a map: the world point at its centre and its zoom.
 */

export const TILE = 256
export const MAX_ZOOM = 18
/** Web Mercator's latitude limit: the world is square. */
export const MAX_LAT = 85.0511287798

/** Longitude, latitude (degrees) → world x, y in [0, 1]. */
export function project(lon: number, lat: number): [number, number] {
  const s = Math.sin((Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * Math.PI) / 180)
  return [lon / 360 + 0.5, 0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)]
}

/** World x, y → longitude, latitude (degrees). */
export function unproject(x: number, y: number): [number, number] {
  return [(x - 0.5) * 360, (Math.atan(Math.exp((0.5 - y) * 2 * Math.PI)) * 360) / Math.PI - 90]
}

/** What a map shows: the world point at the middle of a `width` × `height` CSS pixel view, at `zoom`. */
export interface View {
  x: number
  y: number
  zoom: number
  width: number
  height: number
}

/** The world's width in CSS pixels at the view's zoom. */
export const worldPx = (v: View) => TILE * 2 ** v.zoom

/** The view's smallest zoom: the world at least as wide as the view (the map does not wrap around). */
export const minZoom = (v: Pick<View, 'width'>) => Math.max(0, Math.log2(v.width / TILE))

/** A world point's position in the view, CSS pixels from its top left corner. */
export function toScreen(v: View, x: number, y: number): [number, number] {
  const s = worldPx(v)
  return [(x - v.x) * s + v.width / 2, (y - v.y) * s + v.height / 2]
}

/** The world point at a position of the view. */
export function toWorld(v: View, sx: number, sy: number): [number, number] {
  const s = worldPx(v)
  return [v.x + (sx - v.width / 2) / s, v.y + (sy - v.height / 2) / s]
}

/** The view's world bounds: [west x, north y, east x, south y]. */
export function boundsOf(v: View): [number, number, number, number] {
  const [x0, y0] = toWorld(v, 0, 0)
  const [x1, y1] = toWorld(v, v.width, v.height)
  return [x0, y0, x1, y1]
}

/** The view kept within its zoom limits and the world: no empty band beside it where the world is large enough. */
export function clampView(v: View): View {
  const zoom = Math.min(MAX_ZOOM, Math.max(minZoom(v), v.zoom))
  const s = TILE * 2 ** zoom
  const keep = (c: number, half: number) =>
    half * 2 >= 1 ? 0.5 : Math.min(1 - half, Math.max(half, c))
  return { ...v, zoom, x: keep(v.x, v.width / 2 / s), y: keep(v.y, v.height / 2 / s) }
}

/** The view zoomed by `by` (levels) about a position of it (that world point stays where it is). */
export function zoomAbout(v: View, by: number, sx: number, sy: number): View {
  const [wx, wy] = toWorld(v, sx, sy)
  const zoom = Math.min(MAX_ZOOM, Math.max(minZoom(v), v.zoom + by))
  const s = TILE * 2 ** zoom
  return clampView({ ...v, zoom, x: wx - (sx - v.width / 2) / s, y: wy - (sy - v.height / 2) / s })
}

/**
 * The view showing the world box [x0, y0, x1, y1] whole, `pad` CSS pixels inside each edge, at most at `maxZoom`
 * (a box of one point: that zoom).
 */
export function fitView(
  v: View,
  [x0, y0, x1, y1]: [number, number, number, number],
  pad: number,
  maxZoom: number,
): View {
  const w = Math.max(1, v.width - 2 * pad)
  const h = Math.max(1, v.height - 2 * pad)
  const zx = x1 > x0 ? Math.log2(w / TILE / (x1 - x0)) : maxZoom
  const zy = y1 > y0 ? Math.log2(h / TILE / (y1 - y0)) : maxZoom
  return clampView({ ...v, x: (x0 + x1) / 2, y: (y0 + y1) / 2, zoom: Math.min(maxZoom, zx, zy) })
}
