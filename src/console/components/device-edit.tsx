/**
 * The Edit and Block/Unblock controls of a device's or gateway's Info card: a form of its descriptive fields sent as
 * `PUT {path}` (absent fields keep their values, an emptied one is sent as null), and the blocked flag as its own
 * PUT (blocking asks first). Not rendered for viewers.
 */
import { useState } from 'preact/hooks'
import { api } from '../api/client.ts'
import { words } from '../i18n.ts'
import { ErrorNote } from './paged-list.tsx'
import { errorText } from './error-text.ts'
import { UplinkFields, uplinkBody, uplinkOf } from './device-form.tsx'

export const editWords = words(
  {
    edit: 'Edit',
    save: 'Save',
    cancel: 'Cancel',
    block: 'Block',
    unblock: 'Unblock',
    confirmBlock: 'Block this device? It cannot connect or send until unblocked.',
    editDevice: 'Edit device',
    description: 'Description',
    manufacturer: 'Manufacturer',
    serialNumber: 'Serial number',
    softVersion: 'Software version',
    hardwareVersion: 'Hardware version',
    blocked: 'Blocked',
    saved: 'Saved.',
  },
  {
    edit: '编辑',
    save: '保存',
    cancel: '取消',
    block: '禁用',
    unblock: '启用',
    confirmBlock: '禁用该设备？禁用后设备无法连接和上报，直到重新启用。',
    editDevice: '编辑设备',
    description: '描述',
    manufacturer: '制造商',
    serialNumber: '序列号',
    softVersion: '软件版本',
    hardwareVersion: '硬件版本',
    blocked: '已禁用',
    saved: '已保存。',
  },
)

/** The fields the form edits, after the name field (`deviceName` or `gatewayName`). */
export const EDITABLE = [
  'description',
  'manufacturer',
  'serialNumber',
  'softVersion',
  'hardwareVersion',
] as const
type Editable = (typeof EDITABLE)[number]

export type Editing = Record<string, unknown> & {
  blocked?: number
  upLinkSystem?: number | null
  gateway?: number | null
  parentDevice?: number | null
} & Partial<Record<Editable, string | null>>

/** `PUT {path}` with a body; the saved record goes to `onSaved` (merged over `record`), a refusal to `error`. */
function usePut<T extends Editing>(path: string, record: T, onSaved: (r: T) => void) {
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const put = async (body: Record<string, unknown>) => {
    setError(null)
    setBusy(true)
    try {
      const saved = await api<T>(path, { method: 'PUT', body })
      onSaved({ ...record, ...saved })
      return true
    } catch (e) {
      setError(errorText(e))
      return false
    } finally {
      setBusy(false)
    }
  }
  return { put, error, setError, busy }
}

/** The edit form: a field per `fields` entry (the name required), the uplink when given, Save and Cancel. */
function EditForm(p: {
  fields: Array<[string, string]>
  nameField: string
  form: Record<string, string>
  setForm: (f: (old: Record<string, string>) => Record<string, string>) => void
  /** A terminal's uplink, chosen among its product's gateways and devices (`self` not among them). */
  uplink?: { productID: string; self: number } | undefined
  busy: boolean
  onSubmit: (ev: Event) => void
  onCancel: () => void
}) {
  const w = editWords()
  return (
    <form class="edit-form" aria-label={w.editDevice} onSubmit={p.onSubmit}>
      {p.fields.map(([k, label]) => (
        <label key={k}>
          {label}
          <input
            value={p.form[k] ?? ''}
            required={k === p.nameField}
            onInput={(e) => p.setForm((f) => ({ ...f, [k]: e.currentTarget.value }))}
          />
        </label>
      ))}
      {p.uplink && (
        <UplinkFields
          productID={p.uplink.productID}
          upLinkSystem={p.form.upLinkSystem ?? '1'}
          link={p.form.link ?? ''}
          self={p.uplink.self}
          onChange={(upLinkSystem, link) => p.setForm((f) => ({ ...f, upLinkSystem, link }))}
        />
      )}
      <div class="row-actions">
        <button type="submit" disabled={p.busy}>
          {w.save}
        </button>
        <button type="button" class="secondary" onClick={p.onCancel}>
          {w.cancel}
        </button>
      </div>
    </form>
  )
}

export function EditControls<T extends Editing>(p: {
  /** PUT target, e.g. `/devices/42`. */
  path: string
  record: T
  nameField: 'deviceName' | 'gatewayName'
  nameLabel: string
  onSaved: (r: T) => void
  /** A Variant A terminal: its uplink (gateway or parent device) is edited too, chosen by name. */
  uplink?: { productID: string; self: number } | undefined
}) {
  const w = editWords()
  const [open, setOpen] = useState(false)
  const [form, setForm] = useState<Record<string, string>>({})
  const { put, error, setError, busy } = usePut(p.path, p.record, p.onSaved)
  const fields: Array<[string, string]> = [
    [p.nameField, p.nameLabel],
    ...EDITABLE.map((k): [string, string] => [k, w[k]]),
  ]

  const start = () => {
    const f: Record<string, string> = {}
    for (const [k] of fields) f[k] = (p.record[k] as string | null | undefined) ?? ''
    if (p.uplink) Object.assign(f, uplinkOf(p.record))
    setForm(f)
    setError(null)
    setOpen(true)
  }

  const save = async (ev: Event) => {
    ev.preventDefault()
    const body: Record<string, unknown> = {}
    for (const [k] of fields) {
      const v = form[k]?.trim() ?? ''
      if (v !== ((p.record[k] as string | null | undefined) ?? '')) body[k] = v === '' ? null : v
    }
    const was = uplinkOf(p.record)
    if (p.uplink && (form.upLinkSystem !== was.upLinkSystem || form.link !== was.link))
      Object.assign(body, uplinkBody(form.upLinkSystem!, form.link!))
    if (await put(body)) setOpen(false)
  }

  const blocked = p.record.blocked === 1
  const toggleBlock = async () => {
    if (!blocked && !window.confirm(w.confirmBlock)) return
    await put({ blocked: blocked ? 0 : 1 })
  }

  return (
    <div class="edit-controls">
      <div class="row-actions">
        <button type="button" onClick={start} disabled={open}>
          {w.edit}
        </button>
        <button type="button" class="secondary" onClick={toggleBlock} disabled={busy}>
          {blocked ? w.unblock : w.block}
        </button>
      </div>
      {open && (
        <EditForm
          fields={fields}
          nameField={p.nameField}
          form={form}
          setForm={setForm}
          uplink={p.uplink}
          busy={busy}
          onSubmit={save}
          onCancel={() => setOpen(false)}
        />
      )}
      <ErrorNote error={error} />
    </div>
  )
}
