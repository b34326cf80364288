import type { Deps } from '../deps.ts'
import { crud, Form } from '../http/crud.ts'
import { listQuery } from '../http/paging.ts'
import { Router } from '../http/router.ts'
import { AuditLog, auditFilters } from '../schemas/audit.ts'
import { auditWire } from '../wire/audit.ts'

/** The audit log (README "Audit log"): admins read who changed what. */
export function auditRoutes({ meta }: Deps) {
  return crud(new Router(), {
    tag: 'Audit log',
    path: '/audit_logs',
    list: {
      summary: 'Who changed what: every change made through the API, and every sign-in (admins)',
      description:
        'Newest first. Filters: userIntID, action (create, update, delete, block, unblock, command, state, ' +
        'login, login_failed, logout, password, ...), resourceType, resourceIntID, resourceID, resourceName, ' +
        'requestID, startTime/endTime. Rows are kept RETENTION_AUDIT_DAYS (default 365).',
      query: listQuery(auditFilters, { times: true }),
      form: Form.of(AuditLog, auditWire.log),
      admin: true,
      read: (tenant, q) => meta.audit.list(tenant, q),
    },
  })
}
