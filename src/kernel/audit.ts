/**
 * The audit log's request scope (README "Audit log"). A write route of the API runs inside a scope that says who
 * calls (`AuditWho`) and what the route changes (`AuditWhat`); the store adds the audit row to the first write
 * transaction the route commits (store/libsql/audit-sql.ts), so the change and its record commit together, and a
 * change that fails, one that changes no row, or a route that writes nothing, leaves none. A scope serves one row:
 * once written, or once its route has answered, later writes in its async context (a task the route started) are
 * not recorded. A batcher that stores the changes of several callers in one transaction (the state writer, the
 * command store) keeps each caller's scope with its change (`auditOf`) and writes them with it (`together`).
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { AuditResource } from './audit-resources.ts'

export type { AuditResource } from './audit-resources.ts'

/** Who made a change, and from where. */
export interface AuditWho {
  tenantID: string
  /** Null for an application (API key). */
  userIntID: number | null
  /** The user's name or the application's. */
  username: string
  role: string
  clientIP: string | null
  requestID: string | null
}

/**
 * Which records a change touches: those with these record ids (or these keys), the one the change creates (the
 * newest row of the resource's table once the change is written), or none (a task, a change of the tenant).
 */
export type AuditTarget =
  | { kind: 'ids'; ids: readonly number[] }
  /**
   * The records of the resource's source table whose `column` is one of `keys` (and which its source says a change
   * can still touch: store/fields/audit-logs.ts `keyedWhere`): the queued commands of some task ids.
   */
  | { kind: 'keys'; column: 'task_id'; keys: readonly string[] }
  /** `by`: the created records are those whose `column` is one of `keys` (else the newest row). */
  | { kind: 'created'; by?: { column: 'task_id'; keys: readonly string[] } }
  | { kind: 'none' }

/** What a change is. */
export interface AuditWhat {
  action: string
  resourceType: AuditResource
  target: AuditTarget
  /** The fields the request set (names only, never values). */
  changed: readonly string[]
  /** Where the resource is read from when it is not its own kind's table (commands: their device or group). */
  source?: AuditResource | 'device_command' | 'group_command'
}

export interface AuditScope {
  who: AuditWho
  what: AuditWhat
  /** When the change was asked for (epoch ms). */
  at: number
  state: 'open' | 'written' | 'closed'
}

/**
 * The scopes whose rows the next write transaction of an async context writes: a request's own, or (`together`)
 * those of the requests a batch writes for.
 */
const scopes = new AsyncLocalStorage<readonly AuditScope[]>()

/** Runs `fn` with its writes recorded as `what` done by `who`; the scope closes when `fn` settles. */
export async function audited<T>(
  who: AuditWho,
  what: AuditWhat,
  fn: () => Promise<T>,
  at = Date.now(),
): Promise<T> {
  const scope: AuditScope = { who, what, at, state: 'open' }
  try {
    return await scopes.run([scope], fn)
  } finally {
    scope.state = 'closed'
  }
}

/** The scopes whose rows are still to be written by the next write transaction of this async context. */
export function openAudits(): AuditScope[] {
  return (scopes.getStore() ?? []).filter((s) => s.state === 'open')
}

/** True when a write transaction of this async context has a row to write. */
export const auditOpen = () => openAudits().length > 0

/**
 * The open scope of this async context, for a batcher that stores the changes of several callers in one
 * transaction (state patches, commands): it keeps each caller's scope with its change and writes them through
 * `together`.
 */
export function auditOf(): AuditScope | undefined {
  return openAudits()[0]
}

/**
 * Runs `fn` with the rows of `batch` (the scopes a batcher kept, those still open) written by its first write
 * transaction, and no other scope's: a batcher's transaction records exactly the callers whose changes it stores.
 */
export function together<T>(batch: ReadonlyArray<AuditScope | undefined>, fn: () => T): T {
  return scopes.run(
    batch.filter((s): s is AuditScope => s !== undefined),
    fn,
  )
}

/** Runs `fn` (a batcher's flush, started by whichever caller came first) outside every caller's scope. */
export function detached<T>(fn: () => T): T {
  return scopes.exit(fn)
}

/**
 * Names the records `scope`'s create makes by their `column` (a batch stores the creates of several callers at
 * once, so the newest row is only one of them); for a scope of another kind of change, nothing.
 */
export function createdAs(
  scope: AuditScope | undefined,
  column: 'task_id',
  keys: readonly string[],
): void {
  if (scope?.what.target.kind === 'created')
    scope.what = { ...scope.what, target: { kind: 'created', by: { column, keys } } }
}
