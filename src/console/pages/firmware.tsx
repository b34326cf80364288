/**
 * /firmware: firmware packages and rollouts, of every product or of the one chosen (kept in the address:
 * `/firmware?productID=..`). Admins and users upload a package (its progress shown as it goes), roll a package out
 * (a dialog: the target by name, the pace and the limits) and delete packages; everyone sees the packages (version,
 * size, SHA-256 shortened with a Copy of the whole, description, created) and the rollouts (target, status and
 * progress, live from the stream's `firmware.rollout` events), each leading to its page.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, session } from '../api/client.ts'
import type { FirmwareWire, RolloutEventWire, RolloutWire } from '../api/wire.ts'
import { errorText } from '../components/error-text.ts'
import { FirmwareUpload } from '../components/firmware-upload.tsx'
import {
  finishedShare,
  fww,
  rolloutName,
  sizeText,
  statusText,
} from '../components/firmware-words.ts'
import { ErrorNote, PagedTable, RowButton, usePagedList } from '../components/paged-list.tsx'
import { ProductSelect } from '../components/product-select.tsx'
import { RolloutForm } from '../components/rollout-form.tsx'
import { rolloutEvent, useSoon } from '../components/rollout-live.ts'
import { t } from '../i18n.ts'
import { onLive } from '../live.ts'
import { navigate } from '../router.ts'

/** A SHA-256 shortened, the whole in its title, and a Copy button for the whole. */
function Sha256({ sha, version }: { sha: string; version: string }) {
  const w = fww()
  const [state, setState] = useState<'' | 'copied' | 'failed'>('')
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(sha)
      setState('copied')
    } catch {
      setState('failed')
    }
  }
  return (
    <span class="sha">
      <code class="mono" title={sha}>
        {sha.slice(0, 12)}…
      </code>
      <button
        type="button"
        class="secondary small"
        aria-label={w.copySha(version)}
        onClick={() => void copy()}
      >
        {w.copyShort}
      </button>
      <span role="status">
        {state === 'copied' ? w.copied : state === 'failed' ? w.copyFailed : ''}
      </span>
    </span>
  )
}

/** The packages of the product chosen (all when none), newest first; Roll out and Delete for writers. */
function Packages(p: {
  productID: string
  version: number
  canWrite: boolean
  onRollOut: (f: FirmwareWire) => void
  onDeleted: () => void
}) {
  const w = fww()
  const list = usePagedList<FirmwareWire>(
    '/firmware',
    { productID: p.productID, _sort: 'id', _order: 'desc' },
    0,
    p.version,
  )
  const remove = async (f: FirmwareWire) => {
    if (!confirm(w.confirmDelete(f.version, f.productName))) return
    try {
      await api(`/firmware?ids=${f.id}`, { method: 'DELETE' })
      p.onDeleted()
    } catch (e) {
      list.setError(errorText(e))
    }
  }
  return (
    <section class="card" aria-labelledby="fw-packages-h">
      <h2 id="fw-packages-h">{w.packages}</h2>
      <ErrorNote error={list.error} />
      <div class="table-scroll stack">
        <PagedTable
          label={w.packages}
          list={list}
          columns={[
            t().product,
            w.version,
            w.size,
            w.sha256,
            w.description,
            t().created,
            p.canWrite && t().actions,
          ]}
          row={(f) => (
            <tr key={f.id}>
              <td data-label={t().product}>{f.productName}</td>
              <td data-label={w.version} class="mono">
                {f.version}
              </td>
              <td data-label={w.size} class="nowrap" title={`${f.size} B`}>
                {sizeText(f.size)}
              </td>
              <td data-label={w.sha256}>
                <Sha256 sha={f.sha256} version={f.version} />
              </td>
              <td data-label={w.description}>{f.description ?? ''}</td>
              <td data-label={t().created} class="time">
                {f.createAt}
              </td>
              {p.canWrite && (
                <td data-label={t().actions} class="actions">
                  <RowButton
                    label={w.rollOut}
                    name={`${f.productName} ${f.version}`}
                    onClick={() => p.onRollOut(f)}
                  />
                  <RowButton
                    danger
                    label={w.delete}
                    name={`${f.productName} ${f.version}`}
                    onClick={() => remove(f)}
                  />
                </td>
              )}
            </tr>
          )}
        />
      </div>
    </section>
  )
}

/** A rollout's row: its name leading to its page, its product, status and progress. */
function RolloutRow({ r }: { r: RolloutWire }) {
  const w = fww()
  const { done, pct } = finishedShare(r)
  const name = rolloutName(r)
  return (
    <tr>
      <td data-label={w.rollout}>
        <a href={`/firmware/rollouts/${r.id}`}>{name}</a>
      </td>
      <td data-label={t().product}>{r.productName}</td>
      <td data-label={w.status}>{statusText('rolloutStatus', r.status, r.statusLabel)}</td>
      <td data-label={w.progress} class="progress-cell">
        <progress max={100} value={pct} aria-label={`${w.progress} ${name}`} />
        <span class="nowrap">
          {done} / {r.total}
        </span>
      </td>
      <td data-label={t().created} class="time">
        {r.createAt}
      </td>
    </tr>
  )
}

/** The rollouts of the product chosen (all when none), newest first, their status and counts live. */
function Rollouts({ productID }: { productID: string }) {
  const w = fww()
  const [version, setVersion] = useState(0)
  const list = usePagedList<RolloutWire>(
    '/firmware_rollouts',
    { productID, _sort: 'id', _order: 'desc' },
    0,
    version,
  )
  const { data, setData } = list
  const again = useSoon(() => setVersion((n) => n + 1), 1000)
  useEffect(
    () =>
      onLive((e) => {
        const r = rolloutEvent<RolloutEventWire>(e, 'firmware.rollout')
        if (!r || (productID && r.productID !== productID)) return
        // a rollout not listed (made meanwhile, or on another page): the page is read again
        if (!data?.items.some((x) => x.id === r.rolloutIntID)) return again()
        const { status, total, counts } = r
        setData(
          (d) =>
            d && {
              ...d,
              items: d.items.map((x) =>
                x.id !== r.rolloutIntID
                  ? x
                  : {
                      ...x,
                      status,
                      total,
                      counts,
                      statusLabel: x.status === status ? x.statusLabel : null,
                    },
              ),
            },
        )
      }),
    [productID, data],
  )
  return (
    <section class="card" aria-labelledby="fw-rollouts-h">
      <h2 id="fw-rollouts-h">{w.rollouts}</h2>
      <ErrorNote error={list.error} />
      <div class="table-scroll stack">
        <PagedTable
          label={w.rollouts}
          list={list}
          columns={[w.rollout, t().product, w.status, w.progress, t().created]}
          row={(r) => <RolloutRow key={r.id} r={r} />}
        />
      </div>
    </section>
  )
}

export function FirmwarePage() {
  const canWrite = session.value?.role !== 'viewer'
  const [productID, setProductID] = useState(
    () => new URLSearchParams(location.search).get('productID') ?? '',
  )
  const [version, setVersion] = useState(0)
  const [rolling, setRolling] = useState<FirmwareWire | null>(null)
  const reload = () => setVersion((n) => n + 1)

  // the address follows the product chosen (replaced: a filter is not history)
  useEffect(() => {
    const to = productID ? `/firmware?productID=${encodeURIComponent(productID)}` : '/firmware'
    if (location.pathname + location.search !== to) history.replaceState(null, '', to)
  }, [productID])

  return (
    <section class="firmware">
      <h1>{t().firmware}</h1>
      <div class="toolbar">
        <ProductSelect
          label={fww().showProduct}
          allLabel={t().all}
          value={productID}
          onChange={setProductID}
        />
      </div>
      {canWrite && <FirmwareUpload productID={productID} onUploaded={reload} />}
      <Packages
        productID={productID}
        version={version}
        canWrite={canWrite}
        onRollOut={setRolling}
        onDeleted={reload}
      />
      <Rollouts productID={productID} />
      {rolling && (
        <RolloutForm
          firmware={rolling}
          onCreated={(r) => navigate(`/firmware/rollouts/${r.id}`)}
          onClose={() => setRolling(null)}
        />
      )}
    </section>
  )
}
