/**
 * The audit log's filters as the address keeps them (`/audit?resourceType=device&resourceIntID=7`): the user
 * (chosen by name from GET /users), the action, the resource type, the resource's name, and a time range typed in
 * the service's zone (the API's `startTime`/`endTime`, `YYYY-MM-DD HH:MM:SS`).
 */
import { useEffect, useState } from 'preact/hooks'
import { api, type Page } from '../api/client.ts'
import type { UserWire } from '../api/wire.ts'
import { words } from '../i18n.ts'
import { serviceZone } from '../time.ts'
import { codeLabel, codeOptions } from './admin-words.ts'
import { localTime, wireTime } from './schedule-fields.tsx'

/** The filters, each as the API's query names it ('' for none). */
export const FILTER_KEYS = [
  'userIntID',
  'action',
  'resourceType',
  'resourceIntID',
  'resourceName_like',
  'startTime',
  'endTime',
] as const
export type AuditFilters = Record<(typeof FILTER_KEYS)[number], string>

/** The filters of an address's query. */
export const filtersOf = (search: string): AuditFilters => {
  const q = new URLSearchParams(search)
  return Object.fromEntries(FILTER_KEYS.map((k) => [k, q.get(k) ?? ''])) as AuditFilters
}

/** The query of the filters set ('' when none is). */
export const queryOf = (f: AuditFilters): string =>
  new URLSearchParams(FILTER_KEYS.filter((k) => f[k]).map((k) => [k, f[k]])).toString()

/** Users the select offers at once; more are found by a search of their names. */
const USER_OPTIONS = 100

export const afw = words(
  {
    filters: 'Filters',
    user: 'User',
    anyUser: 'Any user',
    searchUsers: 'Search users',
    action: 'Action',
    anyAction: 'Any action',
    resourceType: 'Resource type',
    anyType: 'Any type',
    resourceName: 'Resource name',
    from: (tz: string) => `From (${tz})`,
    to: (tz: string) => `To (${tz})`,
    clear: 'Clear filters',
  },
  {
    filters: '筛选',
    user: '用户',
    anyUser: '全部用户',
    searchUsers: '搜索用户',
    action: '操作',
    anyAction: '全部操作',
    resourceType: '资源类型',
    anyType: '全部类型',
    resourceName: '资源名称',
    from: (tz: string) => `开始时间（${tz}）`,
    to: (tz: string) => `结束时间（${tz}）`,
    clear: '清除筛选',
  },
)

/** The users to choose from (the first USER_OPTIONS by name, or those matching `search`), the chosen one kept. */
function useUserOptions(search: string, chosen: string) {
  const [users, setUsers] = useState<Page<UserWire> | null>(null)
  const [extra, setExtra] = useState<UserWire | null>(null)
  useEffect(() => {
    let stale = false
    const q = new URLSearchParams({
      _limit: String(USER_OPTIONS),
      _sort: 'username',
      _order: 'asc',
    })
    if (search.trim()) q.set('username_like', search.trim())
    const timer = setTimeout(
      () =>
        api<Page<UserWire>>(`/users?${q}`).then(
          (r) => !stale && setUsers(r),
          () => {},
        ),
      search ? 200 : 0,
    )
    return () => {
      stale = true
      clearTimeout(timer)
    }
  }, [search])
  // a user chosen by the address but not among those listed is read by itself, to show its name
  useEffect(() => {
    if (!chosen || !users || users.items.some((u) => String(u.id) === chosen)) return
    api<UserWire>(`/users/${chosen}`).then(setExtra, () => setExtra(null))
  }, [chosen, users])
  const items = users?.items ?? []
  const list = extra && !items.some((u) => u.id === extra.id) ? [extra, ...items] : items
  return { list, many: search !== '' || (users?.meta.count ?? 0) > USER_OPTIONS }
}

/** The user select (by name and email), with a search box when the tenant has many users. */
function UserFilter(p: { value: string; onChange: (v: string) => void }) {
  const w = afw()
  const [search, setSearch] = useState('')
  const { list, many } = useUserOptions(search, p.value)
  return (
    <div class="field">
      <label>
        {w.user}
        <select value={p.value} onChange={(e) => p.onChange(e.currentTarget.value)}>
          <option value="">{w.anyUser}</option>
          {list.map((u) => (
            <option key={u.id} value={String(u.id)}>
              {`${u.username} (${u.email}, ${codeLabel('role', u.role)})`}
            </option>
          ))}
        </select>
      </label>
      {many && (
        <input
          type="search"
          aria-label={w.searchUsers}
          placeholder={w.searchUsers}
          value={search}
          onInput={(e) => setSearch(e.currentTarget.value)}
        />
      )}
    </div>
  )
}

/** A select of every code of `kind`, with "any" first. */
function CodeFilter(p: {
  label: string
  any: string
  kind: 'auditAction' | 'auditResource'
  value: string
  onChange: (v: string) => void
}) {
  const options = codeOptions(p.kind)
  return (
    <div class="field">
      <label>
        {p.label}
        <select value={p.value} onChange={(e) => p.onChange(e.currentTarget.value)}>
          <option value="">{p.any}</option>
          {p.value && !options.some(([c]) => c === p.value) && (
            <option value={p.value}>{p.value}</option>
          )}
          {options.map(([code, label]) => (
            <option key={code} value={code}>
              {label}
            </option>
          ))}
        </select>
      </label>
    </div>
  )
}

/** A time bound typed as a datetime-local in the service's zone, kept as the wire's time. */
function TimeFilter(p: { label: string; value: string; onChange: (v: string) => void }) {
  return (
    <div class="field">
      <label>
        {p.label}
        <input
          type="datetime-local"
          step={1}
          value={localTime(p.value)}
          onInput={(e) => p.onChange(wireTime(e.currentTarget.value))}
        />
      </label>
    </div>
  )
}

/** Every filter; `onChange` gets the filters with the one changed (a type change forgets the resource's id). */
export function AuditFilterForm(p: { value: AuditFilters; onChange: (f: AuditFilters) => void }) {
  const w = afw()
  const f = p.value
  const tz = serviceZone()
  const set = (k: keyof AuditFilters) => (v: string) =>
    p.onChange({ ...f, [k]: v, ...(k === 'resourceType' ? { resourceIntID: '' } : {}) })
  const empty = FILTER_KEYS.every((k) => !f[k])
  return (
    <form
      class="card fw-form"
      role="search"
      aria-label={w.filters}
      onSubmit={(e) => e.preventDefault()}
    >
      <UserFilter value={f.userIntID} onChange={set('userIntID')} />
      <CodeFilter
        label={w.action}
        any={w.anyAction}
        kind="auditAction"
        value={f.action}
        onChange={set('action')}
      />
      <CodeFilter
        label={w.resourceType}
        any={w.anyType}
        kind="auditResource"
        value={f.resourceType}
        onChange={set('resourceType')}
      />
      <div class="field">
        <label>
          {w.resourceName}
          <input
            type="search"
            value={f.resourceName_like}
            onInput={(e) => set('resourceName_like')(e.currentTarget.value)}
          />
        </label>
      </div>
      <TimeFilter label={w.from(tz)} value={f.startTime} onChange={set('startTime')} />
      <TimeFilter label={w.to(tz)} value={f.endTime} onChange={set('endTime')} />
      <div class="buttons wide">
        <button
          type="button"
          class="secondary"
          disabled={empty}
          onClick={() => p.onChange(filtersOf(''))}
        >
          {w.clear}
        </button>
      </div>
    </form>
  )
}
