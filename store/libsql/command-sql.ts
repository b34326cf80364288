/**
 * The SQL pieces of the commands repository: the columns of a command row, and the statements of a batch of
 * compare-and-set transitions with the outbox events of the commands that moved (same transaction).
 */
import type { InStatement, InValue, Row as DriverRow } from '@libsql/client'
import type { CommandInput, CommandRecord, Transition } from '../types.ts'
import { publishStatusOf } from '../types.ts'
import { outboxInserts } from './webhooks.ts'

export const RETURNING = `RETURNING id, tenant_id AS tenantID, task_id AS taskID, device_int_id AS deviceIntID,
  device_id AS deviceID, device_name AS deviceName, group_int_id AS groupIntID, group_id AS groupID,
  group_name AS groupName, publish_user AS publishUser, user_int_id AS userIntID, topic, payload,
  qos, timeout_ms AS timeoutMs, command_status AS commandStatus, publish_status AS publishStatus,
  need_ack AS needAck, expires_at AS expiresAt, dispatch_at AS dispatchAt, deadline_at AS deadlineAt,
  sent_at AS sentAt, delivered_at AS deliveredAt, responded_at AS respondedAt, response_code AS responseCode,
  response_payload AS responsePayload, schedule_id AS scheduleID, parent_id AS parentID, msg_time AS msgTime`

export const SELECT = `SELECT ${RETURNING.slice('RETURNING '.length)} FROM control_logs`

export const COLUMNS = [
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

export const toRecord = (r: DriverRow | Record<string, unknown>) =>
  ({ ...r }) as unknown as CommandRecord
export const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ')

/** Fields a transition may set → their columns. */
export const FIELD_COLUMNS = {
  sentAt: 'sent_at',
  deliveredAt: 'delivered_at',
  respondedAt: 'responded_at',
  deadlineAt: 'deadline_at',
  responseCode: 'response_code',
  responsePayload: 'response_payload',
  dispatchAt: 'dispatch_at',
  claimedUntil: 'claimed_until',
} as const

/** One command to store → its column values (COLUMNS order). */
export const valuesOf =
  (now: number) =>
  (r: CommandInput): InValue[] => [
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
  ]

/** A command row carrying `token` (the write that moved it): its events are stored, the others' are not. */
export const MOVED = 'EXISTS (SELECT 1 FROM control_logs m WHERE m.id = v.ref AND m.change_id = ?)'

/**
 * The UPDATEs of compare-and-set transitions, each marking the rows it moves with `token`, then the events of the
 * transitions that carry one, stored only for the rows that moved. Changes of one shape (same states, status and
 * fields: a group's PUBACKs) share one UPDATE ... IN (...).
 */
export function transitionStatements(
  changes: readonly Transition[],
  now: number,
  token: string,
): InStatement[] {
  const groups = new Map<string, { change: Transition; ids: number[] }>()
  for (const c of changes) {
    const key = JSON.stringify([c.from, c.to, c.publishStatus, c.fields ?? {}])
    const g = groups.get(key)
    if (g) g.ids.push(c.id)
    else groups.set(key, { change: c, ids: [c.id] })
  }
  const statements: InStatement[] = []
  for (const { change: c, ids } of groups.values()) {
    const sets = ['command_status = ?', 'publish_status = ?', 'update_at = ?', 'change_id = ?']
    const args: InValue[] = [c.to, c.publishStatus, now, token]
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
  const announced = changes.filter((c) => c.outbox)
  statements.push(
    ...outboxInserts(
      announced.map((c) => c.outbox!),
      now,
      { refs: announced.map((c) => c.id), exists: MOVED, args: [token] },
    ),
  )
  return statements
}
