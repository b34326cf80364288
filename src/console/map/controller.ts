/**
 * The map page's moving parts, outside Preact: reads the fleet (located.ts), hands its positions to the map
 * (device-map.ts), applies the stream's events to both (a batch at most every 100 ms), and reports what the page
 * shows around the map: loading progress, counts, the devices in view, tiles that failed. Marks
 * `devicecloud:map-data` when the fleet has been read and `devicecloud:map-drawn` (its `detail.ms` the frame's own
 * time) when the map has drawn it: the console bench times the one to the other.
 */
import { deviceOf, onLive, type LiveEvent } from '../live.ts'
import type { Cluster } from './cluster.ts'
import { DeviceMap, type MapEvents } from './device-map.ts'
import { applyEvent, loadFleet, type Fleet, type Located } from './located.ts'
import { project } from './mercator.ts'
import { tileTemplate } from './tiles.ts'

export interface MapReport {
  loading?: { n: number; of: number }
  error?: string
  fleet?: { total: number; located: number; online: number }
  inView?: Located[]
  tilesFailed?: boolean
}

export interface MapHooks {
  report(r: MapReport): void
  open(d: Located): void
  /** A cluster of devices at one place was clicked at the closest zoom (the list shows them). */
  stacked(): void
  /** A hovered marker's text. */
  describe(c: Cluster, items: readonly Located[]): string
}

const BATCH_MS = 100
const VIEW_MS = 120

/** The fleet on the map: the devices by index (the map's points) and what the stream changed since the last batch. */
class FleetOnMap {
  fleet: Fleet | undefined
  private items: Located[] = []
  private online = new Uint8Array(0)
  private index = new Map<string, number>()
  private moved = false
  private restatus = false
  private batch: ReturnType<typeof setTimeout> | undefined
  private viewTimer: ReturnType<typeof setTimeout> | undefined
  private early: LiveEvent[] = []
  private marking = false
  private failed = false
  readonly map: DeviceMap

  constructor(
    el: HTMLElement,
    canvas: HTMLCanvasElement,
    tip: HTMLElement,
    private hooks: MapHooks,
  ) {
    this.map = new DeviceMap(el, canvas, tip, this.mapEvents(), tileTemplate())
  }

  private mapEvents(): MapEvents {
    return {
      open: (i) => this.hooks.open(this.items[i]!),
      stacked: () => this.hooks.stacked(),
      moved: () => {
        clearTimeout(this.viewTimer)
        this.viewTimer = setTimeout(() => this.reportView(), VIEW_MS)
      },
      drawn: (ms) => {
        if (this.marking) performance.mark('devicecloud:map-drawn', { detail: { ms } })
        this.marking = false
        // tiles named but none loaded while some failed: the outline is all there is
        const s = this.map?.tileStats
        const failed = s !== undefined && s.failed > 0 && s.loaded === 0
        if (failed !== this.failed) this.hooks.report({ tilesFailed: (this.failed = failed) })
      },
      describe: (c) => this.hooks.describe(c, this.items),
    }
  }

  private reportView() {
    this.hooks.report({ inView: this.map.inView().map((i) => this.items[i]!) })
  }

  private reportFleet() {
    const online = this.online.reduce((s, v) => s + v, 0)
    this.hooks.report({
      fleet: { total: this.fleet?.total ?? 0, located: this.items.length, online },
    })
  }

  /** The fleet read: the events that came meanwhile applied, then shown. */
  loaded(f: Fleet) {
    this.fleet = f
    performance.mark('devicecloud:map-data')
    this.marking = true
    for (const e of this.early.splice(0)) applyEvent(f, e)
    this.rebuild()
  }

  /** Positions and statuses handed to the map again (after the read, or a device moved). */
  private rebuild() {
    const items = [...this.fleet!.located.values()]
    this.items = items
    this.index = new Map(items.map((d, i) => [d.deviceID, i]))
    const xs = new Float64Array(items.length)
    const ys = new Float64Array(items.length)
    this.online = new Uint8Array(items.length)
    items.forEach((d, i) => {
      ;[xs[i], ys[i]] = project(d.lon, d.lat)
      this.online[i] = d.online ? 1 : 0
    })
    this.map.setPoints({ xs, ys, online: this.online })
    this.reportFleet()
  }

  /** An event of the stream: applied now, shown with the others of its batch. */
  onEvent(e: LiveEvent) {
    if (!this.fleet) return void this.early.push(e)
    const what = applyEvent(this.fleet, e)
    if (what === 'moved') this.moved = true
    if (what === 'status') {
      const d = this.fleet.located.get(deviceOf(e) ?? '')
      const i = d && this.index.get(d.deviceID)
      if (i !== undefined) this.online[i] = d!.online ? 1 : 0
      this.restatus = true
    }
    if (what) this.batch ??= setTimeout(() => this.flush(), BATCH_MS)
  }

  private flush() {
    this.batch = undefined
    if (this.moved) this.rebuild()
    else if (this.restatus) {
      this.map.restatus()
      this.reportFleet()
      this.reportView()
    }
    this.moved = this.restatus = false
  }

  stop() {
    clearTimeout(this.viewTimer)
    clearTimeout(this.batch)
    this.map.destroy()
  }
}

/** The map in `el` (its canvas and tooltip inside); answers its controls and `stop`. */
export function startMap(
  el: HTMLElement,
  canvas: HTMLCanvasElement,
  tip: HTMLElement,
  hooks: MapHooks,
) {
  const shown = new FleetOnMap(el, canvas, tip, hooks)
  const off = onLive((e) => shown.onEvent(e))
  let stopped = false
  loadFleet((n, of) => !stopped && hooks.report({ loading: { n, of } })).then(
    (f) => !stopped && shown.loaded(f),
    (e: Error) => !stopped && hooks.report({ error: e.message }),
  )
  return {
    zoomBy: (by: number) => shown.map.zoomBy(by),
    fitAll: () => shown.map.fitAll(),
    stop() {
      stopped = true
      off()
      shown.stop()
    },
  }
}
