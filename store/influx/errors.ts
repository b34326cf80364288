import { HttpError } from '@influxdata/influxdb-client'
import { Invalid, StoreError, Unavailable } from '../errors.ts'

/** HTTP statuses meaning "these points are bad" rather than "InfluxDB cannot take them now". */
const DATA_STATUSES = new Set([400, 413, 422])

/**
 * Translates a client error into the store's errors: rejected data (400, 413, 422) is `Invalid(field)`;
 * everything else (refused connection, timeout, 401/403 token, 404 bucket, 429, 5xx) is `Unavailable`.
 */
export function toStoreError(err: unknown, what: string, field = 'points'): StoreError {
  if (err instanceof StoreError) return err
  if (err instanceof HttpError) {
    const detail = `${what}: InfluxDB answered ${err.statusCode}: ${(err.json as { message?: string } | undefined)?.message ?? err.body ?? err.message}`
    return DATA_STATUSES.has(err.statusCode) ? new Invalid(field, detail) : new Unavailable(detail)
  }
  const e = err as { code?: string; message?: string; name?: string }
  return new Unavailable(
    `${what}: InfluxDB unavailable: ${e?.code ?? e?.name ?? 'error'} ${e?.message ?? ''}`.trim(),
  )
}
