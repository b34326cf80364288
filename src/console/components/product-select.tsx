/**
 * A product chooser that stays usable with many products: a select of the first PRODUCT_OPTIONS products by name,
 * read from GET /products, and a search box narrowing it (productName_like) when the tenant has more.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, type Page } from '../api/client.ts'
import { t, words } from '../i18n.ts'
import type { ProductItemWire } from '../api/wire.ts'

/** How many products the select offers at once. */
export const PRODUCT_OPTIONS = 50

const w = words({ searchProducts: 'Search products' }, { searchProducts: '搜索产品' })

/** A product as the select knows it. */
/** A product the select offers (a list item; a chosen one may be known by its id and name only). */
export type ProductItem = Pick<ProductItemWire, 'productID' | 'productName'> &
  Partial<Pick<ProductItemWire, 'cloudProtocol'>>

/** The first PRODUCT_OPTIONS products by name whose name has `search` (read again as it changes, debounced). */
function useProductOptions(search: string) {
  const [list, setList] = useState<Page<ProductItem> | null>(null)
  const [error, setError] = useState<string | null>(null)

  useEffect(() => {
    let stale = false
    const q = new URLSearchParams({
      _limit: String(PRODUCT_OPTIONS),
      _sort: 'productName',
      _order: 'asc',
    })
    if (search.trim()) q.set('productName_like', search.trim())
    const timer = setTimeout(
      () =>
        api<Page<ProductItem>>(`/products?${q}`).then(
          (d) => !stale && (setList(d), setError(null)),
          (e: Error) => !stale && setError(e.message),
        ),
      search ? 200 : 0,
    )
    return () => {
      stale = true
      clearTimeout(timer)
    }
  }, [search])
  return { list, error }
}

/**
 * `value` is a productID ('' for none). `allLabel`: the label of the '' option (a filter's "All"); without it the
 * select is required.
 */
export function ProductSelect(p: {
  label: string
  value: string
  /** The chosen productID and, when listed, its record ('' and undefined for none). */
  onChange: (productID: string, product?: ProductItem) => void
  allLabel?: string
}) {
  const [search, setSearch] = useState('')
  const { list, error } = useProductOptions(search)

  const items = list?.items ?? []
  // the chosen product stays an option while a search shows others
  const options =
    p.value && !items.some((x) => x.productID === p.value)
      ? [{ productID: p.value, productName: p.value }, ...items]
      : items
  const many = search !== '' || (list?.meta.count ?? 0) > PRODUCT_OPTIONS

  return (
    <span class="product-select">
      {many && (
        <input
          type="search"
          aria-label={w().searchProducts}
          placeholder={w().searchProducts}
          value={search}
          onInput={(e) => setSearch(e.currentTarget.value)}
        />
      )}
      <label>
        {p.label}{' '}
        <select
          value={p.value}
          required={p.allLabel === undefined}
          onChange={(e) => {
            const v = e.currentTarget.value
            p.onChange(
              v,
              options.find((x) => x.productID === v),
            )
          }}
        >
          <option value="">{p.allLabel ?? '—'}</option>
          {options.map((x) => (
            <option key={x.productID} value={x.productID}>
              {x.productName}
            </option>
          ))}
        </select>
      </label>
      {error && (
        <span role="alert" class="error">
          {t().product}: {error}
        </span>
      )}
    </span>
  )
}
