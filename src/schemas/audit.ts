/** The audit log (README "Audit log"): a recorded change and the list's filters. */
import { annotate, responseSchema } from './common.ts'
import { AUDIT_LOG_TABLE } from '../../store/fields/audit-logs.ts'
import { filterFields } from '../../store/fields/table.ts'

/** One recorded change, or a sign-in. */
export const AuditLog = responseSchema(AUDIT_LOG_TABLE, [
  'id time userIntID username email role action resourceType resourceIntID resourceID resourceName changed',
  'clientIP requestID',
])
annotate(AuditLog, {
  description:
    'Who changed what: `changed` names the fields a request set (never their values); `resourceID` is the ' +
    "record's public id (deviceID, productID, ...) or its record id; a deleted record is still named.",
  examples: [
    {
      id: 41,
      time: '2026-11-29 10:21:07',
      userIntID: 1,
      username: 'admin',
      email: 'admin@example.com',
      role: 'admin',
      action: 'update',
      resourceType: 'device',
      resourceIntID: 7,
      resourceID: 'dev-07',
      resourceName: 'Boiler room sensor',
      changed: ['deviceName', 'blocked'],
      clientIP: '203.0.113.5',
      requestID: 'c0a8012e-3f1b-4d7a-9a55-6b1f0e2d9c41',
    },
  ],
})

/** Filters of the audit log: userIntID, action, resourceType, resourceIntID, resourceID, resourceName, requestID. */
export const auditFilters = filterFields(AUDIT_LOG_TABLE)
