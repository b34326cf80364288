/**
 * One kind of record of a product (data points, data streams, metrics, app templates) as a region of the product
 * page: the server-paged list filtered by the product, and for writers a form that creates a record or edits the
 * one picked, and a delete that asks first. A refused write shows the API's message beside the form, whose values
 * stay as they were.
 */
import type { ComponentChild } from 'preact'
import { useRef, useState } from 'preact/hooks'
import { api } from '../api/client.ts'
import { t } from '../i18n.ts'
import { pw } from '../pages/product-words.ts'
import { bodyOf, FormFields, initialValues, valuesOf, type Field } from './model-form.tsx'
import { ErrorNote, Pager, RowButton, usePagedList } from './paged-list.tsx'
import { errorText } from './error-text.ts'

interface Row {
  id: number
}

export interface SectionProps<T extends Row> {
  /** Prefix of the element ids (headings the region and form are named by). */
  id: string
  title: string
  /** The record kind in a sentence ("data point"). */
  one: string
  /** The API's collection, e.g. `/data_points`. */
  path: string
  /** The list's filters (the product). */
  filters: Record<string, string>
  columns: Array<[string, (row: T) => ComponentChild]>
  nameOf: (row: T) => string
  fields: Field[]
  /** What every create adds to the form's body (the product). */
  extra: Record<string, unknown>
  canWrite: boolean
  /** Called after every successful write (other forms list these records). */
  onChanged?: () => void
}

/** The section's records, each with Edit and Delete for those who may write. */
function ModelRows<T extends Row>(q: {
  section: SectionProps<T>
  list: ReturnType<typeof usePagedList<T>>
  onEdit: (row: T) => void
  onRemove: (row: T) => void
}) {
  const { section: p, list, onEdit, onRemove } = q
  const { data } = list
  return !data ? (
    <p>{t().loading}</p>
  ) : data.items.length === 0 ? (
    <p>{t().none}</p>
  ) : (
    <>
      <table>
        <thead>
          <tr>
            {p.columns.map(([label]) => (
              <th scope="col" key={label}>
                {label}
              </th>
            ))}
            {p.canWrite && <th scope="col">{t().actions}</th>}
          </tr>
        </thead>
        <tbody>
          {data.items.map((row) => (
            <tr key={row.id}>
              {p.columns.map(([label, cell]) => (
                <td key={label}>{cell(row)}</td>
              ))}
              {p.canWrite && (
                <td class="actions">
                  <RowButton
                    secondary
                    label={pw().edit}
                    name={p.nameOf(row)}
                    onClick={() => onEdit(row)}
                  />{' '}
                  <RowButton
                    secondary
                    label={pw().delete}
                    name={p.nameOf(row)}
                    onClick={() => onRemove(row)}
                  />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {list.pages > 1 && (
        <Pager page={list.page} pages={list.pages} count={data.meta.count} onPage={list.setPage} />
      )}
    </>
  )
}

/**
 * The form's state: its values, the record edited (null: a new one), its error, whether a write is under way;
 * `submit` creates or saves the record, `load` fills the form with one to edit.
 */
function useModelForm(
  fields: Field[],
  path: string,
  extra: Record<string, unknown>,
  changed: () => void,
) {
  const [values, setValues] = useState(() => initialValues(fields))
  const [editing, setEditing] = useState<number | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  /** The form shows on demand: New, or Edit of a row. */
  const [open, setOpen] = useState(false)
  const form = useRef<HTMLFormElement>(null)

  const reset = () => {
    setEditing(null)
    setValues(initialValues(fields))
    setError(null)
    setOpen(false)
  }

  /** Opens the form and, once it is drawn, brings it into view with its first field focused. */
  const show = () => {
    setOpen(true)
    setTimeout(() => {
      form.current?.scrollIntoView({ block: 'nearest' })
      form.current?.querySelector<HTMLElement>('input, select')?.focus()
    }, 0)
  }

  const submit = async (ev: Event) => {
    ev.preventDefault()
    setBusy(true)
    setError(null)
    try {
      const body = bodyOf(fields, values, editing !== null)
      if (editing === null) await api(path, { method: 'POST', body: { ...extra, ...body } })
      else await api(`${path}/${editing}`, { method: 'PUT', body })
      reset()
      changed()
    } catch (e) {
      setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }

  /** Edits record `id` (read as `record`): its values in the form, the form in view and its first field focused. */
  const load = (id: number, record: Record<string, unknown>) => {
    setValues(valuesOf(fields, record))
    setEditing(id)
    setError(null)
    show()
  }

  return { values, setValues, editing, error, busy, form, reset, submit, load, open, show }
}

/** The form that creates a record, or edits the one picked (with Cancel). */
function ModelForm(p: {
  id: string
  one: string
  fields: Field[]
  state: ReturnType<typeof useModelForm>
}) {
  const { values, setValues, editing, error, busy, form, reset, submit, open, show } = p.state
  if (!open)
    return (
      <div class="buttons">
        <button type="button" class="secondary" aria-expanded="false" onClick={show}>
          {pw().newOne(p.one)}
        </button>
      </div>
    )
  return (
    <form ref={form} class="model-form" aria-labelledby={`${p.id}-f`} onSubmit={submit}>
      <h3 id={`${p.id}-f`}>{editing === null ? pw().newOne(p.one) : pw().editOne(p.one)}</h3>
      <div class="fields">
        <FormFields fields={p.fields} values={values} onChange={setValues} />
      </div>
      <ErrorNote error={error} />
      <div class="buttons">
        <button type="submit" disabled={busy}>
          {editing === null ? pw().add(p.one) : pw().save}
        </button>
        <button type="button" class="secondary" onClick={reset}>
          {pw().cancel}
        </button>
      </div>
    </form>
  )
}

export function ModelSection<T extends Row>(p: SectionProps<T>) {
  const [version, setVersion] = useState(0)
  const list = usePagedList<T>(p.path, p.filters, 0, version)
  const changed = () => {
    setVersion((n) => n + 1)
    p.onChanged?.()
  }
  const form = useModelForm(p.fields, p.path, p.extra, changed)
  const [listError, setListError] = useState<string | null>(null)

  const edit = async (row: T) => {
    setListError(null)
    try {
      form.load(row.id, await api<Record<string, unknown>>(`${p.path}/${row.id}`))
    } catch (e) {
      setListError(errorText(e))
    }
  }

  const remove = async (row: T) => {
    if (!window.confirm(pw().confirmDelete(p.nameOf(row)))) return
    setListError(null)
    try {
      await api(`${p.path}?ids=${row.id}`, { method: 'DELETE' })
      if (form.editing === row.id) form.reset()
      changed()
    } catch (e) {
      setListError(errorText(e))
    }
  }

  return (
    <section aria-labelledby={`${p.id}-h`} class="card model">
      <h2 id={`${p.id}-h`}>{p.title}</h2>
      <ErrorNote error={list.error ?? listError} />
      <ModelRows
        section={p}
        list={list}
        onEdit={(row) => void edit(row)}
        onRemove={(row) => void remove(row)}
      />
      {p.canWrite && <ModelForm id={p.id} one={p.one} fields={p.fields} state={form} />}
    </section>
  )
}
