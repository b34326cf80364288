/**
 * /products/{id}: the product (info and, for writers, its edit), the firmware versions its devices run (with their
 * counts, each leading to those devices) and its model: data points, data streams, metrics and app templates, each a
 * region with its list and forms. Another tenant's product is the API's 404: Not found.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError, session, type Page } from '../api/client.ts'
import { bodyOf, FormFields, valuesOf } from '../components/model-form.tsx'
import { ErrorNote } from '../components/paged-list.tsx'
import { FleetVersions } from '../components/firmware-history.tsx'
import { RecordTitle } from '../components/history-link.tsx'
import { t } from '../i18n.ts'
import {
  AppTemplatesSection,
  DataPointsSection,
  DataStreamsSection,
  MetricsSection,
  type Choices,
} from './product-sections.tsx'
import { labelOf, pw } from './product-words.ts'
import { productFields, type Product } from './products.tsx'
import { errorText } from '../components/error-text.ts'

/** The product's data points and streams for the forms' selects (up to the API's largest page). */
function useChoices(productID: string | undefined, version: number): Choices {
  const [choices, setChoices] = useState<Choices>({ points: [], streams: [] })
  useEffect(() => {
    if (!productID) return
    let stale = false
    const q = `productID=${encodeURIComponent(productID)}&_limit=1000&_sort=id`
    Promise.all([
      api<Page<Choices['points'][number]>>(`/data_points?${q}`),
      api<Page<Choices['streams'][number]>>(`/data_streams?${q}`),
    ]).then(
      ([points, streams]) => !stale && setChoices({ points: points.items, streams: streams.items }),
      () => {
        // the sections show the list's error themselves
      },
    )
    return () => {
      stale = true
    }
  }, [productID, version])
  return choices
}

function ProductInfo(p: { product: Product; canWrite: boolean; onSaved: (p: Product) => void }) {
  const fields = productFields().filter((f) => f.key !== 'cloudProtocol' || p.product.cloudProtocol)
  const [values, setValues] = useState<Record<string, string> | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const save = async (ev: Event) => {
    ev.preventDefault()
    if (!values) return
    setBusy(true)
    setError(null)
    try {
      const saved = await api<Product>(`/products/${p.product.id}`, {
        method: 'PUT',
        body: bodyOf(fields, values, true),
      })
      setValues(null)
      p.onSaved(saved)
    } catch (e) {
      setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }
  const pr = p.product
  return (
    <section aria-labelledby="product-h" class="card">
      <h2 id="product-h">{pw().product}</h2>
      {values ? (
        <form class="model-form" aria-label={pw().editProduct} onSubmit={save}>
          <div class="fields">
            <FormFields fields={fields} values={values} onChange={setValues} />
          </div>
          <ErrorNote error={error} />
          <div class="buttons">
            <button type="submit" disabled={busy}>
              {pw().save}
            </button>
            <button type="button" class="secondary" onClick={() => setValues(null)}>
              {pw().cancel}
            </button>
          </div>
        </form>
      ) : (
        <>
          <dl class="info">
            <dt>{pw().productID}</dt>
            <dd class="mono">{pr.productID}</dd>
            {pr.cloudProtocolLabel !== undefined && (
              <>
                <dt>{pw().cloudProtocol}</dt>
                <dd>{labelOf('cloudProtocol', pr.cloudProtocol, pr.cloudProtocolLabel)}</dd>
              </>
            )}
            <dt>{pw().description}</dt>
            <dd>{pr.description ?? '—'}</dd>
            <dt>{pw().deviceCount}</dt>
            <dd>{pr.deviceCount}</dd>
            <dt>{t().created}</dt>
            <dd>{pr.createAt ?? '—'}</dd>
          </dl>
          {p.canWrite && (
            <p>
              <button
                type="button"
                onClick={() => {
                  setError(null)
                  setValues(valuesOf(fields, pr))
                }}
              >
                {pw().editProduct}
              </button>
            </p>
          )}
        </>
      )}
    </section>
  )
}

export function ProductPage({ id }: { id: number }) {
  const canWrite = session.value?.role !== 'viewer'
  const [product, setProduct] = useState<Product | null>(null)
  const [error, setError] = useState<{ status: number; text: string } | null>(null)
  const [version, setVersion] = useState(0)
  const choices = useChoices(product?.productID, version)

  useEffect(() => {
    let stale = false
    setProduct(null)
    setError(null)
    api<Product>(`/products/${id}`).then(
      (p) => !stale && setProduct(p),
      (e: unknown) =>
        !stale && setError({ status: e instanceof ApiError ? e.status : 0, text: errorText(e) }),
    )
    return () => {
      stale = true
    }
  }, [id])

  if (error)
    return (
      <section>
        <h1>{error.status === 404 ? t().notFound : t().loadFailed}</h1>
        <p role="alert">{error.text}</p>
      </section>
    )
  if (!product) return <p>{t().loading}</p>
  const props = { product, choices, canWrite, onChanged: () => setVersion((n) => n + 1) }
  return (
    <section>
      <RecordTitle title={product.productName} type="product" id={product.id} />
      <ProductInfo product={product} canWrite={canWrite} onSaved={setProduct} />
      <FleetVersions id={product.id} productID={product.productID} />
      <DataPointsSection {...props} />
      <DataStreamsSection {...props} />
      <MetricsSection {...props} />
      <AppTemplatesSection {...props} />
    </section>
  )
}
