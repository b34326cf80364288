import type { InStatement, InValue, Row as DriverRow } from '@libsql/client'
import type { Db } from './db.ts'
import type {
  CommandInput,
  CommandRecord,
  CommandRepository,
  CommandStatus,
  GroupCommandInput,
  GroupCounts,
  Transition,
} from '../types.ts'
import { publishStatusOf } from '../types.ts'
import { insertRows } from './logs-sql.ts'

const RETURNING = `RETURNING id, tenant_id AS tenantID, task_id AS taskID, device_int_id AS deviceIntID,
  device_id AS deviceID, device_name AS deviceName, group_int_id AS groupIntID, group_id AS groupID, topic, payload,
  qos, timeout_ms AS timeoutMs, command_status AS commandStatus, publish_status AS publishStatus,
  need_ack AS needAck, expires_at AS expiresAt, dispatch_at AS dispatchAt, deadline_at AS deadlineAt,
  sent_at AS sentAt, delivered_at AS deliveredAt, responded_at AS respondedAt, response_code AS responseCode,
  response_payload AS responsePayload, schedule_id AS scheduleID, parent_id AS parentID, msg_time AS msgTime`

const SELECT = `SELECT ${RETURNING.slice('RETURNING '.length)} FROM control_logs`

const COLUMNS = [
  'tenant_id',
  'task_id',
  'device_int_id',
  'device_id',
  'device_name',
  'group_int_id',
  'group_id',
  'group_name',
  'topic',
  'payload',
  'qos',
  'timeout_ms',
  'expires_at',
  'command_status',
  'publish_status',
  'dispatch_at',
  'claimed_until',
  'schedule_id',
  'parent_id',
  'need_ack',
  'sent_at',
  'deadline_at',
  'publish_user',
  'user_int_id',
  'msg_time',
  'create_at',
] as const

const toRecord = (r: DriverRow | Record<string, unknown>) => ({ ...r }) as unknown as CommandRecord
const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ')

/** Fields a transition may set → their columns. */
const FIELD_COLUMNS = {
  sentAt: 'sent_at',
  deliveredAt: 'delivered_at',
  respondedAt: 'responded_at',
  deadlineAt: 'deadline_at',
  responseCode: 'response_code',
  responsePayload: 'response_payload',
  dispatchAt: 'dispatch_at',
  claimedUntil: 'claimed_until',
} as const

/** Commands are control_logs rows with a command_status; every state change is a compare-and-set. */
export class CommandsRepo implements CommandRepository {
  constructor(private readonly db: Db) {}

  async countPending() {
    // each count reads a partial index of its status
    const [queued, sent] = await Promise.all([
      this.db.one(
        "SELECT count(*) AS n FROM control_logs WHERE command_status = 'queued' AND device_int_id IS NOT NULL",
      ),
      this.db.one(
        "SELECT count(*) AS n FROM control_logs WHERE command_status = 'sent' AND deadline_at IS NOT NULL",
      ),
    ])
    return { queued: Number(queued?.n ?? 0), sent: Number(sent?.n ?? 0) }
  }
  async create(rows: readonly CommandInput[]): Promise<CommandRecord[]> {
    if (!rows.length) return []
    const now = Date.now()
    const values = rows.map((r): InValue[] => [
      r.tenantID,
      r.taskID,
      r.deviceIntID,
      r.deviceID,
      r.deviceName,
      r.groupIntID ?? null,
      r.groupID ?? null,
      r.groupName ?? null,
      r.topic,
      r.payload,
      r.qos,
      r.timeoutMs,
      r.expiresAt,
      r.status,
      publishStatusOf(r.status, r.qos === 1),
      r.dispatchAt,
      r.claimedUntil ?? null,
      r.scheduleID ?? null,
      r.parentID ?? null,
      null,
      r.sentAt ?? null,
      r.deadlineAt ?? null,
      r.publishUser ?? null,
      r.userIntID ?? null,
      now,
      now,
    ])
    const results = await this.db.batch(insertRows('control_logs', COLUMNS, values, RETURNING))
    return results.flatMap((rs) => rs.rows.map(toRecord))
  }

  async createGroup(r: GroupCommandInput): Promise<CommandRecord> {
    const now = Date.now()
    const values: InValue[] = [
      r.tenantID,
      r.taskID,
      null,
      null,
      null,
      r.groupIntID,
      r.groupID,
      r.groupName,
      r.topic,
      r.payload,
      r.qos,
      r.timeoutMs,
      r.expiresAt,
      r.status,
      r.needAck === 0 ? 3 : 1,
      null,
      null,
      r.scheduleID ?? null,
      null,
      r.needAck,
      null,
      null,
      r.publishUser ?? null,
      r.userIntID ?? null,
      now,
      now,
    ]
    const [rs] = await this.db.batch(insertRows('control_logs', COLUMNS, [values], RETURNING))
    return toRecord(rs!.rows[0]!)
  }

  async get(tenant: string, taskID: string): Promise<CommandRecord | undefined> {
    const r = await this.db.one(`${SELECT} WHERE tenant_id = ? AND task_id = ?`, [tenant, taskID])
    return r ? toRecord(r) : undefined
  }

  async transition(changes: readonly Transition[]): Promise<CommandRecord[]> {
    if (!changes.length) return []
    const now = Date.now()
    // changes of one shape (same states, status and fields: a group's PUBACKs) share one UPDATE ... IN (...)
    const groups = new Map<string, { change: Transition; ids: number[] }>()
    for (const c of changes) {
      const key = JSON.stringify([c.from, c.to, c.publishStatus, c.fields ?? {}])
      const g = groups.get(key)
      if (g) g.ids.push(c.id)
      else groups.set(key, { change: c, ids: [c.id] })
    }
    const statements: InStatement[] = []
    for (const { change: c, ids } of groups.values()) {
      const sets = ['command_status = ?', 'publish_status = ?', 'update_at = ?']
      const args: InValue[] = [c.to, c.publishStatus, now]
      for (const [field, column] of Object.entries(FIELD_COLUMNS)) {
        const v = c.fields?.[field as keyof typeof FIELD_COLUMNS]
        if (v === undefined) continue
        sets.push(`${column} = ?`)
        args.push(v)
      }
      for (let k = 0; k < ids.length; k += 500) {
        const chunk = ids.slice(k, k + 500)
        statements.push({
          sql: `UPDATE control_logs SET ${sets.join(', ')}
            WHERE id IN (${placeholders(chunk.length)}) AND command_status IN (${placeholders(c.from.length)})
            ${RETURNING}`,
          args: [...args, ...chunk, ...c.from],
        })
      }
    }
    const results = await this.db.batch(statements)
    return results.flatMap((rs) => rs.rows.map(toRecord))
  }

  async claimDue(now: number, until: number, limit: number): Promise<CommandRecord[]> {
    const [rs] = await this.db.batch([
      {
        sql: `UPDATE control_logs SET claimed_until = ? WHERE id IN (
            SELECT id FROM control_logs WHERE command_status = 'queued' AND dispatch_at IS NOT NULL
              AND dispatch_at <= ? AND (claimed_until IS NULL OR claimed_until < ?)
            ORDER BY dispatch_at, id LIMIT ?) ${RETURNING}`,
        args: [until, now, now, limit],
      },
    ])
    return rs!.rows.map(toRecord).sort((a, b) => a.id - b.id)
  }

  async claimQueued(
    deviceIntIDs: number | readonly number[],
    now: number,
    until: number,
  ): Promise<CommandRecord[]> {
    const ids = typeof deviceIntIDs === 'number' ? [deviceIntIDs] : [...deviceIntIDs]
    if (!ids.length) return []
    const statements: InStatement[] = []
    for (let k = 0; k < ids.length; k += 500) {
      const chunk = ids.slice(k, k + 500)
      statements.push({
        sql: `UPDATE control_logs SET claimed_until = ? WHERE id IN (
            SELECT id FROM control_logs WHERE device_int_id IN (${placeholders(chunk.length)})
              AND command_status = 'queued' AND (claimed_until IS NULL OR claimed_until < ?)) ${RETURNING}`,
        args: [until, ...chunk, now],
      })
    }
    const results = await this.db.batch(statements)
    return results.flatMap((rs) => rs.rows.map(toRecord)).sort((a, b) => a.id - b.id)
  }

  async sweep(now: number): Promise<CommandRecord[]> {
    const results = await this.db.batch([
      {
        sql: `UPDATE control_logs SET command_status = 'timed_out', publish_status = 0, update_at = ?
          WHERE command_status = 'sent' AND deadline_at IS NOT NULL AND deadline_at <= ? ${RETURNING}`,
        args: [now, now],
      },
      {
        sql: `UPDATE control_logs SET command_status = 'expired', publish_status = 0, update_at = ?,
            dispatch_at = NULL, claimed_until = NULL
          WHERE command_status = 'queued' AND expires_at IS NOT NULL AND expires_at <= ? ${RETURNING}`,
        args: [now, now],
      },
    ])
    return results.flatMap((rs) => rs.rows.map(toRecord))
  }

  async cancel(tenant: string, taskIDs: readonly string[], now: number): Promise<CommandRecord[]> {
    if (!taskIDs.length) return []
    const [rs] = await this.db.batch([
      {
        sql: `UPDATE control_logs SET command_status = 'canceled', publish_status = 0, update_at = ?,
            dispatch_at = NULL, claimed_until = NULL
          WHERE tenant_id = ? AND command_status = 'queued' AND device_int_id IS NOT NULL
            AND task_id IN (${placeholders(taskIDs.length)}) ${RETURNING}`,
        args: [now, tenant, ...taskIDs],
      },
    ])
    return rs!.rows.map(toRecord)
  }

  async respond(
    tenantID: string,
    deviceIntID: number,
    taskID: string,
    code: number | null,
    payload: string | null,
    now: number,
  ): Promise<CommandRecord | undefined> {
    const failed = code !== null && code >= 400
    const to: CommandStatus = failed ? 'failed' : 'succeeded'
    const [rs] = await this.db.batch([
      {
        sql: `UPDATE control_logs SET command_status = ?, publish_status = ?, responded_at = ?,
            delivered_at = coalesce(delivered_at, ?), response_code = ?, response_payload = ?, update_at = ?
          WHERE tenant_id = ? AND device_int_id = ? AND task_id = ?
            AND command_status IN ('sent', 'delivered', 'timed_out') ${RETURNING}`,
        args: [to, failed ? 0 : 2, now, now, code, payload, now, tenantID, deviceIntID, taskID],
      },
    ])
    const r = rs!.rows[0]
    return r ? toRecord(r) : undefined
  }

  async openGroups(): Promise<CommandRecord[]> {
    const rows = await this.db.all(
      `${SELECT} WHERE device_int_id IS NULL AND need_ack = 1 AND command_status IN ('queued', 'sent')`,
    )
    return rows.map(toRecord)
  }

  async groupCounts(parentID: number): Promise<GroupCounts> {
    const r = await this.db.one(
      `SELECT count(*) AS total,
         sum(command_status IN ('delivered', 'succeeded', 'failed')) AS delivered,
         sum(command_status = 'succeeded') AS succeeded,
         sum(command_status IN ('failed', 'timed_out', 'expired', 'canceled', 'unsent')) AS failed,
         sum(command_status IN ('queued', 'sent')) AS pending
       FROM control_logs WHERE parent_id = ?`,
      [parentID],
    )
    const n = (k: string) => Number(r?.[k] ?? 0)
    return {
      total: n('total'),
      delivered: n('delivered'),
      succeeded: n('succeeded'),
      failed: n('failed'),
      pending: n('pending'),
    }
  }

  async claimKey(tenant: string, scope: string, key: string, now: number, maxAgeMs: number) {
    const [, rs] = await this.db.batch([
      {
        sql: 'DELETE FROM idempotency_keys WHERE tenant_id = ? AND scope = ? AND key = ? AND create_at < ?',
        args: [tenant, scope, key, now - maxAgeMs],
      },
      {
        sql: `INSERT INTO idempotency_keys (tenant_id, scope, key, answer, create_at) VALUES (?, ?, ?, NULL, ?)
          ON CONFLICT DO NOTHING RETURNING key`,
        args: [tenant, scope, key, now],
      },
    ])
    if (rs!.rows.length) return undefined
    const r = await this.db.one(
      'SELECT answer FROM idempotency_keys WHERE tenant_id = ? AND scope = ? AND key = ?',
      [tenant, scope, key],
    )
    return { answer: (r?.answer as string | null | undefined) ?? null }
  }

  async saveKey(tenant: string, scope: string, key: string, answer: string | null): Promise<void> {
    if (answer === null)
      await this.db.run(
        'DELETE FROM idempotency_keys WHERE tenant_id = ? AND scope = ? AND key = ?',
        [tenant, scope, key],
      )
    else
      await this.db.run(
        'UPDATE idempotency_keys SET answer = ? WHERE tenant_id = ? AND scope = ? AND key = ?',
        [answer, tenant, scope, key],
      )
  }
}
