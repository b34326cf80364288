/**
 * A form's refusal by the API shown where it applies: each field error beside its field (the input marked invalid
 * and described by it), the message and the errors of no field shown in the form's alert.
 */
import { useState } from 'preact/hooks'
import { ApiError } from '../api/client.ts'
import { errorText } from './error-text.ts'

/** What a form shows of a failed call: the alert's text and the error of each of its fields. */
export interface Refusal {
  message: string
  fields: Record<string, string>
}

/**
 * Splits a failure: an error whose key is one of the form's field `names` (or below one: `fromVersions.0` is
 * `fromVersions`'s) goes beside it; the API's message and every other error go to the alert.
 */
export function refusalOf(e: unknown, names: readonly string[]): Refusal {
  if (!(e instanceof ApiError)) return { message: errorText(e), fields: {} }
  const fields: Record<string, string> = {}
  const rest: string[] = []
  for (const [key, v] of Object.entries(e.errors ?? {})) {
    const name = names.includes(key) ? key : names.find((n) => key.startsWith(`${n}.`))
    if (name && !(name in fields)) fields[name] = String(v)
    else rest.push(`${key}: ${String(v)}`)
  }
  return { message: rest.length ? `${e.message}: ${rest.join('; ')}` : e.message, fields }
}

/**
 * A form's submit: `busy` while `run` runs, the refusal cleared first and, when `run` throws, the API's refusal
 * split over the form's field `names` (refusalOf). `setRefusal` is for what the form refuses itself.
 */
export function useSubmit(names: readonly string[]) {
  const [refusal, setRefusal] = useState<Refusal | null>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (run: () => Promise<void>) => {
    setBusy(true)
    setRefusal(null)
    try {
      await run()
    } catch (e) {
      setRefusal(refusalOf(e, names))
    } finally {
      setBusy(false)
    }
  }
  return { refusal, setRefusal, busy, submit }
}

/** The id of the error element of field `name` in form `form`. */
const errorID = (form: string, name: string) => `${form}-${name.replace(/\W/g, '-')}-error`

/** The attributes of field `name`'s input: invalid and described by its error while it has one. */
export function invalidAttrs(form: string, refusal: Refusal | null, name: string) {
  return refusal?.fields[name]
    ? { 'aria-invalid': true as const, 'aria-describedby': errorID(form, name) }
    : {}
}

/** Field `name`'s error, beside it, when it has one. */
export function FieldError(p: { form: string; refusal: Refusal | null; name: string }) {
  const error = p.refusal?.fields[p.name]
  return error ? (
    <small id={errorID(p.form, p.name)} class="field-error">
      {error}
    </small>
  ) : null
}
