/**
 * /devices: the tenant's devices (or its gateways, with how many devices each has), paged, filtered (also to those
 * not in their desired state, `stateDelta=1`, and to those running a firmware version, `softVersion`) and sorted by
 * the server; online state and the pending-state marker live. The filters, the sort and the page live in the address
 * (`?productID=..&page=2`), so a reload or a shared link shows the same rows. Admins and users create, edit, block,
 * delete, import; everyone may export.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, session } from '../api/client.ts'
import { ErrorNote, Pager, SearchBox, usePagedList } from '../components/paged-list.tsx'
import { DeviceForm, fw, type DeviceRow } from '../components/device-form.tsx'
import { ColumnsChooser, useValueColumns } from '../components/value-columns.tsx'
import { DeviceExport, DeviceImport } from '../components/device-transfer.tsx'
import { ProductSelect } from '../components/product-select.tsx'
import { t, words } from '../i18n.ts'
import { deviceOf, onLive } from '../live.ts'
import { DeviceRows, GatewayRows, type GatewayRow } from '../components/device-rows.tsx'
import { errorText } from '../components/error-text.ts'
import type { StateEventWire } from '../api/wire.ts'

export const dw = words(
  {
    show: 'Show',
    devicesKind: 'Devices',
    gatewaysKind: 'Gateways',
    anyStatus: 'Any status',
    stateFilter: 'State',
    anyState: 'Any state',
    notInDesired: 'Not in desired state',
    sort: 'Sort',
    newest: 'Newest first',
    oldest: 'Oldest first',
    nameAsc: 'Name A–Z',
    nameDesc: 'Name Z–A',
    seenRecent: 'Last seen, recent first',
    seenOldest: 'Last seen, oldest first',
    behindGateway: (id: string) => `Behind gateway #${id}`,
    clearGateway: 'Show all devices',
    runningVersion: (v: string) => `Running firmware ${v}`,
    clearVersion: 'Any version',
    goToPage: 'Go to page',
    deleteSelected: (n: number) => `Delete selected (${n})`,
    confirmDelete: (names: string) => `Delete ${names}? Their data, logs and alerts go too.`,
  },
  {
    show: '显示',
    devicesKind: '设备',
    gatewaysKind: '网关',
    anyStatus: '全部状态',
    stateFilter: '期望状态',
    anyState: '全部',
    notInDesired: '未达到期望状态',
    sort: '排序',
    newest: '最新创建',
    oldest: '最早创建',
    nameAsc: '名称 A–Z',
    nameDesc: '名称 Z–A',
    seenRecent: '最近在线优先',
    seenOldest: '最早在线优先',
    behindGateway: (id: string) => `网关 #${id} 下的设备`,
    clearGateway: '显示全部设备',
    runningVersion: (v: string) => `运行固件 ${v} 的设备`,
    clearVersion: '全部版本',
    goToPage: '跳至页',
    deleteSelected: (n: number) => `删除所选（${n}）`,
    confirmDelete: (names: string) => `删除 ${names}？其数据、日志和告警将一并删除。`,
  },
)

/** What the address keeps: the list's filters, its sort and its page. */
interface View {
  kind: string
  q: string
  productID: string
  status: string
  gateway: string
  /** '1': only the devices not in their desired state. */
  stateDelta: string
  /** Only the devices running this firmware version (the product page's versions link here). */
  softVersion: string
  sort: string
}
const KEYS = [
  'kind',
  'q',
  'productID',
  'status',
  'gateway',
  'stateDelta',
  'softVersion',
  'sort',
] as const
const DEFAULT_SORT = 'createAt:desc'

function readAddress(): View & { page: number } {
  const s = new URLSearchParams(location.search)
  const v = Object.fromEntries(KEYS.map((k) => [k, s.get(k) ?? ''])) as unknown as View
  return { ...v, page: Math.max(1, Number(s.get('page')) || 1) }
}

/** The address of a view (defaults left out). */
export function addressOf(v: Partial<View>, page = 1): string {
  const s = new URLSearchParams()
  for (const k of KEYS) if (v[k] && !(k === 'sort' && v[k] === DEFAULT_SORT)) s.set(k, v[k])
  if (page > 1) s.set('page', String(page))
  const q = s.toString()
  return q ? `/devices?${q}` : '/devices'
}

/** The API's list filters of a view (devices_export takes the same). */
function filtersOf(v: View): Record<string, string> {
  const gateways = v.kind === 'gateways'
  const [field, order] = (v.sort || DEFAULT_SORT).split(':')
  const f: Record<string, string> = {
    [gateways ? 'gatewayName_like' : 'deviceName_like']: v.q,
    productID: v.productID,
    deviceStatus: v.status === 'online' ? '1' : v.status === 'offline' ? '0' : '',
    blocked: v.status === 'blocked' ? '1' : '',
    _sort: field === 'name' ? (gateways ? 'gatewayName' : 'deviceName') : (field ?? ''),
    _order: order ?? '',
  }
  if (!gateways)
    Object.assign(f, { gateway: v.gateway, stateDelta: v.stateDelta, softVersion: v.softVersion })
  return f
}

type Rows = ReturnType<typeof usePagedList<DeviceRow & GatewayRow>>['setData']

/**
 * The rows of the page follow the stream: a device connecting or leaving flips its online state at once
 * (`device.online`, `device.offline`), and a change of its state document its pending-state marker (`device.state`:
 * pending while the delta is not empty).
 */
function useLiveRows(setData: Rows) {
  useEffect(
    () =>
      onLive((e) => {
        const id = deviceOf(e)
        const change = (f: (x: DeviceRow & GatewayRow) => Partial<DeviceRow & GatewayRow>) =>
          setData(
            (d) =>
              d && { ...d, items: d.items.map((x) => (x.deviceID === id ? { ...x, ...f(x) } : x)) },
          )
        if (e.type === 'device.state') {
          const delta = (e.data as { data?: Partial<StateEventWire> } | null)?.data?.delta
          if (delta) change(() => ({ stateDelta: Object.keys(delta).length > 0 ? 1 : 0 }))
          return
        }
        if (e.type !== 'device.online' && e.type !== 'device.offline') return
        const time = (e.data as { time?: unknown } | null)?.time
        change((x) => ({
          deviceStatus: e.type === 'device.online' ? 1 : 0,
          lastSeenAt: typeof time === 'string' ? time : x.lastSeenAt,
        }))
      }),
    [],
  )
}

/** Whether the list shows every device or only those not in their desired state (`stateDelta=1`). */
function StateFilter(p: { value: string; change: (patch: Partial<View>) => void }) {
  const s = dw()
  return (
    <label>
      {s.stateFilter}{' '}
      <select value={p.value} onChange={(e) => p.change({ stateDelta: e.currentTarget.value })}>
        <option value="">{s.anyState}</option>
        <option value="1">{s.notInDesired}</option>
      </select>
    </label>
  )
}

/** The list's search, kind, product, status and sort: each change goes to the view (and the address). */
function ViewFilters(p: { view: View; gateways: boolean; change: (patch: Partial<View>) => void }) {
  const { view, gateways, change } = p
  const s = dw()
  return (
    <>
      <SearchBox label={t().searchDevices} value={view.q} onSearch={(q) => change({ q })} />
      <label>
        {s.show}{' '}
        <select
          value={gateways ? 'gateways' : ''}
          onChange={(e) =>
            change({ kind: e.currentTarget.value, gateway: '', stateDelta: '', softVersion: '' })
          }
        >
          <option value="">{s.devicesKind}</option>
          <option value="gateways">{s.gatewaysKind}</option>
        </select>
      </label>
      <ProductSelect
        label={t().product}
        allLabel={t().all}
        value={view.productID}
        onChange={(productID) => change({ productID })}
      />
      <label>
        {t().status}{' '}
        <select value={view.status} onChange={(e) => change({ status: e.currentTarget.value })}>
          <option value="">{s.anyStatus}</option>
          <option value="online">{t().online}</option>
          <option value="offline">{t().offline}</option>
          <option value="blocked">{t().blocked}</option>
        </select>
      </label>
      {!gateways && <StateFilter value={view.stateDelta} change={change} />}
      <label>
        {s.sort}{' '}
        <select
          value={view.sort || DEFAULT_SORT}
          onChange={(e) => change({ sort: e.currentTarget.value })}
        >
          <option value="createAt:desc">{s.newest}</option>
          <option value="createAt:asc">{s.oldest}</option>
          <option value="name:asc">{s.nameAsc}</option>
          <option value="name:desc">{s.nameDesc}</option>
          <option value="lastSeenAt:desc">{s.seenRecent}</option>
          <option value="lastSeenAt:asc">{s.seenOldest}</option>
        </select>
      </label>
    </>
  )
}

/** A page number typed in, for deep pages. */
function GoToPage(p: { page: number; pages: number; setPage: (n: number) => void }) {
  return (
    <label>
      {dw().goToPage}{' '}
      <input
        type="number"
        min="1"
        max={p.pages}
        value={p.page}
        onChange={(e) => {
          const n = Number(e.currentTarget.value)
          if (Number.isInteger(n) && n >= 1) p.setPage(Math.min(n, p.pages))
        }}
      />
    </label>
  )
}

/** The view (from the address at first, written back to it as it changes) and its page of rows. */
function useDevicesView(version: number) {
  const [start] = useState(readAddress)
  const [view, setView] = useState<View>(start)
  const gateways = view.kind === 'gateways'
  const filters = filtersOf(view)
  const list = usePagedList<DeviceRow & GatewayRow>(
    gateways ? '/gateways' : '/devices',
    filters,
    view.q ? 200 : 0,
    version,
    start.page,
  )
  const { page, setPage, pages, data } = list

  // the address follows the view (replaced, not pushed: typing is not history)
  useEffect(() => {
    const to = addressOf(view, page)
    if (location.pathname + location.search !== to) history.replaceState(null, '', to)
  }, [view, page])
  // past the last page (rows deleted, or an old link): the last page
  useEffect(() => {
    if (data && page > pages) setPage(pages)
  }, [data, page, pages])

  const change = (patch: Partial<View>) => {
    setView({ ...view, ...patch })
    setPage(1)
  }
  return { view, gateways, filters, list, change }
}

/** Deleting and blocking devices: each reloads the list after, or says why it failed. */
function useDeviceActions(reload: () => void) {
  const [actionError, setActionError] = useState<string | null>(null)
  const act = async (fn: () => Promise<unknown>) => {
    setActionError(null)
    try {
      await fn()
      reload()
    } catch (e) {
      setActionError(errorText(e))
    }
  }
  const remove = (rows: DeviceRow[]) => {
    if (!rows.length || !confirm(dw().confirmDelete(rows.map((r) => r.deviceName).join(', '))))
      return
    void act(() => api(`/devices?ids=${rows.map((r) => r.id).join(',')}`, { method: 'DELETE' }))
  }
  const block = (d: DeviceRow) =>
    void act(() => api(`/devices/${d.id}`, { method: 'PUT', body: { blocked: d.blocked ? 0 : 1 } }))
  return { actionError, remove, block }
}

/** Create, export, import, and delete the selected rows. */
function ActionBar(p: {
  canWrite: boolean
  gateways: boolean
  exportQuery: string
  chosen: DeviceRow[]
  onCreate: () => void
  onImported: () => void
  onRemove: (rows: DeviceRow[]) => void
}) {
  const { canWrite, gateways, chosen } = p
  return (
    <div class="toolbar">
      {canWrite && (
        <button type="button" onClick={p.onCreate}>
          {gateways ? fw().createGateway : fw().createDevice}
        </button>
      )}
      {!gateways && <DeviceExport query={p.exportQuery} />}
      {canWrite && !gateways && <DeviceImport onImported={p.onImported} />}
      {canWrite && chosen.length > 0 && (
        <button type="button" class="danger" onClick={() => p.onRemove(chosen)}>
          {dw().deleteSelected(chosen.length)}
        </button>
      )}
    </div>
  )
}

/** The pager, and a page number to type in when there are more than two pages. */
function PagerRow(p: { page: number; pages: number; count: number; setPage: (n: number) => void }) {
  return (
    <div class="pager-row">
      <Pager page={p.page} pages={p.pages} count={p.count} onPage={p.setPage} />
      {p.pages > 2 && <GoToPage page={p.page} pages={p.pages} setPage={p.setPage} />}
    </div>
  )
}

/** A filter of the address shown in words, with a button that clears it. */
function FilterNote(p: { text: string; clear: string; onClear: () => void }) {
  return (
    <p class="filter-note">
      {p.text}{' '}
      <button type="button" class="secondary" onClick={p.onClear}>
        {p.clear}
      </button>
    </p>
  )
}

/** The filters of the address that no control shows: behind a gateway, running a version. */
function AddressNotes(p: {
  view: ReturnType<typeof useDevicesView>['view']
  change: ReturnType<typeof useDevicesView>['change']
}) {
  const s = dw()
  const { view, change } = p
  return (
    <>
      {view.gateway && (
        <FilterNote
          text={s.behindGateway(view.gateway)}
          clear={s.clearGateway}
          onClear={() => change({ gateway: '' })}
        />
      )}
      {view.softVersion && (
        <FilterNote
          text={s.runningVersion(view.softVersion)}
          clear={s.clearVersion}
          onClear={() => change({ softVersion: '' })}
        />
      )}
    </>
  )
}

export function DevicesPage() {
  const [version, setVersion] = useState(0)
  const [editing, setEditing] = useState<DeviceRow | 'new' | 'newGateway' | null>(null)
  const [selected, setSelected] = useState<number[]>([])
  const canWrite = session.value?.role !== 'viewer'
  const reload = () => setVersion((n) => n + 1)
  const { view, gateways, filters, list, change } = useDevicesView(version)
  const { page, setPage, pages, data, setData, error } = list
  const { cols, extra } = useValueColumns(
    gateways ? '' : view.productID,
    (data?.items ?? []).map((d) => d.deviceID),
  )
  const { actionError, remove, block } = useDeviceActions(reload)

  // a selection belongs to the rows it was made on
  useEffect(() => setSelected([]), [page, addressOf(view), version])
  useLiveRows(setData)

  const items = data?.items ?? []
  const chosen = items.filter((x) => selected.includes(x.id))
  const exportQuery = new URLSearchParams(
    Object.entries(filters).filter(([k, v]) => v.trim() && !k.startsWith('_')),
  ).toString()

  return (
    <section class="devices">
      <h1>{t().devices}</h1>
      <div class="toolbar">
        <ViewFilters view={view} gateways={gateways} change={change} />
        {!gateways && view.productID && <ColumnsChooser cols={cols} />}
      </div>
      <ActionBar
        canWrite={canWrite}
        gateways={gateways}
        exportQuery={exportQuery}
        chosen={chosen}
        onCreate={() => setEditing(gateways ? 'newGateway' : 'new')}
        onImported={reload}
        onRemove={remove}
      />
      {!gateways && <AddressNotes view={view} change={change} />}
      <ErrorNote error={error ?? actionError} />
      {!data ? (
        <p>{t().loading}</p>
      ) : (
        <>
          {gateways ? (
            <GatewayRows items={items} onGateway={(id) => change({ kind: '', gateway: id })} />
          ) : (
            <DeviceRows
              items={items}
              canWrite={canWrite}
              selected={selected}
              onSelect={setSelected}
              onEdit={setEditing}
              onBlock={block}
              onDelete={(d) => remove([d])}
              onGateway={(id) => change({ gateway: id })}
              extra={extra}
            />
          )}
          {items.length === 0 && <p>{t().none}</p>}
          <PagerRow page={page} pages={pages} count={data.meta.count} setPage={setPage} />
        </>
      )}
      {editing && (
        <DeviceForm
          device={typeof editing === 'string' ? undefined : editing}
          gateway={editing === 'newGateway'}
          onSaved={(saved) => {
            // a gateway made from the devices view shows among the gateways
            if (saved.isGateway && !gateways) change({ kind: 'gateways', gateway: '' })
            reload()
          }}
          onClose={() => setEditing(null)}
        />
      )}
    </section>
  )
}
