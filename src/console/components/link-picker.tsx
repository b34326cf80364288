/**
 * Chooses a device's gateway or parent device by name: a search box and a list of the product's gateways (or
 * devices) whose names match it, the first 50 by name. The record id it hands back is never typed or shown.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, type Page } from '../api/client.ts'
import { words } from '../i18n.ts'
import { useDebouncedRead } from './debounced-read.ts'

/** How many matches the list offers. */
const MATCHES = 50

const lw = words(
  {
    search: (what: string) => `Search ${what.toLowerCase()}s by name`,
    choose: (what: string) => `Choose a ${what.toLowerCase()}`,
    none: (what: string) => `No ${what.toLowerCase()} of this product matches.`,
    more: `More match: type more of the name.`,
    productFirst: 'Choose the product first.',
  },
  {
    search: (what: string) => `按名称搜索${what}`,
    choose: (what: string) => `选择${what}`,
    none: (what: string) => `该产品没有匹配的${what}。`,
    more: '匹配的更多：请输入更多名称。',
    productFirst: '请先选择产品。',
  },
)

interface Named {
  id: number
  name: string
}

/** The product's gateways (or devices) whose names contain `query`, by name. */
async function matches(kind: 'gateway' | 'device', productID: string, query: string) {
  const field = kind === 'gateway' ? 'gatewayName' : 'deviceName'
  const q = new URLSearchParams({ productID, _limit: String(MATCHES), _sort: field, _order: 'asc' })
  if (query.trim()) q.set(`${field}_like`, query.trim())
  const page = await api<Page<{ id: number; gatewayName?: string; deviceName?: string }>>(
    `/${kind === 'gateway' ? 'gateways' : 'devices'}?${q}`,
  )
  const items: Named[] = page.items.map((x) => ({
    id: x.id,
    name: (kind === 'gateway' ? x.gatewayName : x.deviceName) ?? String(x.id),
  }))
  return { items, more: page.meta.count > items.length }
}

/**
 * The record chosen and its setter; a value given from outside (an edit of a device already behind a gateway) has
 * its name read once.
 */
function useChosen(kind: 'gateway' | 'device', value: string) {
  const [chosen, setChosen] = useState<Named | null>(null)
  useEffect(() => {
    if (!value || (chosen && String(chosen.id) === value)) return
    let stale = false
    api<{ id: number; gatewayName?: string; deviceName?: string }>(
      `/${kind === 'gateway' ? 'gateways' : 'devices'}/${value}`,
    ).then(
      (r) =>
        !stale &&
        setChosen({ id: r.id, name: (kind === 'gateway' ? r.gatewayName : r.deviceName) ?? '' }),
      () => undefined,
    )
    return () => {
      stale = true
    }
  }, [kind, value])
  return [chosen, setChosen] as const
}

/**
 * `label` names what is chosen ("Gateway", "Parent device"); `value` is the chosen record id ('' for none), handed
 * to `onChange`. `exclude`: a record that may not be chosen (a device is not its own parent).
 */
export function LinkPicker(p: {
  kind: 'gateway' | 'device'
  label: string
  productID: string
  value: string
  onChange: (id: string) => void
  exclude?: number
}) {
  const [query, setQuery] = useState('')
  const { data: found, error } = useDebouncedRead(
    p.productID ? () => matches(p.kind, p.productID, query) : null,
    [p.kind, p.productID, query],
    query ? 250 : 0,
  )
  /** The record chosen, kept among the options while a search shows others. */
  const [chosen, setChosen] = useChosen(p.kind, p.value)
  const s = lw()

  const listed = (found?.items ?? []).filter((x) => x.id !== p.exclude)
  const items =
    chosen && String(chosen.id) === p.value && !listed.some((x) => x.id === chosen.id)
      ? [chosen, ...listed]
      : listed
  const choose = (id: string) => {
    setChosen(items.find((x) => String(x.id) === id) ?? null)
    p.onChange(id)
  }
  return (
    <fieldset class="link-picker">
      <legend>{p.label}</legend>
      {!p.productID ? (
        <p class="muted">{s.productFirst}</p>
      ) : (
        <>
          <input
            type="search"
            aria-label={s.search(p.label)}
            placeholder={s.search(p.label)}
            value={query}
            onInput={(e) => setQuery(e.currentTarget.value)}
          />
          <select
            aria-label={s.choose(p.label)}
            required
            value={p.value}
            onChange={(e) => choose(e.currentTarget.value)}
          >
            <option value="">{s.choose(p.label)}</option>
            {items.map((x) => (
              <option key={x.id} value={String(x.id)}>
                {x.name}
              </option>
            ))}
          </select>
          {found && listed.length === 0 && <p class="muted">{s.none(p.label)}</p>}
          {found?.more && <p class="muted">{s.more}</p>}
          {error && (
            <p role="alert" class="error">
              {error}
            </p>
          )}
        </>
      )}
    </fieldset>
  )
}
