/**
 * The upload of a firmware package: its product chosen by name, its version, description, an optional SHA-256 the
 * service checks, and the file, sent as `multipart/form-data` to POST /firmware with XMLHttpRequest (fetch reports
 * no upload progress), the bytes sent shown in a progress bar as they go. A refusal (a version the product has, a
 * SHA-256 that does not match) is shown beside its field and in the form's alert; the form keeps what was typed.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, authorization, forgetSession, session } from '../api/client.ts'
import { t } from '../i18n.ts'
import type { FirmwareWire } from '../api/wire.ts'
import { FieldError, invalidAttrs, refusalOf, type Refusal } from './field-errors.tsx'
import { fww, sizeText } from './firmware-words.ts'
import { ErrorNote } from './paged-list.tsx'
import { ProductSelect } from './product-select.tsx'

/** The upload was canceled by its user. */
class Canceled extends Error {}

/** The API's error body. */
interface ErrorBody {
  errorCode?: string
  message?: string
  errors?: Record<string, unknown>
}

/**
 * POST /api/v1/firmware with the session's token: `onProgress` gets the bytes sent and the body's size as they go;
 * `done` is the record (201) or the API's refusal (ApiError; a 401 ends the session), `abort` cancels.
 */
function postPackage(form: FormData, onProgress: (sent: number, total: number) => void) {
  const xhr = new XMLHttpRequest()
  const done = new Promise<FirmwareWire>((resolve, reject) => {
    xhr.open('POST', '/api/v1/firmware')
    xhr.setRequestHeader('accept', 'application/json')
    for (const [k, v] of Object.entries(authorization())) xhr.setRequestHeader(k, v)
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded, e.total)
    xhr.onload = () => {
      let body: unknown = null
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : null
      } catch {
        // not JSON (a proxy's error page): the status speaks for it
      }
      if (xhr.status === 201) return resolve(body as FirmwareWire)
      if (xhr.status === 401 && session.value) forgetSession()
      const e = (body ?? {}) as ErrorBody
      reject(
        new ApiError(xhr.status, e.errorCode ?? 'ERROR', e.message ?? xhr.statusText, e.errors),
      )
    }
    xhr.onerror = () => reject(new Error(fww().uploadFailed))
    xhr.onabort = () => reject(new Canceled())
    xhr.send(form)
  })
  return { done, abort: () => xhr.abort() }
}

/** The form's fields the API may refuse. */
const FIELDS = ['productID', 'version', 'description', 'sha256', 'file'] as const
const FORM = 'fw-upload'

/** The upload's progress: a bar of the share sent, and how much of how much. */
function UploadProgress(p: { sent: number; total: number; busy: boolean; onCancel: () => void }) {
  const w = fww()
  const pct = p.total > 0 ? Math.floor((p.sent * 100) / p.total) : 0
  const of = w.ofBytes(sizeText(p.sent), sizeText(p.total))
  return (
    <div class="upload-progress">
      <progress
        role="progressbar"
        aria-label={w.uploadProgress}
        max={100}
        value={pct}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
        aria-valuetext={`${pct}% (${of})`}
      />
      <span>
        {pct}% ({of})
      </span>
      {p.busy && (
        <button type="button" class="secondary" onClick={p.onCancel}>
          {w.cancelUpload}
        </button>
      )}
    </div>
  )
}

/** The fields as typed, the file chosen aside. */
interface Typed {
  productID: string
  version: string
  description: string
  sha256: string
}

/** The multipart body: the fields given (blank optional ones left out), the file last. */
function formOf(f: Typed, file: File | null) {
  const form = new FormData()
  form.set('productID', f.productID)
  form.set('version', f.version.trim())
  if (f.description.trim()) form.set('description', f.description.trim())
  if (f.sha256.trim()) form.set('sha256', f.sha256.trim().toLowerCase())
  if (file) form.set('file', file, file.name)
  return form
}

/** An upload's state: what was typed, the file, the progress, a refusal, a note; `submit` sends it. */
function useUpload(productID: string, onUploaded: (f: FirmwareWire) => void) {
  const w = fww()
  const [f, setF] = useState<Typed>({ productID, version: '', description: '', sha256: '' })
  const [file, setFile] = useState<File | null>(null)
  const [sent, setSent] = useState<{ sent: number; total: number } | null>(null)
  const [busy, setBusy] = useState(false)
  const [refusal, setRefusal] = useState<Refusal | null>(null)
  const [note, setNote] = useState('')
  const abort = useRef<(() => void) | null>(null)
  const fileInput = useRef<HTMLInputElement>(null)
  // a page left mid-upload cancels it
  useEffect(() => () => abort.current?.(), [])

  const submit = async (ev: Event) => {
    ev.preventDefault()
    setRefusal(null)
    setNote('')
    setBusy(true)
    setSent({ sent: 0, total: file?.size ?? 0 })
    const call = postPackage(formOf(f, file), (s, total) => setSent({ sent: s, total }))
    abort.current = call.abort
    try {
      const created = await call.done
      setSent((x) => x && { sent: x.total, total: x.total })
      setNote(w.uploaded(created.version))
      setF({ ...f, version: '', description: '', sha256: '' })
      setFile(null)
      if (fileInput.current) fileInput.current.value = ''
      onUploaded(created)
    } catch (e) {
      setSent(null)
      if (e instanceof Canceled) setNote(w.uploadCanceled)
      else setRefusal(refusalOf(e, FIELDS))
    } finally {
      abort.current = null
      setBusy(false)
    }
  }
  return { f, setF, setFile, sent, busy, refusal, note, abort, fileInput, submit }
}

/** The upload form; `productID` is the product chosen first (the page's filter), `onUploaded` gets the record. */
export function FirmwareUpload(p: { productID: string; onUploaded: (f: FirmwareWire) => void }) {
  const w = fww()
  const { f, setF, setFile, sent, busy, refusal, note, abort, fileInput, submit } = useUpload(
    p.productID,
    p.onUploaded,
  )

  const text = (k: Exclude<keyof Typed, 'productID'>, label: string, required = false) => (
    <div class="field">
      <label>
        {label}
        <input
          value={f[k]}
          required={required}
          maxLength={k === 'sha256' ? 64 : k === 'version' ? 64 : 300}
          class={k === 'sha256' ? 'mono' : undefined}
          onInput={(e) => setF({ ...f, [k]: e.currentTarget.value })}
          {...invalidAttrs(FORM, refusal, k)}
        />
      </label>
      <FieldError form={FORM} refusal={refusal} name={k} />
    </div>
  )
  return (
    <section class="card" aria-labelledby="fw-upload-h">
      <h2 id="fw-upload-h">{w.upload}</h2>
      <form class="fw-form" aria-labelledby="fw-upload-h" onSubmit={(e) => void submit(e)}>
        <div class="field">
          <ProductSelect
            label={t().product}
            value={f.productID}
            onChange={(productID) => setF({ ...f, productID })}
          />
          <FieldError form={FORM} refusal={refusal} name="productID" />
        </div>
        {text('version', w.version, true)}
        {text('description', w.description)}
        {text('sha256', w.sha256Optional)}
        <div class="field wide">
          <label>
            {w.file}
            <input
              ref={fileInput}
              type="file"
              required
              onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
              {...invalidAttrs(FORM, refusal, 'file')}
            />
          </label>
          <FieldError form={FORM} refusal={refusal} name="file" />
        </div>
        <div class="buttons wide">
          <button type="submit" disabled={busy}>
            {busy ? w.uploading : w.uploadButton}
          </button>
        </div>
      </form>
      {sent && (
        <UploadProgress
          sent={sent.sent}
          total={sent.total}
          busy={busy}
          onCancel={() => abort.current?.()}
        />
      )}
      <ErrorNote error={refusal?.message ?? null} />
      <p role="status">{note}</p>
    </section>
  )
}
