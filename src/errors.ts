import type { FieldErrors } from './kernel/errors.ts'

export { issuesToErrors, type FieldErrors } from './kernel/errors.ts'

/** The API's error codes and their HTTP status. */
export const ErrorCodes = {
  BAD_REQUEST: 400,
  PARAMETER_INVALID: 400,
  DATA_EXISTED: 400,
  REFERENCED_ERROR: 400,
  AUTH_FAILED: 401,
  PERMISSION_DENIED: 403,
  DATA_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  VERSION_CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  FORM_INVALID: 422,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  INSUFFICIENT_STORAGE: 507,
} as const

export type ErrorCode = keyof typeof ErrorCodes

const defaultMessages: Record<ErrorCode, string> = {
  BAD_REQUEST: 'The request body is not a JSON object',
  PARAMETER_INVALID: 'A query parameter is invalid',
  DATA_EXISTED: 'The value is already taken',
  REFERENCED_ERROR: 'The record is still in use',
  AUTH_FAILED: 'Authentication failed',
  PERMISSION_DENIED: 'Your role does not allow this',
  DATA_NOT_FOUND: 'Not found',
  METHOD_NOT_ALLOWED: 'Method not allowed',
  VERSION_CONFLICT: 'The record changed since the version it was based on',
  PAYLOAD_TOO_LARGE: 'The request body is too large',
  FORM_INVALID: 'The request body is invalid',
  TOO_MANY_REQUESTS: 'Too many requests',
  INTERNAL_ERROR: 'Internal error',
  SERVICE_UNAVAILABLE: 'Service unavailable',
  INSUFFICIENT_STORAGE: 'The disk is full: no new data is accepted until space is freed',
}

/**
 * The HTTP error: what the root onError writes as `{errorCode, message, errors}` with its status and headers.
 * The HTTP layer throws it for request-shape faults; domain refusals are src/kernel/errors.ts, mapped to it by
 * src/http/errors.ts.
 */
export class ApiError extends Error {
  readonly status: number
  constructor(
    readonly errorCode: ErrorCode,
    readonly errors: FieldErrors = {},
    message?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message ?? defaultMessages[errorCode])
    this.status = ErrorCodes[errorCode]
  }

  toJSON() {
    return { errorCode: this.errorCode, message: this.message, errors: this.errors }
  }
}
