/**
 * The admin pages' dialog forms (laid out by `.fw-form`): their labelled fields, an input or a select, each with the
 * API's refusal of that field beside it (field-errors.tsx), and the form around them.
 */
import type { ComponentChildren } from 'preact'
import { FieldError, invalidAttrs, type Refusal } from './field-errors.tsx'
import { ErrorNote } from './paged-list.tsx'

interface FieldProps {
  /** The form's id prefix (field-errors.tsx). */
  form: string
  /** The field's name as the API's errors name it. */
  name: string
  label: string
  refusal: Refusal | null
  value: string
  onInput: (value: string) => void
}

/** A text-like input (`type`: text, email, password, datetime-local, ...). */
export function InputField(
  p: FieldProps & {
    type?: 'text' | 'email' | 'password' | 'datetime-local'
    required?: boolean
    autoComplete?: string
    minLength?: number
    maxLength?: number
    placeholder?: string
    step?: number
  },
) {
  return (
    <div class="field">
      <label>
        {p.label}
        <input
          // Preact types each input type's attributes apart (these four take the same ones); the console's
          // tsconfig needs the assertion that ESLint's reading of the code calls unnecessary
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
          type={(p.type ?? 'text') as 'text'}
          name={p.name}
          required={p.required}
          autoComplete={p.autoComplete}
          minLength={p.minLength}
          maxLength={p.maxLength}
          placeholder={p.placeholder}
          step={p.step}
          value={p.value}
          onInput={(e) => p.onInput(e.currentTarget.value)}
          {...invalidAttrs(p.form, p.refusal, p.name)}
        />
      </label>
      <FieldError form={p.form} refusal={p.refusal} name={p.name} />
    </div>
  )
}

/** A select of `options` ([value, label]). */
export function SelectField(
  p: FieldProps & {
    options: ReadonlyArray<readonly [string, string]>
    children?: ComponentChildren
  },
) {
  return (
    <div class="field">
      <label>
        {p.label}
        <select
          name={p.name}
          value={p.value}
          onChange={(e) => p.onInput(e.currentTarget.value)}
          {...invalidAttrs(p.form, p.refusal, p.name)}
        >
          {p.children}
          {p.options.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <FieldError form={p.form} refusal={p.refusal} name={p.name} />
    </div>
  )
}

/**
 * A dialog's form: its title (`titleID`, which the dialog is labelled by), its fields, the API's message of a
 * refusal (role alert), then the submit button (disabled while `busy`) and Cancel.
 */
export function DialogForm(p: {
  titleID: string
  title: string
  refusal: Refusal | null
  busy: boolean
  submit: string
  cancel: string
  onSubmit: () => unknown
  onCancel: () => void
  children: ComponentChildren
}) {
  return (
    <form
      class="fw-form"
      onSubmit={(e) => {
        e.preventDefault()
        void p.onSubmit()
      }}
    >
      <h2 id={p.titleID} class="wide">
        {p.title}
      </h2>
      {p.children}
      <div class="wide">
        <ErrorNote error={p.refusal?.message ?? null} />
      </div>
      <div class="buttons wide">
        <button type="submit" disabled={p.busy}>
          {p.submit}
        </button>
        <button type="button" class="secondary" onClick={p.onCancel}>
          {p.cancel}
        </button>
      </div>
    </form>
  )
}
