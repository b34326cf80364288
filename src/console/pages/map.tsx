/**
 * /map: the tenant's located devices on a map (src/console/map/): clustered at low zoom, a click on a device opening
 * its page and on a cluster zooming in, online and offline by colour and shape (the legend says which), live from
 * the event stream; tiles from the service's MAP_TILE_URL over a built-in world outline that shows wherever no
 * tile loads. Below it, for keyboards and screen readers, the devices in view as a paged table.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { ErrorNote, Pager } from '../components/paged-list.tsx'
import { t, words } from '../i18n.ts'
import type { Cluster } from '../map/cluster.ts'
import { startMap, type MapReport } from '../map/controller.ts'
import type { Located } from '../map/located.ts'
import { tileAttribution, tileTemplate } from '../map/tiles.ts'
import { navigate } from '../router.ts'

const w = words(
  {
    title: 'Map',
    region: 'Device map',
    mapLabel: 'Map of located devices',
    hint:
      'Drag or use the arrow keys to move the map; the wheel, a pinch or the + and - keys zoom. A click on a ' +
      'device opens it, on a cluster zooms in. The table below lists the devices in view.',
    zoomIn: 'Zoom in',
    zoomOut: 'Zoom out',
    showAll: 'Show all',
    legend: 'Legend',
    clusterKey: 'Several devices: their count; the green part of the ring is online',
    located: (n: number) => `Located devices: ${n}`,
    unlocated: (n: number) =>
      n === 1 ? '1 device has no location.' : `${n} devices have no location.`,
    inView: (n: number) => `In view: ${n}`,
    inViewTable: 'Devices in view',
    latitude: 'Latitude',
    longitude: 'Longitude',
    source: 'Located by',
    ownFields: 'Its latitude and longitude',
    point: (id: string) => `Data point ${id}`,
    loadingN: (n: number, of: number) => `Loading devices… ${n} of ${of}`,
    tilesFailed: 'Map tiles could not be loaded: the built-in world outline is shown.',
    outline: 'Outline: Natural Earth',
    clusterTip: (n: number, on: number) => `${n} devices, ${on} online`,
  },
  {
    title: '地图',
    region: '设备地图',
    mapLabel: '已定位设备地图',
    hint: '拖动或用方向键移动地图；滚轮、双指缩放或 + 和 - 键缩放。点击设备打开其页面，点击聚合点放大。下表列出视野内的设备。',
    zoomIn: '放大',
    zoomOut: '缩小',
    showAll: '显示全部',
    legend: '图例',
    clusterKey: '多个设备：显示数量；圆环绿色部分为在线',
    located: (n: number) => `已定位设备：${n}`,
    unlocated: (n: number) => `${n} 个设备没有位置。`,
    inView: (n: number) => `视野内：${n}`,
    inViewTable: '视野内的设备',
    latitude: '纬度',
    longitude: '经度',
    source: '定位来源',
    ownFields: '设备的经纬度',
    point: (id: string) => `功能点 ${id}`,
    loadingN: (n: number, of: number) => `正在加载设备… ${n} / ${of}`,
    tilesFailed: '地图瓦片无法加载：显示内置的世界轮廓。',
    outline: '轮廓：Natural Earth',
    clusterTip: (n: number, on: number) => `${n} 个设备，${on} 个在线`,
  },
)

const LIST_PAGE = 20

/** The hovered marker's text: a device's name and status, a cluster's count. */
function describe(c: Cluster, items: readonly Located[]) {
  if (c.members.length > 1) return w().clusterTip(c.members.length, c.online)
  const d = items[c.members[0]!]!
  return `${d.name} · ${d.online ? t().online : t().offline}`
}

/** A status as the legend and the table show it: the marker's shape, then the word. */
function Status({ online }: { online: boolean }) {
  return (
    <span class="map-status">
      <span class={`map-key ${online ? 'online' : 'offline'}`} aria-hidden="true" />
      {online ? t().online : t().offline}
    </span>
  )
}

function Legend() {
  return (
    <ul class="map-legend" aria-label={w().legend}>
      <li>
        <Status online />
      </li>
      <li>
        <Status online={false} />
      </li>
      <li>
        <span class="map-key cluster" aria-hidden="true">
          3
        </span>
        {w().clusterKey}
      </li>
    </ul>
  )
}

const degrees = (v: number) => v.toFixed(5)

/** The devices in view, by name, LIST_PAGE a page. */
function InViewTable({ devices }: { devices: Located[] }) {
  const [page, setPage] = useState(1)
  const sorted = [...devices].sort((a, b) => a.name.localeCompare(b.name))
  const pages = Math.max(1, Math.ceil(sorted.length / LIST_PAGE))
  const at = Math.min(page, pages)
  const s = w()
  return (
    <>
      <div class="stack">
        <table aria-label={s.inViewTable}>
          <thead>
            <tr>
              {[t().name, t().status, s.latitude, s.longitude, s.source].map((h) => (
                <th key={h} scope="col">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {sorted.slice((at - 1) * LIST_PAGE, at * LIST_PAGE).map((d) => (
              <tr key={d.deviceID}>
                <td data-label={t().name}>
                  <a href={`/devices/${d.id}`}>{d.name}</a>
                </td>
                <td data-label={t().status}>
                  <Status online={d.online} />
                </td>
                <td data-label={s.latitude}>{degrees(d.lat)}</td>
                <td data-label={s.longitude}>{degrees(d.lon)}</td>
                <td data-label={s.source}>{d.point ? s.point(d.point) : s.ownFields}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {sorted.length === 0 && <p>{t().none}</p>}
      <Pager page={at} pages={pages} count={sorted.length} onPage={setPage} />
    </>
  )
}

type Controls = ReturnType<typeof startMap>

/** The map: its canvas, zoom buttons, tooltip and attribution, in a labelled region. */
function MapFrame(p: { onReport: (r: MapReport) => void; tilesFailed: boolean }) {
  const view = useRef<HTMLDivElement>(null)
  const canvas = useRef<HTMLCanvasElement>(null)
  const tip = useRef<HTMLDivElement>(null)
  const controls = useRef<Controls | null>(null)
  const listHeading = () => document.getElementById('map-list')
  useEffect(() => {
    const c = startMap(view.current!, canvas.current!, tip.current!, {
      report: p.onReport,
      open: (d) => navigate(`/devices/${d.id}`),
      stacked: () => listHeading()?.focus(),
      describe,
    })
    controls.current = c
    return () => c.stop()
  }, [])
  const s = w()
  const attribution = tileTemplate() ? tileAttribution() : s.outline
  return (
    <div class="map-frame" role="region" aria-label={s.region}>
      <div
        ref={view}
        class="map-view"
        role="application"
        aria-roledescription={s.title}
        aria-label={s.mapLabel}
        aria-describedby="map-hint"
        tabIndex={0}
      >
        <canvas ref={canvas} aria-hidden="true" />
        <div ref={tip} class="map-tip" aria-hidden="true" hidden />
      </div>
      <p id="map-hint" class="visually-hidden">
        {s.hint}
      </p>
      <div class="map-controls">
        <button type="button" aria-label={s.zoomIn} onClick={() => controls.current?.zoomBy(1)}>
          +
        </button>
        <button type="button" aria-label={s.zoomOut} onClick={() => controls.current?.zoomBy(-1)}>
          −
        </button>
        <button type="button" class="secondary" onClick={() => controls.current?.fitAll()}>
          {s.showAll}
        </button>
      </div>
      {p.tilesFailed && <p class="map-note">{s.tilesFailed}</p>}
      {attribution && <p class="map-attribution">{attribution}</p>}
    </div>
  )
}

export function MapPage() {
  const [state, setState] = useState<MapReport>({})
  const onReport = (r: MapReport) => setState((old) => ({ ...old, ...r }))
  const s = w()
  const { fleet, loading } = state
  return (
    <section class="map-page">
      <h1>{s.title}</h1>
      <ErrorNote error={state.error ?? null} />
      <MapFrame onReport={onReport} tilesFailed={state.tilesFailed ?? false} />
      <Legend />
      <section aria-labelledby="map-list">
        <h2 id="map-list" tabIndex={-1}>
          {s.located(fleet?.located ?? 0)}
        </h2>
        {!fleet ? (
          <p aria-busy="true">{loading ? s.loadingN(loading.n, loading.of) : t().loading}</p>
        ) : (
          <>
            <p>
              {s.inView(state.inView?.length ?? 0)}
              {fleet.total > fleet.located && ` · ${s.unlocated(fleet.total - fleet.located)}`}
            </p>
            <InViewTable devices={state.inView ?? []} />
          </>
        )}
      </section>
    </section>
  )
}
