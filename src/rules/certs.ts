import type { FieldErrors } from '../kernel/errors.ts'

/** What a certificate may not change once issued: its common name and the PEM texts made for it. */
export const IMMUTABLE_CERT_FIELDS = ['CN', 'cert', 'key', 'root'] as const

const normalize = (v: unknown) => (typeof v === 'string' ? v.replace(/\s+/g, '') : v)

/**
 * The immutable fields an edit tries to change. An edit may send back the record as read,
 * so a field equal to the stored value (PEM line breaks aside) is no change; absent or null is no change.
 */
export function certImmutableChanges(
  stored: Record<string, unknown>,
  body: Record<string, unknown>,
): FieldErrors {
  const errors: FieldErrors = {}
  for (const field of IMMUTABLE_CERT_FIELDS) {
    const sent = body[field]
    if (sent === undefined || sent === null) continue
    if (normalize(sent) !== normalize(stored[field]))
      errors[field] = 'cannot be changed; create a new certificate'
  }
  return errors
}
