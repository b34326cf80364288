/**
 * Chooses some of a product's devices by name (an alert rule's device filter): the chosen ones listed with a
 * Remove button each, and a search box whose matches (the first 20 by name) are added with a click. The record ids
 * it hands back are never typed or shown.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, type Page } from '../api/client.ts'
import { words } from '../i18n.ts'
import { useDebouncedRead } from './debounced-read.ts'

const MATCHES = 20

const pw = words(
  {
    search: 'Search devices to add',
    add: (name: string) => `Add ${name}`,
    remove: (name: string) => `Remove ${name}`,
    all: 'All devices of the product.',
    chosen: 'Chosen devices',
    productFirst: 'Choose the product first.',
    noMatch: 'No device of this product matches.',
  },
  {
    search: '搜索要添加的设备',
    add: (name: string) => `添加 ${name}`,
    remove: (name: string) => `移除 ${name}`,
    all: '该产品的全部设备。',
    chosen: '已选设备',
    productFirst: '请先选择产品。',
    noMatch: '该产品没有匹配的设备。',
  },
)

interface Named {
  id: number
  name: string
}

/** Device names by record id, read once (a rule's stored ids are named). */
const names = new Map<number, string>()

async function nameOf(id: number): Promise<Named> {
  if (!names.has(id)) {
    const d = await api<{ deviceName: string }>(`/devices/${id}`).catch(() => undefined)
    names.set(id, d?.deviceName ?? `#${id}`)
  }
  return { id, name: names.get(id)! }
}

/** The product's devices whose names contain `query`, by name. */
async function search(productID: string, query: string): Promise<Named[]> {
  const q = new URLSearchParams({
    productID,
    _limit: String(MATCHES),
    _sort: 'deviceName',
    _order: 'asc',
  })
  if (query.trim()) q.set('deviceName_like', query.trim())
  const page = await api<Page<{ id: number; deviceName: string }>>(`/devices?${q}`)
  for (const d of page.items) names.set(d.id, d.deviceName)
  return page.items.map((d) => ({ id: d.id, name: d.deviceName }))
}

/** The names of the chosen devices (`ids`), read once each. */
function useChosen(ids: readonly number[]): Named[] {
  const [chosen, setChosen] = useState<Named[]>([])
  const key = ids.join(',')
  useEffect(() => {
    let stale = false
    void Promise.all(ids.map(nameOf)).then((list) => !stale && setChosen(list))
    return () => {
      stale = true
    }
  }, [key])
  return chosen
}

/** The product's devices matching `query` (debounced); null before a query is typed. */
const useMatches = (productID: string, query: string): Named[] | null =>
  useDebouncedRead(
    productID && query.trim() ? () => search(productID, query) : null,
    [productID, query],
    250,
  ).data

/** A list of devices, each with one button (Remove, or Add). */
function DeviceButtons(p: {
  items: Named[]
  class: string
  label?: string
  button: (x: Named) => { name: string; text: string; onClick: () => void }
}) {
  return (
    <ul class={p.class} aria-label={p.label}>
      {p.items.map((x) => {
        const b = p.button(x)
        return (
          <li key={x.id}>
            {p.class === 'chips' && <>{x.name} </>}
            <button type="button" class="secondary" aria-label={b.name} onClick={b.onClick}>
              {b.text}
            </button>
          </li>
        )
      })}
    </ul>
  )
}

/** `value`: the chosen record ids (none: every device of the product); `label` names the whole control. */
export function DevicesPicker(p: {
  label: string
  hint: string
  productID: string
  value: readonly number[]
  onChange: (ids: number[]) => void
}) {
  const s = pw()
  const [query, setQuery] = useState('')
  const chosen = useChosen(p.value)
  const found = useMatches(p.productID, query)
  const offered = (found ?? []).filter((x) => !p.value.includes(x.id))
  return (
    <fieldset class="devices-picker" aria-describedby="devices-picker-hint">
      <legend>{p.label}</legend>
      <small id="devices-picker-hint">{p.hint}</small>
      {p.value.length === 0 ? (
        <p class="muted">{s.all}</p>
      ) : (
        <DeviceButtons
          items={chosen}
          class="chips"
          label={s.chosen}
          button={(x) => ({
            name: s.remove(x.name),
            text: '×',
            onClick: () => p.onChange(p.value.filter((id) => id !== x.id)),
          })}
        />
      )}
      {!p.productID ? (
        <p class="muted">{s.productFirst}</p>
      ) : (
        <input
          type="search"
          aria-label={s.search}
          placeholder={s.search}
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
        />
      )}
      {found && offered.length === 0 && <p class="muted">{s.noMatch}</p>}
      {offered.length > 0 && (
        <DeviceButtons
          items={offered}
          class="matches"
          button={(x) => ({
            name: s.add(x.name),
            text: `+ ${x.name}`,
            onClick: () => p.onChange([...p.value, x.id]),
          })}
        />
      )}
    </fieldset>
  )
}
