import { Invalid, type FieldErrors } from '../kernel/errors.ts'

/** Throws one 422 FORM_INVALID naming every failing field, when there is any. */
export function assertValid(errors: FieldErrors) {
  if (Object.keys(errors).length) throw new Invalid(errors)
}

/**
 * Decision: a model record's product is fixed once created, since its links (points, streams)
 * are all of that product. Sending the same product back in an edit is fine.
 */
export function productUnchanged(field: string, sent: unknown, stored: unknown): FieldErrors {
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- ids compared as text, whatever JSON type was sent
  return sent !== undefined && sent !== null && String(sent) !== String(stored)
    ? { [field]: 'cannot be changed' }
    : {}
}
