/**
 * The audit log (README "Audit log"). Changes made through the API are recorded by the store itself, in the
 * change's transaction (store/libsql/audit-sql.ts); sign-ins, which change nothing else, are recorded here.
 */
import type { ListArgs, Page } from '../list.ts'
import type { AuditLogRecord } from '../fields/audit-logs.ts'

export type { AuditLogRecord } from '../fields/audit-logs.ts'

/** A sign-in (or a failed one) of a known user. */
export interface SignInInput {
  userIntID: number
  action: 'login' | 'login_failed'
  clientIP: string | null
  requestID: string | null
  at: number
}

export interface AuditRepository {
  /** The tenant's recorded changes, newest first (filters userIntID, action, resourceType, resourceID, time). */
  list(tenant: string, q: ListArgs): Promise<Page<AuditLogRecord>>
  /** Records a user's sign-in or failed sign-in (in the user's tenant, against the user). */
  signIn(input: SignInInput): Promise<void>
}
