/**
 * XYZ tiles from the service's MAP_TILE_URL (`<meta name="devicecloud-map-tiles">`), loaded as images and kept by
 * z/x/y (the most recent MAX_KEPT). The page's policy allows images from that host only. Tile requests carry the
 * console's origin as their Referer (never its path), as OpenStreetMap's tile usage policy asks of web pages; the
 * page's own policy sends none elsewhere.
 */
import { TILE, toScreen, worldPx, type View } from './mercator.ts'

const MAX_KEPT = 300
/** How many levels up a missing tile may be drawn from (scaled) while it loads. */
const UP_LEVELS = 4

interface Tile {
  img: HTMLImageElement
  state: 'loading' | 'loaded' | 'failed'
}

/** The tile template the page names; undefined when the service names none (`none`). */
export function tileTemplate(): string | undefined {
  const t = document.querySelector('meta[name="devicecloud-map-tiles"]')?.getAttribute('content')
  return t && t !== 'none' ? t : undefined
}

/** What the page says of the tiles' source (MAP_TILE_ATTRIBUTION or its default). */
export const tileAttribution = () =>
  document.querySelector('meta[name="devicecloud-map-attribution"]')?.getAttribute('content') ?? ''

/** Counts of tiles: loaded, failed; and how many the last frame drew. */
export interface TileStats {
  loaded: number
  failed: number
  drawn: number
}

export class Tiles {
  private kept = new Map<string, Tile>()
  readonly stats: TileStats = { loaded: 0, failed: 0, drawn: 0 }

  /** `changed` is called when a tile loads or fails (the map draws again). */
  constructor(
    private template: string,
    private changed: () => void,
  ) {}

  private url(z: number, x: number, y: number) {
    return this.template
      .replace('{z}', String(z))
      .replace('{x}', String(x))
      .replace('{y}', String(y))
      .replace('{s}', 'abc'[(x + y) % 3]!)
  }

  /** The tile's image once loaded; asks for it the first time (`load`). */
  private get(z: number, x: number, y: number, load: boolean): HTMLImageElement | undefined {
    const key = `${z}/${x}/${y}`
    let tile = this.kept.get(key)
    if (tile) {
      // the most recently used last
      this.kept.delete(key)
      this.kept.set(key, tile)
    } else if (load) {
      const img = new Image()
      img.referrerPolicy = 'strict-origin'
      img.decoding = 'async'
      const t: Tile = (tile = { img, state: 'loading' })
      img.onload = () => this.settle(t, 'loaded')
      img.onerror = () => this.settle(t, 'failed')
      img.src = this.url(z, x, y)
      this.kept.set(key, tile)
      this.trim()
    }
    return tile?.state === 'loaded' ? tile.img : undefined
  }

  private settle(t: Tile, state: 'loaded' | 'failed') {
    t.state = state
    this.stats[state]++
    this.changed()
  }

  private trim() {
    for (const [key, t] of this.kept) {
      if (this.kept.size <= MAX_KEPT) break
      t.img.onload = t.img.onerror = null
      t.img.src = ''
      this.kept.delete(key)
    }
  }

  /** Draws the tiles of the view (a missing one from a loaded tile above it, scaled); answers how many it drew. */
  draw(ctx: CanvasRenderingContext2D, v: View): number {
    const z = Math.max(0, Math.min(18, Math.round(v.zoom)))
    const n = 2 ** z
    const size = worldPx(v) / n
    const [left, top] = toScreen(v, 0, 0)
    const first = (o: number) => Math.max(0, Math.floor(-o / size))
    const last = (o: number, extent: number) => Math.min(n - 1, Math.floor((extent - o) / size))
    let drawn = 0
    for (let ty = first(top); ty <= last(top, v.height); ty++)
      for (let tx = first(left); tx <= last(left, v.width); tx++) {
        // whole pixels, each tile's edge where the next one starts: no seams
        const x0 = Math.round(left + tx * size)
        const y0 = Math.round(top + ty * size)
        const w = Math.round(left + (tx + 1) * size) - x0
        const h = Math.round(top + (ty + 1) * size) - y0
        if (this.drawTile(ctx, z, tx, ty, [x0, y0, w, h])) drawn++
      }
    this.stats.drawn = drawn
    return drawn
  }

  /** The tile, or the part of an ancestor that covers it; false when neither is loaded. */
  private drawTile(
    ctx: CanvasRenderingContext2D,
    z: number,
    x: number,
    y: number,
    [dx, dy, w, h]: number[],
  ) {
    for (let up = 0; up <= Math.min(UP_LEVELS, z); up++) {
      const img = this.get(z - up, x >> up, y >> up, up === 0)
      if (!img) continue
      const part = (img.naturalWidth || TILE) / 2 ** up
      const sx = (x % 2 ** up) * part
      const sy = (y % 2 ** up) * part
      ctx.drawImage(img, sx, sy, part, part, dx!, dy!, w!, h!)
      return up === 0
    }
    return false
  }
}
