/**
 * The errors the stores throw are the domain's (src/kernel/errors.ts); src/http/errors.ts translates them into
 * the API's error body. `StoreError` is their common base, as store code names it.
 */
export {
  Conflict,
  DomainError as StoreError,
  Invalid,
  LastAdmin,
  NotFound,
  Referenced,
  Unavailable,
} from '../src/kernel/errors.ts'
