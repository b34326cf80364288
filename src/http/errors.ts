import { ApiError } from '../errors.ts'
import {
  Conflict,
  DomainError,
  Forbidden,
  Invalid,
  InvalidParameter,
  LastAdmin,
  NotFound,
  Referenced,
  TooLarge,
  TooMany,
  Unauthenticated,
  Unavailable,
  VersionConflict,
} from '../kernel/errors.ts'

/**
 * Any thrown error → the API's error (`{errorCode, message, errors}`, status, headers), in this one place: an
 * ApiError as it is, each domain error of src/kernel/errors.ts by its kind, anything else 500 without details.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err
  if (!(err instanceof DomainError)) return new ApiError('INTERNAL_ERROR')
  const { errors } = err
  if (err instanceof NotFound) return new ApiError('DATA_NOT_FOUND', errors)
  if (err instanceof Conflict) return new ApiError('DATA_EXISTED', errors)
  if (err instanceof Referenced) return new ApiError('REFERENCED_ERROR', errors)
  if (err instanceof Invalid) return new ApiError('FORM_INVALID', errors)
  if (err instanceof InvalidParameter || err instanceof LastAdmin)
    return new ApiError('PARAMETER_INVALID', errors)
  if (err instanceof VersionConflict) return new ApiError('VERSION_CONFLICT', errors, err.message)
  if (err instanceof TooLarge) return new ApiError('PAYLOAD_TOO_LARGE', errors, err.message)
  if (err instanceof Unauthenticated) return new ApiError('AUTH_FAILED', errors)
  if (err instanceof Forbidden) return new ApiError('PERMISSION_DENIED', errors)
  if (err instanceof TooMany)
    return new ApiError('TOO_MANY_REQUESTS', errors, undefined, {
      'Retry-After': String(err.retryAfter),
    })
  if (err instanceof Unavailable)
    return new ApiError('SERVICE_UNAVAILABLE', {}, err.message, { 'Retry-After': '5' })
  return new ApiError('INTERNAL_ERROR')
}
