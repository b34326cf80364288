/**
 * The map itself, on one canvas: the world outline, the tiles over it, then the devices clustered at the view's
 * zoom (clusters are worked out once per whole zoom level and points, so a pan only draws). Drawn at most once a
 * frame. A click on a device opens it, on a cluster zooms to its devices. Written for this page rather than taken
 * from a map library: it draws 10,000 devices as a few hundred canvas shapes, and loads only with the map page.
 */
import { boxOf, clusterAt, type Cluster, type Points } from './cluster.ts'
import { bindGestures } from './gestures.ts'
import { drawMarkers, radiusOf } from './markers.ts'
import * as m from './mercator.ts'
import { drawOutline } from './outline.ts'
import { Tiles } from './tiles.ts'

/** Cluster radius in CSS pixels. */
const CLUSTER_PX = 40
/** The closest a fit to devices goes (a street). */
const FIT_MAX_ZOOM = 15

export interface MapEvents {
  /** A device's marker was clicked (its index in the points). */
  open(index: number): void
  /** A cluster that no zoom splits (its devices at one place) was clicked at the closest zoom. */
  stacked(members: number[]): void
  /** What the view shows changed (the list of devices in view follows). */
  moved(): void
  /** A frame was drawn: how long it took and how many tiles it drew. */
  drawn(ms: number, tiles: number): void
  /** The text of a hovered marker (a device's name, a cluster's count). */
  describe(c: Cluster): string
}

const NO_POINTS: Points = {
  xs: new Float64Array(0),
  ys: new Float64Array(0),
  online: new Uint8Array(0),
}

export class DeviceMap {
  private view: m.View = { x: 0.5, y: 0.5, zoom: 0, width: 1, height: 1 }
  private points = NO_POINTS
  private clusters: { zoom: number; list: Cluster[] } | undefined
  private shown: Array<{ c: Cluster; x: number; y: number }> = []
  private hot: Cluster | undefined
  private frame = 0
  private fitted = false
  private readonly tiles: Tiles | undefined
  private readonly unbind: () => void
  private readonly resize: ResizeObserver

  constructor(
    private readonly el: HTMLElement,
    private readonly canvas: HTMLCanvasElement,
    private readonly tip: HTMLElement,
    private readonly events: MapEvents,
    template: string | undefined,
  ) {
    this.tiles = template ? new Tiles(template, () => this.redraw()) : undefined
    this.unbind = bindGestures(el, {
      pan: (dx, dy) =>
        this.setView({
          ...this.view,
          x: this.view.x - dx / m.worldPx(this.view),
          y: this.view.y - dy / m.worldPx(this.view),
        }),
      zoom: (by, x, y) => this.setView(m.zoomAbout(this.view, by, x, y)),
      click: (x, y) => this.click(x, y),
      hover: (at) => this.hover(at),
      dragging: (on) => el.classList.toggle('dragging', on),
    })
    // its first call comes before the first paint
    this.resize = new ResizeObserver(() => this.fitCanvas())
    this.resize.observe(el)
  }

  destroy() {
    this.unbind()
    this.resize.disconnect()
    cancelAnimationFrame(this.frame)
  }

  /** The devices to show (world positions and status); the first non-empty set fits the view to them. */
  setPoints(p: Points) {
    this.points = p
    this.clusters = undefined
    if (!this.fitted && p.xs.length > 0) {
      this.fitted = true
      this.fitAll()
    } else this.redraw()
    this.events.moved()
  }

  /** Shows every device (or the world when there is none). */
  fitAll() {
    const n = this.points.xs.length
    const all = Array.from({ length: n }, (_, i) => i)
    this.setView(
      n
        ? m.fitView(this.view, boxOf(this.points, all), 40, FIT_MAX_ZOOM)
        : { ...this.view, zoom: 0 },
    )
  }

  /** Zooms by `by` levels about the middle (the zoom buttons). */
  zoomBy(by: number) {
    this.setView(m.zoomAbout(this.view, by, this.view.width / 2, this.view.height / 2))
  }

  get zoom() {
    return this.view.zoom
  }

  /** Tiles loaded and failed so far; undefined without a tile source. */
  get tileStats() {
    return this.tiles?.stats
  }

  /** The indexes of the points inside the view. */
  inView(): number[] {
    const [x0, y0, x1, y1] = m.boundsOf(this.view)
    const { xs, ys } = this.points
    const out: number[] = []
    for (let i = 0; i < xs.length; i++)
      if (xs[i]! >= x0 && xs[i]! <= x1 && ys[i]! >= y0 && ys[i]! <= y1) out.push(i)
    return out
  }

  private setView(v: m.View) {
    this.view = m.clampView(v)
    this.hover(undefined)
    this.redraw()
    this.events.moved()
  }

  private fitCanvas() {
    const r = this.el.getBoundingClientRect()
    const dpr = window.devicePixelRatio || 1
    this.canvas.width = Math.max(1, Math.round(r.width * dpr))
    this.canvas.height = Math.max(1, Math.round(r.height * dpr))
    this.setView({ ...this.view, width: Math.max(1, r.width), height: Math.max(1, r.height) })
    // a resized canvas is blank: drawn again before the browser paints it
    cancelAnimationFrame(this.frame)
    this.frame = 0
    this.draw()
  }

  /** Draws on the next frame (once however often it is asked). */
  redraw() {
    if (this.frame) return
    this.frame = requestAnimationFrame(() => {
      this.frame = 0
      this.draw()
    })
  }

  /** The statuses changed: clusters counted again. */
  restatus() {
    this.clusters = undefined
    this.redraw()
  }

  private clustersNow(): Cluster[] {
    const zoom = Math.max(0, Math.min(m.MAX_ZOOM, Math.round(this.view.zoom)))
    if (this.clusters?.zoom !== zoom)
      this.clusters = { zoom, list: clusterAt(this.points, zoom, CLUSTER_PX) }
    return this.clusters.list
  }

  private draw() {
    const t0 = performance.now()
    const ctx = this.canvas.getContext('2d')
    if (!ctx) return
    const v = this.view
    const dpr = this.canvas.width / v.width
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0)
    ctx.fillStyle = '#e5e7eb'
    ctx.fillRect(0, 0, v.width, v.height)
    drawOutline(ctx, v)
    const tiles = this.tiles?.draw(ctx, v) ?? 0
    const margin = 30
    this.shown = []
    for (const c of this.clustersNow()) {
      const [x, y] = m.toScreen(v, c.x, c.y)
      if (x > -margin && y > -margin && x < v.width + margin && y < v.height + margin)
        this.shown.push({ c, x, y })
    }
    drawMarkers(ctx, this.shown, this.points.online, this.hot)
    // what the frame drew, for tests and tools: tiles, and each marker as `x,y,devices,online` (CSS pixels)
    this.el.dataset.tiles = String(tiles)
    this.el.dataset.frameMs = (performance.now() - t0).toFixed(2)
    this.el.dataset.markers = this.shown
      .map(({ c, x, y }) => `${Math.round(x)},${Math.round(y)},${c.members.length},${c.online}`)
      .join(' ')
    this.events.drawn(performance.now() - t0, tiles)
  }

  /** The marker under a position of the view (the nearest of those it is within). */
  private hit(x: number, y: number): Cluster | undefined {
    let best: Cluster | undefined
    let bestD = Infinity
    for (const s of this.shown) {
      const d = Math.hypot(s.x - x, s.y - y)
      if (d <= radiusOf(s.c) + 3 && d < bestD) [best, bestD] = [s.c, d]
    }
    return best
  }

  private click(x: number, y: number) {
    const c = this.hit(x, y)
    if (!c) return
    if (c.members.length === 1) return this.events.open(c.members[0]!)
    // at the closest zoom a cluster's devices share one place: the page lists them
    if (this.view.zoom >= m.MAX_ZOOM - 0.01) return this.events.stacked(c.members)
    const fit = m.fitView(this.view, boxOf(this.points, c.members), 60, m.MAX_ZOOM)
    this.setView({
      ...fit,
      zoom: Math.max(fit.zoom, Math.min(m.MAX_ZOOM, Math.round(this.view.zoom) + 1)),
    })
  }

  private hover(at: [number, number] | undefined) {
    const c = at && this.hit(...at)
    this.el.classList.toggle('over-marker', c !== undefined)
    this.tip.hidden = !c
    if (c && at) {
      this.tip.textContent = this.events.describe(c)
      // beside the pointer, on its other side near the map's right or bottom edge
      const { offsetWidth: w, offsetHeight: h } = this.tip
      const x = at[0] + 12 + w > this.view.width ? at[0] - 12 - w : at[0] + 12
      const y = at[1] + 12 + h > this.view.height ? at[1] - 12 - h : at[1] + 12
      this.tip.style.transform = `translate(${Math.round(x)}px, ${Math.round(y)}px)`
    }
    if (c !== this.hot) {
      this.hot = c
      this.redraw()
    }
  }
}
