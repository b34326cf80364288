/**
 * /certs: the tenant's client certificates (name leading to its page, usable or not, created), searched by name;
 * for admins and users New certificate (name, common name, usable) whose certificate and private key the dialog
 * then shows once, each with Copy; Enable/Disable and Delete (asked first; the API refuses while devices are bound).
 * /certs/{id}: one certificate (cert.tsx).
 */
import { useState } from 'preact/hooks'
import { api, session } from '../api/client.ts'
import type { CertItemWire, CertWire } from '../api/wire.ts'
import { enumLabel } from '../components/admin-words.ts'
import { CopyText } from '../components/copy-text.tsx'
import { useModal } from '../components/dialog.tsx'
import { errorText } from '../components/error-text.ts'
import { useSubmit } from '../components/field-errors.tsx'
import { DialogForm, InputField } from '../components/form-field.tsx'
import {
  ErrorNote,
  PagedTable,
  RowButton,
  SearchBox,
  usePagedList,
} from '../components/paged-list.tsx'
import { t } from '../i18n.ts'
import { CertPage, cw } from './cert.tsx'

/** The certificate PEM and, only now, its private key. */
function CertShown({ cert, onDone }: { cert: CertWire; onDone: () => void }) {
  const ww = cw()
  return (
    <div class="fw-form">
      <h2 id="cert-form-title" class="wide">
        {ww.created(cert.name)}
      </h2>
      <p role="alert" class="wide">
        {ww.keyOnce}
      </p>
      <div class="wide">
        <CopyText label={ww.certificate} text={cert.cert} />
        {cert.key && <CopyText label={ww.privateKey} text={cert.key} />}
      </div>
      <div class="buttons wide">
        <button type="button" onClick={onDone}>
          {ww.done}
        </button>
      </div>
    </div>
  )
}

/** New certificate: name, common name (a random id when blank), usable; then its PEM texts. */
function CertDialog(p: { onCreated: () => void; onClose: () => void }) {
  const ref = useModal()
  const [f, setF] = useState({ name: '', CN: '', enable: true })
  const [created, setCreated] = useState<CertWire | null>(null)
  const { refusal, busy, submit: submitting } = useSubmit(['name', 'CN', 'enable'])
  const ww = cw()
  const submit = () =>
    submitting(async () => {
      // a blank CN is left out (the API makes one up); the audit log names the fields sent
      const CN = f.CN.trim()
      const body = { name: f.name, enable: f.enable ? 1 : 0, ...(CN ? { CN } : {}) }
      setCreated(await api<CertWire>('/certs', { method: 'POST', body }))
      p.onCreated()
    })
  const field = { form: 'cert-form', refusal }
  return (
    <dialog ref={ref} aria-labelledby="cert-form-title" onClose={p.onClose} class="fw-dialog">
      {created ? (
        <CertShown cert={created} onDone={() => ref.current?.close()} />
      ) : (
        <DialogForm
          titleID="cert-form-title"
          title={ww.newCert}
          refusal={refusal}
          busy={busy}
          submit={ww.create}
          cancel={ww.cancel}
          onSubmit={submit}
          onCancel={() => ref.current?.close()}
        >
          <InputField
            {...field}
            name="name"
            label={t().name}
            required
            maxLength={50}
            value={f.name}
            onInput={(v) => setF({ ...f, name: v })}
          />
          <InputField
            {...field}
            name="CN"
            label={ww.commonNameField}
            placeholder={ww.cnHint}
            maxLength={64}
            value={f.CN}
            onInput={(v) => setF({ ...f, CN: v })}
          />
          <label class="check wide">
            <input
              type="checkbox"
              checked={f.enable}
              onChange={(e) => setF({ ...f, enable: e.currentTarget.checked })}
            />{' '}
            {ww.usable}
          </label>
        </DialogForm>
      )}
    </dialog>
  )
}

/** A certificate's row: its name leading to its page; Enable/Disable and Delete for writers. */
function CertRow(p: { c: CertItemWire; canWrite: boolean; act: (call: Promise<unknown>) => void }) {
  const { c, act } = p
  const ww = cw()
  const remove = () =>
    window.confirm(ww.confirmDelete(c.name)) && act(api(`/certs?ids=${c.id}`, { method: 'DELETE' }))
  return (
    <tr>
      <td data-label={t().name}>
        <a href={`/certs/${c.id}`}>{c.name}</a>
      </td>
      <td data-label={ww.status}>
        <span class={c.enable ? 'badge on' : 'badge off'}>{enumLabel('certEnable', c.enable)}</span>
      </td>
      <td data-label={t().created} class="time">
        {c.createAt}
      </td>
      {p.canWrite && (
        <td data-label={t().actions} class="actions">
          <span>
            <RowButton
              label={c.enable ? ww.disable : ww.enable}
              name={c.name}
              onClick={() =>
                act(api(`/certs/${c.id}`, { method: 'PUT', body: { enable: c.enable ? 0 : 1 } }))
              }
            />{' '}
            <RowButton danger label={ww.delete} name={c.name} onClick={remove} />
          </span>
        </td>
      )}
    </tr>
  )
}

function CertList() {
  const canWrite = session.value?.role !== 'viewer'
  const ww = cw()
  const [search, setSearch] = useState('')
  const [version, setVersion] = useState(0)
  const [creating, setCreating] = useState(false)
  const list = usePagedList<CertItemWire>(
    '/certs',
    { name_like: search, _sort: 'id', _order: 'desc' },
    search ? 200 : 0,
    version,
  )
  const reread = () => setVersion((v) => v + 1)
  const act = (call: Promise<unknown>) =>
    void call.then(
      () => (list.setError(null), reread()),
      (e: unknown) => list.setError(errorText(e)),
    )
  return (
    <section>
      <h1>{t().certificates}</h1>
      <div class="toolbar">
        <SearchBox
          label={ww.searchCerts}
          value={search}
          onSearch={(v) => (setSearch(v), list.setPage(1))}
        />{' '}
        {canWrite && (
          <button type="button" onClick={() => setCreating(true)}>
            {ww.newCert}
          </button>
        )}
      </div>
      <ErrorNote error={list.error} />
      <div class="stack">
        <PagedTable
          label={ww.table}
          list={list}
          columns={[t().name, ww.status, t().created, canWrite && t().actions]}
          row={(c) => <CertRow key={c.id} c={c} canWrite={canWrite} act={act} />}
        />
      </div>
      {creating && <CertDialog onCreated={reread} onClose={() => setCreating(false)} />}
    </section>
  )
}

/** /certs (the list) or /certs/{id} (that certificate). */
export function CertsPage({ id }: { id?: number }) {
  return id === undefined ? <CertList /> : <CertPage id={id} />
}
