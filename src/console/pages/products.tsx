/** /products: the tenant's products, paged by the server and searched by name; create and delete (not for viewers). */
import { useState } from 'preact/hooks'
import { api, session } from '../api/client.ts'
import { bodyOf, FormFields, initialValues, type Field } from '../components/model-form.tsx'
import {
  ErrorNote,
  PagedTable,
  RowButton,
  SearchBox,
  usePagedList,
} from '../components/paged-list.tsx'
import { t } from '../i18n.ts'
import { navigate } from '../router.ts'
import { labelOf, optionsOf, pw } from './product-words.ts'
import { errorText } from '../components/error-text.ts'
import type { ProductItemWire } from '../api/wire.ts'

/** A product as the list and the detail answer it (the fields the console shows). */
export type Product = ProductItemWire

/** The fields of a product's create and edit forms. */
export const productFields = (): Field[] => [
  { key: 'productName', label: pw().productName, required: true },
  {
    key: 'cloudProtocol',
    label: pw().cloudProtocol,
    kind: 'select',
    required: true,
    options: optionsOf('cloudProtocol'),
  },
  { key: 'description', label: pw().description },
]

function CreateProduct({ onCreated }: { onCreated: (p: Product) => void }) {
  const fields = productFields()
  const [values, setValues] = useState(() => initialValues(fields))
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (ev: Event) => {
    ev.preventDefault()
    setBusy(true)
    setError(null)
    try {
      const created = await api<Product>('/products', {
        method: 'POST',
        body: bodyOf(fields, values, false),
      })
      setValues(initialValues(fields))
      onCreated(created)
    } catch (e) {
      setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }
  return (
    <form class="card model-form" aria-labelledby="new-product-h" onSubmit={submit}>
      <h2 id="new-product-h">{pw().newProduct}</h2>
      <div class="fields">
        <FormFields fields={fields} values={values} onChange={setValues} />
      </div>
      <ErrorNote error={error} />
      <div class="buttons">
        <button type="submit" disabled={busy}>
          {pw().createProduct}
        </button>
      </div>
    </form>
  )
}

export function ProductsPage() {
  const canWrite = session.value?.role !== 'viewer'
  const [search, setSearch] = useState('')
  const [version, setVersion] = useState(0)
  const [deleteError, setDeleteError] = useState<string | null>(null)
  const { page, setPage, pages, data, error } = usePagedList<Product>(
    '/products',
    { productName_like: search },
    search ? 200 : 0,
    version,
  )

  const remove = async (p: Product) => {
    if (!window.confirm(pw().confirmDelete(p.productName))) return
    setDeleteError(null)
    try {
      await api(`/products?ids=${p.id}`, { method: 'DELETE' })
      setVersion((n) => n + 1)
    } catch (e) {
      setDeleteError(errorText(e))
    }
  }

  return (
    <section>
      <h1>{t().products}</h1>
      <div class="toolbar">
        <SearchBox
          label={pw().searchProducts}
          value={search}
          onSearch={(v) => {
            setSearch(v)
            setPage(1)
          }}
        />
      </div>
      <ErrorNote error={error ?? deleteError} />
      <PagedTable
        list={{ data, page, pages, setPage }}
        columns={[
          t().name,
          pw().productID,
          pw().cloudProtocol,
          pw().deviceCount,
          t().created,
          canWrite && t().actions,
        ]}
        row={(p) => (
          <tr key={p.id}>
            <td>
              <a href={`/products/${p.id}`}>{p.productName}</a>
            </td>
            <td class="mono">{p.productID}</td>
            <td>{labelOf('cloudProtocol', p.cloudProtocol, p.cloudProtocolLabel)}</td>
            <td>{p.deviceCount}</td>
            <td>{p.createAt ?? '—'}</td>
            {canWrite && (
              <td>
                <RowButton
                  secondary
                  label={pw().delete}
                  name={p.productName}
                  onClick={() => void remove(p)}
                />
              </td>
            )}
          </tr>
        )}
      />
      {canWrite && <CreateProduct onCreated={(p) => navigate(`/products/${p.id}`)} />}
    </section>
  )
}
