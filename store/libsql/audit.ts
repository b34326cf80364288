import type { Db } from './db.ts'
import type { AuditRepository, ListArgs, SignInInput } from '../types.ts'
import { AUDIT_LOG_TABLE } from '../fields/audit-logs.ts'
import { listPage, tableList } from './list.ts'

const auditList = tableList(AUDIT_LOG_TABLE, {
  from: 'FROM audit_logs a',
  where: 'a.tenant_id = ?',
  timeField: 'a.time',
  idField: 'a.id',
})

/** The audit log's reads, and the sign-ins (store/libsql/audit-sql.ts records the changes). */
export class AuditRepo implements AuditRepository {
  constructor(private readonly db: Db) {}

  list(tenant: string, q: ListArgs) {
    return listPage(this.db, auditList, [tenant], q)
  }

  async signIn(s: SignInInput): Promise<void> {
    await this.db.run(
      `INSERT INTO audit_logs (time, tenant_id, user_int_id, username, email, role, action, resource_type,
         resource_int_id, resource_id, resource_name, changed, client_ip, request_id)
       SELECT ?, tenant_id, id, username, email, role, ?, 'user', id, CAST(id AS TEXT), username, '[]', ?, ?
       FROM users WHERE id = ?`,
      [s.at, s.action, s.clientIP, s.requestID, s.userIntID],
    )
  }
}
