/**
 * The fields of a record form described as data: each field's label, kind and options, the form's values as text
 * (what inputs hold), read from a record for an edit and turned into the API's body on submit.
 */
import { t } from '../i18n.ts'

export interface Field {
  key: string
  label: string
  /** text (default), number, select (integer codes), check (0/1), checks (integer ids), json (an array as text). */
  kind?: 'text' | 'number' | 'select' | 'check' | 'checks' | 'json'
  /** [value, label] of a select or of checks. */
  options?: Array<[string, string]>
  required?: boolean
  /** The value of a new record (a required select defaults to its first option). */
  initial?: string
  /** Shown (and sent) only when this holds. */
  when?: (v: Values) => boolean
  /** A text input's hint (what an empty one means, the form of a value). */
  placeholder?: string
}

/** The form's values as its inputs hold them: checks as a comma list of ids, check as '1' or '0'. */
export type Values = Record<string, string>

const shown = (f: Field, v: Values) => !f.when || f.when(v)

/** The values of a new record. */
export function initialValues(fields: Field[]): Values {
  const v: Values = {}
  for (const f of fields)
    v[f.key] = f.initial ?? (f.kind === 'select' && f.required ? (f.options?.[0]?.[0] ?? '') : '')
  return v
}

/** The values of a stored record (for an edit). */
export function valuesOf(fields: Field[], record: Record<string, unknown>): Values {
  const v: Values = {}
  for (const f of fields) {
    const x = record[f.key]
    if (x === null || x === undefined) v[f.key] = f.kind === 'check' ? '0' : ''
    else if (f.kind === 'json') v[f.key] = JSON.stringify(x)
    else if (Array.isArray(x)) v[f.key] = x.join(',')
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a scalar here: JSON and arrays are above
    else v[f.key] = String(x)
  }
  return v
}

/**
 * The API body of the shown fields. An empty field is left out of a create and sent as null in an edit (which
 * clears it); a json field that does not parse is sent as its text, for the API to say what is wrong with it.
 */
export function bodyOf(fields: Field[], v: Values, editing: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const f of fields) {
    if (!shown(f, v)) continue
    let raw = (v[f.key] ?? '').trim()
    // a required select shows its first option until another is picked: that is what is sent
    if (f.kind === 'select' && f.required && raw === '') raw = f.options?.[0]?.[0] ?? ''
    if (f.kind === 'check') body[f.key] = raw === '1' ? 1 : 0
    else if (f.kind === 'checks') body[f.key] = raw ? raw.split(',').map(Number) : []
    else if (raw === '') {
      if (editing) body[f.key] = null
    } else if (f.kind === 'number' || f.kind === 'select')
      body[f.key] = Number.isFinite(Number(raw)) ? Number(raw) : raw
    else if (f.kind === 'json') {
      try {
        body[f.key] = JSON.parse(raw) as unknown
      } catch {
        body[f.key] = raw
      }
    } else body[f.key] = raw
  }
  return body
}

const toggle = (list: string, id: string, on: boolean) => {
  const ids = list ? list.split(',') : []
  return (on ? [...ids.filter((x) => x !== id), id] : ids.filter((x) => x !== id)).join(',')
}

/** The inputs of the shown fields, each in its label. */
export function FormFields(p: { fields: Field[]; values: Values; onChange: (v: Values) => void }) {
  const set = (key: string, value: string) => p.onChange({ ...p.values, [key]: value })
  const text = (key: string) => (e: Event) =>
    set(key, (e.currentTarget as HTMLInputElement | HTMLSelectElement).value)
  return (
    <>
      {p.fields
        .filter((f) => shown(f, p.values))
        .map((f) => {
          const value = p.values[f.key] ?? ''
          if (f.kind === 'check')
            return (
              <label key={f.key} class="check">
                <input
                  type="checkbox"
                  checked={value === '1'}
                  onChange={(e) => set(f.key, e.currentTarget.checked ? '1' : '0')}
                />{' '}
                {f.label}
              </label>
            )
          if (f.kind === 'checks')
            return (
              <fieldset key={f.key} class="checks">
                <legend>{f.label}</legend>
                {(f.options ?? []).length === 0 && <span>{t().none}</span>}
                {(f.options ?? []).map(([id, label]) => (
                  <label key={id} class="check">
                    <input
                      type="checkbox"
                      checked={value.split(',').includes(id)}
                      onChange={(e) => set(f.key, toggle(value, id, e.currentTarget.checked))}
                    />{' '}
                    {label}
                  </label>
                ))}
              </fieldset>
            )
          if (f.kind === 'select')
            return (
              <label key={f.key}>
                {f.label}
                <select value={value} required={f.required} onChange={text(f.key)}>
                  {!f.required && <option value="">—</option>}
                  {(f.options ?? []).map(([code, label]) => (
                    <option key={code} value={code}>
                      {label}
                    </option>
                  ))}
                </select>
              </label>
            )
          return (
            <label key={f.key}>
              {f.label}
              {f.kind === 'number' ? (
                <input
                  type="number"
                  step="any"
                  required={f.required}
                  value={value}
                  onInput={text(f.key)}
                />
              ) : (
                <input
                  type="text"
                  required={f.required}
                  placeholder={f.placeholder}
                  value={value}
                  onInput={text(f.key)}
                />
              )}
            </label>
          )
        })}
    </>
  )
}
