/**
 * The audit log (README "Audit log"), declared once: the list of the recorded rows; where the record each kind of
 * resource is read from when a change is recorded is in ./audit-sources.ts.
 */
import { z } from 'zod'
import { AUDIT_RESOURCES } from '../../src/kernel/audit-resources.ts'
import { int, str, type FieldTable, type RecordOf } from './table.ts'

export { AUDIT_SOURCES, type AuditSource, type AuditSourceName } from './audit-sources.ts'

/** The actions recorded besides a route's own verbs (create, update, delete, pause, ack, ...). */
export const SIGN_IN_ACTIONS = ['login', 'login_failed', 'logout'] as const

/** A recorded change (`a`), newest first. */
export const AUDIT_LOG_TABLE = {
  id: { sql: 'a.id', read: int },
  time: { sql: 'a.time', time: true, read: int },
  userIntID: { sql: 'a.user_int_id', read: int.nullable(), filter: 'int' },
  username: { sql: 'a.username', read: str.nullable() },
  email: { sql: 'a.email', read: str.nullable() },
  role: { sql: 'a.role', read: str.nullable() },
  action: { sql: 'a.action', read: str, filter: 'text' },
  resourceType: { sql: 'a.resource_type', read: z.enum(AUDIT_RESOURCES), filter: 'text' },
  resourceIntID: { sql: 'a.resource_int_id', read: int.nullable(), filter: 'int' },
  resourceID: { sql: 'a.resource_id', read: str.nullable(), filter: 'text' },
  resourceName: { sql: 'a.resource_name', read: str.nullable(), filter: 'text' },
  changed: { sql: 'a.changed', read: z.array(str), json: true },
  clientIP: { sql: 'a.client_ip', read: str.nullable() },
  requestID: { sql: 'a.request_id', read: str.nullable(), filter: 'text' },
} as const satisfies FieldTable

export type AuditLogRecord = RecordOf<typeof AUDIT_LOG_TABLE>
