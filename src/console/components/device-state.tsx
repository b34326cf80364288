/**
 * The device page's State region: the device's desired and reported state side by side, a row per top-level key
 * (the delta's keys marked pending), each key's last change and the versions, read again on each `device.state`
 * event of the device (the page passes them on). Admins and users edit the desired state in a dialog: a JSON merge
 * patch sent with the desiredVersion it was based on; a 409 reads the document again and shows the current desired
 * state beside the typed text, which is kept, and the next Save is based on that version.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError } from '../api/client.ts'
import { t } from '../i18n.ts'
import type { StateDocumentWire } from '../api/wire.ts'
import { DialogButtons, useModal } from './dialog.tsx'
import { errorText } from './error-text.ts'
import { ErrorNote, TableHead } from './paged-list.tsx'
import { hasKey, jsonText, submittedPatch, PatchField, PendingBadge, stw } from './state-patch.tsx'

export type StateDoc = StateDocumentWire

/** The later of two readings of a document (an answer that arrives late must not undo a newer one). */
const newer = (old: StateDoc | null, next: StateDoc) =>
  old && old.version > next.version ? old : next

/** The device's state document, read again on `reload()` (its `device.state` events) and set by an edit's answer. */
export function useDeviceState(id: number) {
  const [doc, setDoc] = useState<StateDoc | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [reads, setReads] = useState(0)
  useEffect(() => {
    let stale = false
    api<StateDoc>(`/devices/${id}/state`).then(
      (d) => !stale && (setDoc((old) => newer(old, d)), setError(null)),
      (e: unknown) => !stale && setError(errorText(e)),
    )
    return () => {
      stale = true
    }
  }, [id, reads])
  return {
    doc,
    error,
    saved: (d: StateDoc) => setDoc((old) => newer(old, d)),
    reload: () => setReads((n) => n + 1),
  }
}

/** The top-level keys of either side, sorted. */
const keysOf = (doc: StateDoc) =>
  [...new Set([...Object.keys(doc.desired), ...Object.keys(doc.reported)])].sort()

/** A row per top-level key: desired, reported, the delta (marked pending) and each side's last change. */
function StateTable({ doc }: { doc: StateDoc }) {
  const s = stw()
  const keys = keysOf(doc)
  if (keys.length === 0) return <p>{s.noState}</p>
  return (
    <table aria-label={s.stateTable} class="state-table">
      <TableHead columns={[s.key, s.desired, s.reported, s.delta, s.desiredAt, s.reportedAt]} />
      <tbody>
        {keys.map((k) => {
          const pending = hasKey(doc.delta, k)
          return (
            <tr key={k} class={pending ? 'pending' : undefined}>
              <th scope="row" class="mono">
                {k}
              </th>
              <td class="mono value">{jsonText(doc.desired[k])}</td>
              <td class="mono value">{jsonText(doc.reported[k])}</td>
              <td class="value">
                {pending ? (
                  <>
                    <PendingBadge /> <span class="mono">{jsonText(doc.delta[k])}</span>
                  </>
                ) : (
                  '—'
                )}
              </td>
              <td class="time">{doc.metadata.desired[k]?.updatedAt ?? '—'}</td>
              <td class="time">{doc.metadata.reported[k]?.updatedAt ?? '—'}</td>
            </tr>
          )
        })}
      </tbody>
    </table>
  )
}

/** Whether the device is in its desired state, and the document's versions and times. */
function StateSummary({ doc }: { doc: StateDoc }) {
  const s = stw()
  const pending = Object.keys(doc.delta).length
  return (
    <dl class="info state-summary">
      <dt>{t().status}</dt>
      <dd>
        {pending ? (
          <PendingBadge text={s.pendingKeys(pending)} />
        ) : (
          <span class="badge on">{s.inSync}</span>
        )}
      </dd>
      <dt>{s.version}</dt>
      <dd>{doc.version}</dd>
      <dt>{s.desiredVersion}</dt>
      <dd>
        {doc.desiredVersion} <span class="muted">({doc.desiredAt ?? '—'})</span>
      </dd>
      <dt>{s.reportedVersion}</dt>
      <dd>
        {doc.reportedVersion} <span class="muted">({doc.reportedAt ?? '—'})</span>
      </dd>
    </dl>
  )
}

/** The top-level keys whose desired value differs between two readings. */
const changedKeys = (a: StateDoc, b: StateDoc) =>
  [...new Set([...Object.keys(a.desired), ...Object.keys(b.desired)])]
    .filter((k) => jsonText(a.desired[k]) !== jsonText(b.desired[k]))
    .sort()

/** What a 409 found: the document the edit was based on and the one read after it. */
interface Conflict {
  from: StateDoc
  to: StateDoc
}

/** The current desired state after a 409, with the keys changed since the edit began. */
function ConflictView({ c }: { c: Conflict }) {
  const s = stw()
  const keys = changedKeys(c.from, c.to)
  return (
    <figure class="state-current" aria-labelledby="state-current-h">
      <figcaption id="state-current-h">{s.currentDesired(c.to.desiredVersion)}</figcaption>
      {keys.length > 0 && (
        <p>
          {s.changedKeys}: <span class="mono">{keys.join(', ')}</span>
        </p>
      )}
      <pre class="mono">{JSON.stringify(c.to.desired, null, 2)}</pre>
    </figure>
  )
}

/** PATCH the device's desired state with `patch` based on `base`; a 409 answers the document read again. */
async function sendPatch(
  id: number,
  base: StateDoc,
  patch: Record<string, unknown>,
): Promise<{ doc: StateDoc } | { conflict: StateDoc; refusal: string }> {
  const path = `/devices/${id}/state`
  try {
    const doc = await api<StateDoc>(path, {
      method: 'PATCH',
      body: { desired: patch, version: base.desiredVersion },
    })
    return { doc }
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 409) throw e
    // the API's message once (its field error says the same)
    return { conflict: await api<StateDoc>(path), refusal: e.message }
  }
}

/** The dialog editing the desired state, based on `base` (the document when it opened). */
function DesiredEditor(p: {
  id: number
  base: StateDoc
  onSaved: (d: StateDoc) => void
  onClose: () => void
}) {
  const s = stw()
  const ref = useModal()
  const [base, setBase] = useState(p.base)
  const [text, setText] = useState(() => JSON.stringify(p.base.desired, null, 2))
  const [error, setError] = useState<string | null>(null)
  const [conflict, setConflict] = useState<Conflict | null>(null)
  const [busy, setBusy] = useState(false)

  const save = async (ev: Event) => {
    const patch = submittedPatch(ev, text, setError)
    if (!patch) return
    setBusy(true)
    try {
      const r = await sendPatch(p.id, base, patch)
      if ('doc' in r) {
        ref.current?.close()
        return p.onSaved(r.doc)
      }
      setConflict({ from: base, to: r.conflict })
      setBase(r.conflict)
      setError(`${r.refusal}. ${s.conflict(base.desiredVersion, r.conflict.desiredVersion)}`)
    } catch (e) {
      setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }

  return (
    <dialog ref={ref} aria-labelledby="state-edit-title" onClose={p.onClose} class="state-editor">
      <form onSubmit={(e) => void save(e)}>
        <h2 id="state-edit-title">{s.edit}</h2>
        <div class={conflict ? 'state-compare' : undefined}>
          <PatchField value={text} onInput={setText} rows={10} />
          {conflict && <ConflictView c={conflict} />}
        </div>
        <ErrorNote error={error} />
        <DialogButtons dialog={ref} busy={busy} save={s.save} cancel={s.cancel} />
      </form>
    </dialog>
  )
}

/** The State region; `state` is the page's useDeviceState, `canWrite` offers the editor. */
export function DeviceState(p: {
  id: number
  state: ReturnType<typeof useDeviceState>
  canWrite: boolean
}) {
  const s = stw()
  const { doc, error } = p.state
  const [editing, setEditing] = useState(false)
  return (
    <section aria-labelledby="state-h" class="card">
      <h2 id="state-h">{s.state}</h2>
      <ErrorNote error={error} />
      {!doc ? (
        !error && <p>{t().loading}</p>
      ) : (
        <>
          <StateSummary doc={doc} />
          <StateTable doc={doc} />
          {p.canWrite && (
            <div class="row-actions">
              <button type="button" onClick={() => setEditing(true)} disabled={editing}>
                {s.edit}
              </button>
            </div>
          )}
        </>
      )}
      {editing && doc && (
        <DesiredEditor
          id={p.id}
          base={doc}
          onSaved={p.state.saved}
          onClose={() => setEditing(false)}
        />
      )}
    </section>
  )
}
