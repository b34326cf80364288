/**
 * What every server-paged list of the console shares: the page read (one request a page, filters trimmed, typing
 * debounced, a stale answer ignored), the search box that goes back to page 1, the table, the pager and the error
 * line.
 */
import type { ComponentChildren, JSX } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api, type Page } from '../api/client.ts'
import { t } from '../i18n.ts'
import { errorText } from './error-text.ts'

/** Rows a page asks for. */
export const PAGE_LIMIT = 20

/**
 * Reads page `page` of `path` with the non-blank `filters` (trimmed), again whenever they, the page or `version`
 * change; `debounceMs` delays the read (while the user types). `initialPage`: the page shown first (e.g. from the
 * address bar).
 */
export function usePagedList<T>(
  path: string,
  filters: Record<string, string>,
  debounceMs: number,
  version = 0,
  initialPage = 1,
) {
  const [page, setPage] = useState(initialPage)
  const [data, setData] = useState<Page<T> | null>(null)
  const [error, setError] = useState<string | null>(null)
  const q = new URLSearchParams({ _page: String(page), _limit: String(PAGE_LIMIT) })
  for (const [k, v] of Object.entries(filters)) if (v.trim()) q.set(k, v.trim())
  const url = `${path}?${q}`

  useEffect(() => {
    let stale = false
    const timer = setTimeout(
      () =>
        api<Page<T>>(url).then(
          (d) => !stale && (setData(d), setError(null)),
          (e: Error) => !stale && setError(e.message),
        ),
      debounceMs,
    )
    return () => {
      stale = true
      clearTimeout(timer)
    }
  }, [url, version])

  const pages = data ? Math.max(1, Math.ceil(data.meta.count / PAGE_LIMIT)) : 1
  return { page, setPage, pages, data, setData, error, setError }
}

/**
 * A server-paged list of `path` searched by `field` (`<field>_like`, debounced while typing; back to page 1) in the
 * order `order`, read again by `reread`; `remove` deletes one record (`DELETE path?ids=`) once `question` is
 * confirmed, the list's error saying why when the API refuses.
 */
export function useSearchList<T>(path: string, field: string, order: Record<string, string>) {
  const [search, setSearch] = useState('')
  const [version, setVersion] = useState(0)
  const list = usePagedList<T>(
    path,
    { [`${field}_like`]: search, ...order },
    search ? 200 : 0,
    version,
  )
  const reread = () => setVersion((v) => v + 1)
  const onSearch = (v: string) => {
    setSearch(v)
    list.setPage(1)
  }
  const remove = async (id: number, question: string) => {
    if (!window.confirm(question)) return
    try {
      await api(`${path}?ids=${id}`, { method: 'DELETE' })
      list.setError(null)
      reread()
    } catch (e) {
      list.setError(errorText(e))
    }
  }
  return { search, onSearch, list, reread, remove }
}

/** A search box named `label`; each change is handed to `onSearch`. */
export function SearchBox(p: { label: string; value: string; onSearch: (v: string) => void }) {
  return (
    <input
      type="search"
      aria-label={p.label}
      placeholder={p.label}
      value={p.value}
      onInput={(e) => p.onSearch(e.currentTarget.value)}
    />
  )
}

/** Previous / "page x of y (count)" / Next. */
export function Pager(p: {
  page: number
  pages: number
  count: number
  onPage: (n: number) => void
}) {
  return (
    <div class="pager">
      <button type="button" disabled={p.page <= 1} onClick={() => p.onPage(p.page - 1)}>
        {t().previous}
      </button>
      <span>{t().pageOf(p.page, p.pages, p.count)}</span>
      <button type="button" disabled={p.page >= p.pages} onClick={() => p.onPage(p.page + 1)}>
        {t().next}
      </button>
    </div>
  )
}

/** The error line (role alert) when there is an error. */
export function ErrorNote({ error }: { error: string | null }) {
  return error ? (
    <p role="alert" class="error">
      {error}
    </p>
  ) : null
}

/**
 * A page of a server-paged list as a table: "loading" until the first page came, the header's columns (a `false`
 * column is left out, e.g. the actions for a viewer), a row per item, "none" when the page is empty, then the pager.
 */
export function PagedTable<T>(p: {
  label?: string
  list: { data: Page<T> | null; page: number; pages: number; setPage: (n: number) => void }
  columns: ReadonlyArray<string | false>
  row: (item: T) => JSX.Element
  /** Shown until the first page came; default "loading". */
  whileLoading?: ComponentChildren
  /** Shown between the table and "none" (e.g. a note on the rows). */
  children?: ComponentChildren
}) {
  const { data, page, pages, setPage } = p.list
  if (!data) return p.whileLoading === undefined ? <p>{t().loading}</p> : <>{p.whileLoading}</>
  return (
    <>
      <TableScroll label={p.label}>
        <table aria-label={p.label}>
          <TableHead columns={p.columns} />
          <tbody>{data.items.map(p.row)}</tbody>
        </table>
      </TableScroll>
      {p.children}
      {data.items.length === 0 && <p>{t().none}</p>}
      <Pager page={page} pages={pages} count={data.meta.count} onPage={setPage} />
    </>
  )
}

/**
 * A wide table's own scrolling region: on a phone it scrolls sideways inside it, not the page. Focusable, so a
 * keyboard can scroll it too.
 */
export function TableScroll(p: { label?: string | undefined; children: ComponentChildren }) {
  return (
    <div class="table-scroll" role="region" aria-label={p.label ?? t().table} tabIndex={0}>
      {p.children}
    </div>
  )
}

/**
 * A row's action button: its label, and the row's name after it for assistive technology ("Delete sensor-1", the
 * name the browser tests find it by). `secondary` or `danger` style it.
 */
export function RowButton(p: {
  label: string
  name: string
  onClick: () => unknown
  secondary?: boolean
  danger?: boolean
  disabled?: boolean
}) {
  return (
    <button
      type="button"
      class={p.secondary ? 'secondary' : p.danger ? 'danger' : undefined}
      aria-label={`${p.label} ${p.name}`}
      disabled={p.disabled}
      onClick={() => void p.onClick()}
    >
      {p.label}
    </button>
  )
}

/** A table's header row: a column header per label, a `false` one left out (e.g. the actions for a viewer). */
export function TableHead({ columns }: { columns: ReadonlyArray<string | false> }) {
  return (
    <thead>
      <tr>
        {columns.map(
          (c, i) =>
            c !== false && (
              <th key={i} scope="col">
                {c}
              </th>
            ),
        )}
      </tr>
    </thead>
  )
}
