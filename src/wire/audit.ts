import { AUDIT_LOG_TABLE } from '../../store/fields/audit-logs.ts'
import { AuditLog } from '../schemas/audit.ts'
import { tableSerializer } from './shape.ts'

/** A recorded change on the wire (both variants): its time in the service's zone. */
export const auditWire = tableSerializer(AUDIT_LOG_TABLE, { log: AuditLog })
