/**
 * The domain's errors: what services, the query side and the stores throw when a rule refuses a request. They
 * know nothing of HTTP; src/http/errors.ts (`toApiError`) maps each kind to the API's error body and status, in
 * that one place.
 */
import type { z } from 'zod'

/** Input name → what is wrong with it. */
export type FieldErrors = Record<string, string>

/** zod issues → `errors` with every failing field. */
export function issuesToErrors(issues: readonly z.core.$ZodIssue[]): FieldErrors {
  const errors: FieldErrors = {}
  for (const issue of issues) {
    const key = issue.path.map(String).join('.') || 'body'
    if (!(key in errors)) errors[key] = issue.message
  }
  return errors
}

/** `field` and `message`, or a whole map of field errors, as one map. */
const fieldsOf = (field: string | FieldErrors, message: string): FieldErrors =>
  typeof field === 'string' ? { [field]: message } : field

/** A refusal of the domain with the inputs at fault (`errors`, empty when no one input is). */
export abstract class DomainError extends Error {
  readonly errors: FieldErrors

  constructor(errors: FieldErrors, message = Object.values(errors).join('; ')) {
    super(message)
    this.errors = errors
  }

  /** The first input at fault ('' when none). */
  get field(): string {
    return Object.keys(this.errors)[0] ?? ''
  }
}

/** No record with that id in the caller's tenant (`field` names the input that pointed at it). */
export class NotFound extends DomainError {
  constructor(field: string | FieldErrors = 'id', message = 'not found') {
    super(fieldsOf(field, message))
  }
}

/** A unique value is taken. */
export class Conflict extends DomainError {
  constructor(field: string | FieldErrors, message = 'already exists') {
    super(fieldsOf(field, message))
  }
}

/** A change was refused because the record is still used (or is the caller's own). */
export class Referenced extends DomainError {
  constructor(field: string | FieldErrors, message = 'the record is still in use') {
    super(fieldsOf(field, message))
  }
}

/** The input (a body) breaks a rule: every failing field at once. */
export class Invalid extends DomainError {
  constructor(field: string | FieldErrors, message = 'invalid') {
    super(fieldsOf(field, message))
  }
}

/** A query parameter (or a value it names) cannot be served. */
export class InvalidParameter extends DomainError {
  constructor(field: string | FieldErrors, message = 'invalid') {
    super(fieldsOf(field, message))
  }
}

/** The change would leave a tenant without an admin (demoting or deleting its last one). */
export class LastAdmin extends DomainError {
  constructor(field: string, message = 'a tenant keeps at least one admin') {
    super(fieldsOf(field, message))
  }
}

/** A change based on a version of the record that is no longer current (a state patch's `version`). */
export class VersionConflict extends DomainError {
  constructor(field: string | FieldErrors, message = 'the version is no longer current') {
    super(fieldsOf(field, message))
  }
}

/** What the change would store is over a size limit (a state document's side). */
export class TooLarge extends DomainError {
  constructor(field: string | FieldErrors, message = 'too large') {
    super(fieldsOf(field, message))
  }
}

/** The caller could not be identified: wrong credentials, an unknown or expired token. */
export class Unauthenticated extends DomainError {
  constructor(field: string | FieldErrors, message = 'authentication failed') {
    super(fieldsOf(field, message))
  }
}

/** The caller is known but may not do this. */
export class Forbidden extends DomainError {
  constructor(field: string | FieldErrors, message = 'not allowed') {
    super(fieldsOf(field, message))
  }
}

/** Too many attempts or tasks at once; worth retrying after `retryAfter` seconds. */
export class TooMany extends DomainError {
  constructor(
    errors: FieldErrors,
    readonly retryAfter: number,
  ) {
    super(errors)
  }
}

/** A backing store cannot answer now (down, timed out); the message says which and why. */
export class Unavailable extends DomainError {
  constructor(message = 'unavailable') {
    super({}, message)
  }
}
