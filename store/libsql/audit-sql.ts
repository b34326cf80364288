/**
 * The audit row of a change, added to the change's own write transaction (src/kernel/audit.ts has the scope that
 * says who and what). The row reads its resource from the resource's table in that transaction: a change of
 * given records reads them before the change (a deleted record is still named), a create reads the newest row of
 * the table after it (the transaction holds the write lock, so that row is the one it made), or, in a batch of
 * several callers' creates, its own rows by key.
 */
import type { InStatement } from '@libsql/client'
import { openAudits, type AuditScope } from '../../src/kernel/audit.ts'
import { AUDIT_SOURCES, type AuditSource } from '../fields/audit-sources.ts'

/** Where `scope`'s resource is read from. */
const sourceOf = (scope: AuditScope): AuditSource =>
  AUDIT_SOURCES[scope.what.source ?? scope.what.resourceType]

/** The SQL text of a statement. */
const sqlOf = (s: InStatement) => (typeof s === 'string' ? s : s.sql)

/**
 * True when `stmts` insert into `table`: the transaction that makes a created record. A create may write before it
 * makes its record (the tenant's CA before its first certificate): those transactions are not the change.
 */
function inserts(stmts: InStatement[], table: string): boolean {
  const into = new RegExp(`\\bINSERT\\s+(OR\\s+\\w+\\s+)?INTO\\s+${table}\\b`, 'i')
  return stmts.some((s) => into.test(sqlOf(s)))
}

/**
 * Tables a route writes beside its change, never as it: the login throttle a password change counts its tries in
 * (a wrong old password locks further tries; a right one clears them, before the password is set).
 */
const BOOKKEEPING = ['login_failures']

/** True when every statement of `stmts` writes only bookkeeping: the change is still to come (or never comes). */
function bookkeeping(stmts: InStatement[]): boolean {
  const writes = new RegExp(`\\b(INTO|UPDATE|FROM)\\s+(${BOOKKEEPING.join('|')})\\b`, 'i')
  return stmts.every((s) => writes.test(sqlOf(s)))
}

const COLUMNS = `INSERT INTO audit_logs (time, tenant_id, user_int_id, username, email, role, action, resource_type,
  resource_int_id, resource_id, resource_name, changed, client_ip, request_id, pending)`

/**
 * The statements that record `scope`'s change: those to run before the change's and those to run after. A row
 * written before the change is `pending` (it holds the count of changes of the connection so far) until the
 * transaction's SETTLE statements have seen whether the change changed anything.
 */
export function auditStatements(scope: AuditScope): {
  before: InStatement[]
  after: InStatement[]
} {
  const { who, what, at } = scope
  const src = sourceOf(scope)
  const head = [at, who.tenantID, who.userIntID, who.username, who.userIntID, who.role]
  const tail = [what.action, what.resourceType]
  const end = [JSON.stringify(what.changed), who.clientIP, who.requestID]
  const select = `SELECT ?, ?, ?, ?, (SELECT email FROM users WHERE id = ?), ?, ?, ?`
  const target = what.target
  if (target.kind === 'none')
    return {
      before: [
        {
          sql: `${COLUMNS} ${select}, NULL, NULL, NULL, ?, ?, ?, total_changes()`,
          args: [...head, ...tail, ...end],
        },
      ],
      after: [],
    }
  const fromSource = (pending: string) =>
    `${select}, ${src.intID}, ${src.id}, ${src.name}, ?, ?, ?, ${pending} FROM ${src.table}`
  if (target.kind === 'ids' || target.kind === 'keys') {
    const [column, values, where] =
      target.kind === 'ids'
        ? ['id', target.ids, '']
        : [target.column, target.keys, src.keyedWhere ? ` AND ${src.keyedWhere}` : '']
    return {
      before: [
        {
          sql: `${COLUMNS} ${fromSource('total_changes()')}
            WHERE tenant_id = ? AND ${column} IN (SELECT value FROM json_each(?))${where} ORDER BY id`,
          args: [...head, ...tail, ...end, who.tenantID, JSON.stringify(values)],
        },
      ],
      after: [],
    }
  }
  // a batch of several callers' creates names each one's records by key; a create of its own, by the newest row
  const by = target.by && src.keys?.includes(target.by.column) ? target.by : undefined
  const which = by
    ? {
        sql: `${by.column} IN (SELECT value FROM json_each(?)) ORDER BY id`,
        args: [JSON.stringify(by.keys)],
      }
    : { sql: `id = (SELECT max(id) FROM ${src.table})`, args: [] }
  return {
    before: [],
    after: [
      {
        sql: `${COLUMNS} ${fromSource('NULL')} WHERE tenant_id = ? AND ${which.sql}`,
        args: [...head, ...tail, ...end, who.tenantID, ...which.args],
      },
    ],
  }
}

/**
 * Run after a change whose rows were written before it: they go again when the change changed no row (a guarded
 * write that found its record but not its condition, such as the demotion of a tenant's last admin, which the
 * store then refuses), and stay, no longer pending, when it did. SQLite counts a statement's changes when it ends,
 * so the pending rows' `pending` plus their number is the count the change started from.
 */
const SETTLE: InStatement[] = [
  {
    sql: `DELETE FROM audit_logs WHERE pending IS NOT NULL
      AND (SELECT total_changes()) = (SELECT min(pending) + count(*) FROM audit_logs WHERE pending IS NOT NULL)`,
    args: [],
  },
  { sql: 'UPDATE audit_logs SET pending = NULL WHERE pending IS NOT NULL', args: [] },
]

/** True when `stmts` are the transaction that writes `scope`'s row (see withAudit). */
function writes(scope: AuditScope, stmts: InStatement[]): boolean {
  return scope.what.target.kind !== 'created' || inserts(stmts, sourceOf(scope).table)
}

/**
 * `stmts` with the rows of the audit scopes open in this async context around them (a request's own, or those a
 * batcher stores the changes of: src/kernel/audit.ts `together`). They are then taken: `settle` gives them back
 * when the transaction failed, or changed nothing (`results`: the whole transaction's); `at` is where the
 * caller's first statement now is. A create's row waits for the transaction that inserts into its resource's
 * table; a transaction of bookkeeping only (BOOKKEEPING) leaves the scopes open for the change.
 */
export function withAudit(stmts: InStatement[]): {
  stmts: InStatement[]
  at: number
  settle: (ok: boolean, results?: ReadonlyArray<{ rowsAffected: number }>) => void
} {
  const taken = bookkeeping(stmts) ? [] : openAudits().filter((s) => writes(s, stmts))
  if (!taken.length) return { stmts, at: 0, settle: () => {} }
  const rows = taken.map(auditStatements)
  const before = rows.flatMap((r) => r.before)
  const settling = before.length ? SETTLE : []
  for (const scope of taken) scope.state = 'written'
  return {
    stmts: [...before, ...stmts, ...settling, ...rows.flatMap((r) => r.after)],
    at: before.length,
    settle: (ok, results) => {
      // rows dropped by SETTLE: the scopes that wrote before the change wait for a change that changes something
      const dropped =
        ok && settling.length > 0 && results?.[before.length + stmts.length]?.rowsAffected
      taken.forEach((scope, i) => {
        const undone = !ok || (dropped && rows[i]!.before.length > 0)
        if (undone && scope.state === 'written') scope.state = 'open'
      })
    },
  }
}
