/**
 * /audit (admins): the audit log (GET /audit_logs), newest first: time, who (username and email), the action, the
 * resource (its type and name, leading to its console page when it has one), the fields changed and the client's
 * address. Filtered by user, action, resource type and name and a time range, all kept in the address, so that
 * `/audit?resourceType=device&resourceIntID=7` (a record page's History link) opens one record's history.
 */
import { useEffect, useState } from 'preact/hooks'
import type { AuditLogWire } from '../api/wire.ts'
import { AdminOnly } from '../components/admin-only.tsx'
import { codeLabel } from '../components/admin-words.ts'
import {
  AuditFilterForm,
  filtersOf,
  queryOf,
  type AuditFilters,
} from '../components/audit-filters.tsx'
import { ErrorNote, PagedTable, usePagedList } from '../components/paged-list.tsx'
import { t, words } from '../i18n.ts'
import { replaceAddress, search } from '../router.ts'

type Row = AuditLogWire

const w = words(
  {
    table: 'Audit log',
    user: 'User',
    action: 'Action',
    resource: 'Resource',
    changed: 'Changed',
    clientIP: 'Client IP',
    historyOf: (type: string, name: string) => `History of ${type.toLowerCase()} ${name}`,
    historyOfRecord: (type: string) => `History of one ${type.toLowerCase()}`,
    showAll: 'Show every record',
  },
  {
    table: '审计日志',
    user: '用户',
    action: '操作',
    resource: '资源',
    changed: '变更字段',
    clientIP: '客户端 IP',
    historyOf: (type: string, name: string) => `${type} ${name} 的变更记录`,
    historyOfRecord: (type: string) => `单个${type}的变更记录`,
    showAll: '显示全部记录',
  },
)

/** The console page of a resource, by its type, for the types that have one. */
const PAGES: Record<string, (id: number) => string> = {
  device: (id) => `/devices/${id}`,
  gateway: (id) => `/gateways/${id}`,
  product: (id) => `/products/${id}`,
  group: (id) => `/groups/${id}`,
  firmware_rollout: (id) => `/firmware/rollouts/${id}`,
  webhook: (id) => `/webhooks/${id}`,
  cert: (id) => `/certs/${id}`,
}

/** The resource's type and name, the name leading to its page (not once it was deleted); its public id after. */
function Resource({ r }: { r: Row }) {
  const page = PAGES[r.resourceType]
  const name = r.resourceName ?? r.resourceID ?? ''
  const linked = page && r.resourceIntID !== null && r.action !== 'delete' && name
  const id = r.resourceID && r.resourceID !== name && r.resourceID !== String(r.resourceIntID)
  return (
    <span>
      <span class="muted">{codeLabel('auditResource', r.resourceType)}</span>{' '}
      {linked ? <a href={page(r.resourceIntID!)}>{name}</a> : name}
      {id && <small class="mono muted"> {r.resourceID}</small>}
    </span>
  )
}

function AuditRow({ r }: { r: Row }) {
  const ww = w()
  return (
    <tr>
      <td data-label={t().time} class="time">
        {r.time}
      </td>
      {/* one element per cell: a narrow screen's stacked row lays out each cell's children side by side */}
      <td data-label={ww.user}>
        <span>
          {r.username ?? '—'}
          {r.email ? <small class="muted"> {r.email}</small> : null}
          {r.role === 'application' && <small class="muted"> ({codeLabel('role', r.role)})</small>}
        </span>
      </td>
      <td data-label={ww.action}>{codeLabel('auditAction', r.action)}</td>
      <td data-label={ww.resource}>
        <Resource r={r} />
      </td>
      <td data-label={ww.changed}>
        <span class="mono">{r.changed.join(', ')}</span>
      </td>
      <td data-label={ww.clientIP}>
        <span class="mono">{r.clientIP ?? ''}</span>
      </td>
    </tr>
  )
}

/** One record's history: its type and name (from its newest row), and the way back to every record. */
function RecordNote(p: { filters: AuditFilters; rows: Row[] | undefined; onAll: () => void }) {
  const ww = w()
  const type = codeLabel('auditResource', p.filters.resourceType)
  const name = p.rows?.[0]?.resourceName
  return (
    <p class="toolbar">
      <span role="status">{name ? ww.historyOf(type, name) : ww.historyOfRecord(type)}</span>
      <button type="button" class="secondary" onClick={p.onAll}>
        {ww.showAll}
      </button>
    </p>
  )
}

function AuditLog() {
  const ww = w()
  const [filters, setFilters] = useState(() => filtersOf(search.value))
  const list = usePagedList<Row>('/audit_logs', filters, filters.resourceName_like ? 200 : 0)
  const change = (f: AuditFilters) => {
    setFilters(f)
    list.setPage(1)
  }
  // the address follows the filters (replaced: a filter is not history), and they follow an address opened
  // while the page is shown (the navigation's link, Back)
  const address = search.value
  useEffect(() => {
    const f = filtersOf(address)
    if (queryOf(f) !== queryOf(filters)) change(f)
  }, [address])
  useEffect(() => {
    const q = queryOf(filters)
    replaceAddress(q ? `/audit?${q}` : '/audit')
  }, [filters])
  return (
    <section>
      <h1>{t().auditLog}</h1>
      <AuditFilterForm value={filters} onChange={change} />
      {filters.resourceIntID && (
        <RecordNote
          filters={filters}
          rows={list.data?.items}
          onAll={() => change({ ...filters, resourceIntID: '' })}
        />
      )}
      <ErrorNote error={list.error} />
      <div class="stack">
        <PagedTable
          label={ww.table}
          list={list}
          columns={[t().time, ww.user, ww.action, ww.resource, ww.changed, ww.clientIP]}
          row={(r) => <AuditRow key={r.id} r={r} />}
        />
      </div>
    </section>
  )
}

export function AuditPage() {
  return (
    <AdminOnly title={t().auditLog}>
      <AuditLog />
    </AdminOnly>
  )
}
