/**
 * The tables of the devices list: devices (with selection and row actions for the roles that write) and gateways
 * (with how many devices hang off each, a link to them); a row not in its desired state says "Pending state".
 */
import type { ComponentChild } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api/client.ts'
import { t, words } from '../i18n.ts'
import type { DeviceRow } from './device-form.tsx'
import { TableHead, TableScroll, RowButton } from './paged-list.tsx'
import type { GatewayItemWire } from '../api/wire.ts'
import { PendingBadge, stw } from './state-patch.tsx'

/** A gateway as GET /gateways lists it (the fields shown). */
export type GatewayRow = GatewayItemWire

const w = words(
  {
    select: (name: string) => `Select ${name}`,
    selectAll: 'Select all on this page',
    upLink: 'Connects via',
    gatewayNo: (id: number) => `Gateway #${id}`,
    devicesBehind: (gateway: string) => `Devices behind ${gateway}`,
    childCount: 'Devices',
    devicesOf: (name: string, n: number) => `${n} devices of ${name}`,
    edit: 'Edit',
    block: 'Block',
    unblock: 'Unblock',
    delete: 'Delete',
  },
  {
    select: (name: string) => `选择 ${name}`,
    selectAll: '选择本页全部',
    upLink: '上联系统',
    gatewayNo: (id: number) => `网关 #${id}`,
    devicesBehind: (gateway: string) => `${gateway} 下的设备`,
    childCount: '设备数',
    devicesOf: (name: string, n: number) => `${name} 的 ${n} 台设备`,
    edit: '编辑',
    block: '禁用',
    unblock: '启用',
    delete: '删除',
  },
)

/** Gateway names by record id, read once per console session (a device row names its gateway). */
const gatewayNames = new Map<number, string>()

/** The names of the gateways `ids` (those not read yet are read; the rows render again once they come). */
function useGatewayNames(ids: ReadonlyArray<number | null>): (id: number) => string | undefined {
  const [, setRead] = useState(0)
  const missing = [...new Set(ids)].filter(
    (id): id is number => id !== null && !gatewayNames.has(id),
  )
  const key = missing.join(',')
  useEffect(() => {
    if (!missing.length) return
    let stale = false
    void Promise.all(
      missing.map((id) =>
        api<{ gatewayName: string }>(`/gateways/${id}`).then(
          (g) => gatewayNames.set(id, g.gatewayName),
          () => undefined, // not readable: the row keeps the record number
        ),
      ),
    ).then(() => !stale && setRead((n) => n + 1))
    return () => {
      stale = true
    }
  }, [key])
  return (id) => gatewayNames.get(id)
}

/** A link to the list filtered by gateway `id`, handled in the page (the path does not change). */
function GatewayLink(p: {
  id: number
  label: string
  text: string
  onGateway: (id: string) => void
}) {
  return (
    <a
      href={`/devices?gateway=${p.id}`}
      aria-label={p.label}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
        e.preventDefault()
        p.onGateway(String(p.id))
      }}
    >
      {p.text}
    </a>
  )
}

export function OnlineBadge({ online }: { online: boolean }) {
  return <span class={online ? 'badge on' : 'badge off'}>{online ? t().online : t().offline}</span>
}

/** Online or offline, blocked, and "Pending state" while the desired state is not reported (`stateDelta` 1). */
function Status({
  d,
}: {
  d: { deviceStatus: number; blocked: number; stateDelta?: number | null }
}) {
  return (
    <span class="badges">
      <OnlineBadge online={d.deviceStatus === 1} />
      {d.blocked === 1 && <span class="badge blocked">{t().blocked}</span>}
      {d.stateDelta === 1 && <PendingBadge text={stw().pendingState} />}
    </span>
  )
}

/** The devices table's header: select-all first and the actions last, for the roles that write. */
/** A column the list adds (a data point's latest value, the firmware version: value-columns.tsx). */
export interface ExtraColumn {
  label: string
  cell: (d: DeviceRow) => ComponentChild
}

function DeviceHead(p: {
  canWrite: boolean
  all: boolean
  onAll: (on: boolean) => void
  extra: ExtraColumn[]
}) {
  const s = w()
  return (
    <thead>
      <tr>
        {p.canWrite && (
          <th scope="col">
            <input
              type="checkbox"
              aria-label={s.selectAll}
              checked={p.all}
              onChange={(e) => p.onAll(e.currentTarget.checked)}
            />
          </th>
        )}
        <th scope="col">{t().name}</th>
        <th scope="col">{t().deviceID}</th>
        <th scope="col">{t().product}</th>
        <th scope="col">{s.upLink}</th>
        {p.extra.map((c) => (
          <th scope="col" key={c.label}>
            {c.label}
          </th>
        ))}
        <th scope="col">{t().status}</th>
        <th scope="col">{t().lastSeen}</th>
        <th scope="col">{t().created}</th>
        {p.canWrite && <th scope="col">{t().actions}</th>}
      </tr>
    </thead>
  )
}

/** A device's edit, block/unblock and delete. */
function DeviceActions(p: {
  d: DeviceRow
  onEdit: (d: DeviceRow) => void
  onBlock: (d: DeviceRow) => void
  onDelete: (d: DeviceRow) => void
}) {
  const { d } = p
  const s = w()
  return (
    <td class="actions">
      <RowButton secondary label={s.edit} name={d.deviceName} onClick={() => p.onEdit(d)} />
      <RowButton
        secondary
        label={d.blocked ? s.unblock : s.block}
        name={d.deviceName}
        onClick={() => p.onBlock(d)}
      />
      <RowButton danger label={s.delete} name={d.deviceName} onClick={() => p.onDelete(d)} />
    </td>
  )
}

export function DeviceRows(p: {
  items: DeviceRow[]
  canWrite: boolean
  selected: number[]
  onSelect: (ids: number[]) => void
  onEdit: (d: DeviceRow) => void
  onBlock: (d: DeviceRow) => void
  onDelete: (d: DeviceRow) => void
  onGateway: (id: string) => void
  /** Columns after `Connects via`: latest values, the firmware version. */
  extra?: ExtraColumn[]
}) {
  const s = w()
  const all = p.items.length > 0 && p.items.every((d) => p.selected.includes(d.id))
  const gatewayName = useGatewayNames(p.items.map((d) => d.gateway))
  const toggle = (id: number, on: boolean) =>
    p.onSelect(on ? [...p.selected, id] : p.selected.filter((x) => x !== id))
  return (
    <TableScroll label={t().devices}>
      <table>
        <DeviceHead
          canWrite={p.canWrite}
          extra={p.extra ?? []}
          all={all}
          onAll={(on) => p.onSelect(on ? p.items.map((d) => d.id) : [])}
        />
        <tbody>
          {p.items.map((d) => (
            <tr key={d.id}>
              {p.canWrite && (
                <td>
                  <input
                    type="checkbox"
                    aria-label={s.select(d.deviceName)}
                    checked={p.selected.includes(d.id)}
                    onChange={(e) => toggle(d.id, e.currentTarget.checked)}
                  />
                </td>
              )}
              <td>
                <a href={`/devices/${d.id}`}>{d.deviceName}</a>
              </td>
              <td class="mono">{d.deviceID}</td>
              <td>{d.productName}</td>
              <td>
                {d.gateway !== null ? (
                  <GatewayLink
                    id={d.gateway}
                    label={s.devicesBehind(gatewayName(d.gateway) ?? s.gatewayNo(d.gateway))}
                    text={gatewayName(d.gateway) ?? s.gatewayNo(d.gateway)}
                    onGateway={p.onGateway}
                  />
                ) : (
                  (d.upLinkSystemLabel ?? '—')
                )}
              </td>
              {(p.extra ?? []).map((c) => (
                <td key={c.label}>{c.cell(d)}</td>
              ))}
              <td>
                <Status d={d} />
              </td>
              <td>{d.lastSeenAt ?? '—'}</td>
              <td>{d.createAt ?? '—'}</td>
              {p.canWrite && (
                <DeviceActions d={d} onEdit={p.onEdit} onBlock={p.onBlock} onDelete={p.onDelete} />
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  )
}

export function GatewayRows(p: { items: GatewayRow[]; onGateway: (id: string) => void }) {
  const s = w()
  return (
    <TableScroll label={t().gateways}>
      <table>
        <TableHead
          columns={[t().name, t().deviceID, t().product, s.childCount, t().status, t().lastSeen]}
        />
        <tbody>
          {p.items.map((g) => (
            <tr key={g.id}>
              <td>
                <a href={`/gateways/${g.id}`}>{g.gatewayName}</a>
              </td>
              <td class="mono">{g.deviceID}</td>
              <td>{g.productName}</td>
              <td>
                <GatewayLink
                  id={g.id}
                  label={s.devicesOf(g.gatewayName, g.deviceCount)}
                  text={String(g.deviceCount)}
                  onGateway={p.onGateway}
                />
              </td>
              <td>
                <Status d={g} />
              </td>
              <td>{g.lastSeenAt ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  )
}
