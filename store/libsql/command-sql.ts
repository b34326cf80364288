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
  response_payload AS responsePayload, status_reason AS statusReason, schedule_id AS scheduleID,
  parent_id AS parentID, msg_time AS msgTime`

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
  'status_reason',
  'msg_time',
  'create_at',
] as const

const int = (v: unknown) => Number(v)
const intOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v))
// eslint-disable-next-line @typescript-eslint/no-base-to-string -- a TEXT or numeric column
const textOrNull = (v: unknown) => (v === null || v === undefined ? null : String(v))

/** A command from a row of RETURNING's columns. */
export const toRecord = (r: DriverRow | Record<string, unknown>): CommandRecord => ({
  id: int(r.id),
  tenantID: String(r.tenantID),
  taskID: String(r.taskID),
  deviceIntID: intOrNull(r.deviceIntID),
  deviceID: textOrNull(r.deviceID),
  deviceName: textOrNull(r.deviceName),
  groupIntID: intOrNull(r.groupIntID),
  groupID: textOrNull(r.groupID),
  groupName: textOrNull(r.groupName),
  topic: String(r.topic),
  payload: String(r.payload),
  qos: int(r.qos) === 0 ? 0 : 1,
  timeoutMs: int(r.timeoutMs),
  commandStatus: String(r.commandStatus) as CommandRecord['commandStatus'],
  publishStatus: int(r.publishStatus),
  needAck: intOrNull(r.needAck),
  expiresAt: intOrNull(r.expiresAt),
  dispatchAt: intOrNull(r.dispatchAt),
  deadlineAt: intOrNull(r.deadlineAt),
  sentAt: intOrNull(r.sentAt),
  deliveredAt: intOrNull(r.deliveredAt),
  respondedAt: intOrNull(r.respondedAt),
  responseCode: intOrNull(r.responseCode),
  responsePayload: textOrNull(r.responsePayload),
  statusReason: textOrNull(r.statusReason),
  scheduleID: intOrNull(r.scheduleID),
  parentID: intOrNull(r.parentID),
  publishUser: textOrNull(r.publishUser),
  userIntID: intOrNull(r.userIntID),
  msgTime: int(r.msgTime),
})
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
  statusReason: 'status_reason',
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
    r.statusReason ?? null,
    now,
    now,
  ]

/** The record of a command just stored with `valuesOf(now)` under row id `id` (what `RETURNING` would read). */
export function recordOf(id: number, r: CommandInput, now: number): CommandRecord {
  return {
    id,
    tenantID: r.tenantID,
    taskID: r.taskID,
    deviceIntID: r.deviceIntID,
    deviceID: r.deviceID,
    deviceName: r.deviceName,
    groupIntID: r.groupIntID ?? null,
    groupID: r.groupID ?? null,
    groupName: r.groupName ?? null,
    publishUser: r.publishUser ?? null,
    userIntID: r.userIntID ?? null,
    topic: r.topic,
    payload: r.payload,
    qos: r.qos,
    timeoutMs: r.timeoutMs,
    commandStatus: r.status,
    publishStatus: publishStatusOf(r.status, r.qos === 1),
    needAck: null,
    expiresAt: r.expiresAt,
    dispatchAt: r.dispatchAt,
    deadlineAt: r.deadlineAt ?? null,
    sentAt: r.sentAt ?? null,
    deliveredAt: null,
    respondedAt: null,
    responseCode: null,
    responsePayload: null,
    statusReason: r.statusReason ?? null,
    scheduleID: r.scheduleID ?? null,
    parentID: r.parentID ?? null,
    msgTime: now,
  }
}

/** A command row carrying `token` (the write that moved it): its events are stored, the others' are not. */
export const MOVED = 'EXISTS (SELECT 1 FROM control_logs m WHERE m.id = v.ref AND m.change_id = ?)'

/**
 * The UPDATEs of compare-and-set transitions, each marking the rows it moves with `token`, then the events of the
 * transitions that carry one, stored only for the rows that moved. Changes of one shape (same states, status and
 * set fields: a group's PUBACKs, the PUBACKs of one turn) share one UPDATE: a field all of them set alike is one
 * argument, a field they set differently (the time each was delivered) comes from a VALUES list joined on the id.
 */
export function transitionStatements(
  changes: readonly Transition[],
  now: number,
  token: string,
): InStatement[] {
  // a command moved twice in one batch goes in another UPDATE (each compare-and-set sees the one before)
  const groups = new Map<
    string,
    Array<{ fields: Field[]; changes: Transition[]; ids: Set<number> }>
  >()
  for (const c of changes) {
    const fields = FIELDS.filter((f) => c.fields?.[f] !== undefined)
    const key = JSON.stringify([c.from, c.to, c.publishStatus, fields])
    const list = groups.get(key) ?? []
    groups.set(key, list)
    let g = list.at(-1)
    if (!g || g.ids.has(c.id)) list.push((g = { fields, changes: [], ids: new Set() }))
    g.changes.push(c)
    g.ids.add(c.id)
  }
  const statements: InStatement[] = []
  for (const g of [...groups.values()].flat())
    for (let k = 0; k < g.changes.length; k += 500)
      statements.push(updateOf(g.changes.slice(k, k + 500), g.fields, now, token))
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

type Field = keyof typeof FIELD_COLUMNS
const FIELDS = Object.keys(FIELD_COLUMNS) as Field[]

/** One UPDATE moving `changes` of one shape (states, status, the fields they set). */
function updateOf(
  changes: readonly Transition[],
  fields: readonly Field[],
  now: number,
  token: string,
): InStatement {
  const c = changes[0]!
  const sets = ['command_status = ?', 'publish_status = ?', 'update_at = ?', 'change_id = ?']
  const args: InValue[] = [c.to, c.publishStatus, now, token]
  const varying = fields.filter((f) => changes.some((x) => x.fields![f] !== c.fields![f]))
  for (const f of fields) {
    const i = varying.indexOf(f)
    sets.push(`${FIELD_COLUMNS[f]} = ${i < 0 ? '?' : `v.column${i + 2}`}`)
    if (i < 0) args.push(c.fields![f]!)
  }
  if (!varying.length)
    return {
      sql: `UPDATE control_logs SET ${sets.join(', ')}
        WHERE id IN (${placeholders(changes.length)}) AND command_status IN (${placeholders(c.from.length)})
        ${RETURNING}`,
      args: [...args, ...changes.map((x) => x.id), ...c.from],
    }
  const tuple = `(${placeholders(varying.length + 1)})`
  for (const x of changes) args.push(x.id, ...varying.map((f) => x.fields![f]!))
  return {
    sql: `UPDATE control_logs SET ${sets.join(', ')}
      FROM (VALUES ${changes.map(() => tuple).join(', ')}) AS v
      WHERE control_logs.id = v.column1 AND control_logs.command_status IN (${placeholders(c.from.length)})
      ${RETURNING}`,
    args: [...args, ...c.from],
  }
}
