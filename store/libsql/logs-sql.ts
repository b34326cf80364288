import type { InStatement, InValue } from '@libsql/client'
import type { ListSpec } from './list.ts'
import type { ConnectLogInput, ControlLogInput, EventInput } from '../types.ts'

/** Rows per multi-row INSERT: 500 rows × at most 16 columns stays far below SQLite's 32,766 variables. */
export const ROWS_PER_INSERT = 500

/**
 * One multi-row `INSERT INTO table (columns) VALUES (...), (...)` per chunk of ROWS_PER_INSERT rows (never one
 * statement per row). `suffix` is appended as is (an ON CONFLICT clause, RETURNING id); it never holds values.
 */
export function insertRows(
  table: string,
  columns: readonly string[],
  rows: InValue[][],
  suffix = '',
): InStatement[] {
  const tuple = `(${columns.map(() => '?').join(', ')})`
  const out: InStatement[] = []
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const chunk = rows.slice(i, i + ROWS_PER_INSERT)
    out.push({
      sql: `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${chunk.map(() => tuple).join(', ')} ${suffix}`,
      args: chunk.flat(),
    })
  }
  return out
}

const connectColumns = `SELECT l.id AS id, l.device_id AS deviceID, l.device_name AS deviceName, l.ip AS IP,
  l.keep_alive AS keepAlive, l.tenant_id AS tenantID, l.connect_status AS connectStatus, l.attempts AS attempts, l.reason AS reason, l.msg_time AS msgTime,
  l.create_at AS createAt, l.update_at AS updateAt`

/** Connection logs of a tenant; `where` narrows further (one device). */
export const connectLogSpec = (where = ''): ListSpec => ({
  columns: connectColumns,
  from: 'FROM connect_logs l',
  where: `l.tenant_id = ?${where}`,
  fields: {
    deviceName: 'l.device_name',
    deviceID: 'l.device_id',
    IP: 'l.ip',
    connectStatus: 'l.connect_status',
    msgTime: 'l.msg_time',
    createAt: 'l.create_at',
    updateAt: 'l.update_at',
  },
  timeField: 'l.msg_time',
  idField: 'l.id',
})

const eventColumns = `SELECT e.id AS id, e.device_id AS deviceID, e.device_name AS deviceName,
  e.device_name AS gatewayName, p.product_name AS productName, e.ip AS IP, e.topic AS topic, e.payload AS payload,
  e.status AS status, e.reason AS reason, e.msg_time AS msgTime, e.create_at AS createAt, e.update_at AS updateAt`

/** Uplink messages of a tenant, with the product's current name; `where` narrows further (one device). */
export const eventSpec = (where = ''): ListSpec => ({
  columns: eventColumns,
  from: 'FROM events e LEFT JOIN products p ON p.id = e.product_int_id',
  where: `e.tenant_id = ?${where}`,
  fields: {
    deviceName: 'e.device_name',
    deviceID: 'e.device_id',
    topic: 'e.topic',
    status: 'e.status',
    msgTime: 'e.msg_time',
    createAt: 'e.create_at',
    updateAt: 'e.update_at',
  },
  timeField: 'e.msg_time',
  idField: 'e.id',
})

/** The taskID of a group member's group command. */
const PARENT_TASK = '(SELECT p.task_id FROM control_logs p WHERE p.id = c.parent_id)'

const controlColumns = `SELECT c.id AS id, c.device_int_id AS deviceIntID, c.device_id AS deviceID,
  c.device_name AS deviceName, c.group_id AS groupID, c.group_name AS groupName, c.topic AS topic,
  c.payload AS payload, c.publish_status AS publishStatus, c.publish_user AS publishUser,
  c.publish_user AS createUser, c.user_int_id AS userIntID, c.task_id AS taskID, c.msg_time AS msgTime,
  c.command_status AS commandStatus, c.qos AS qos, c.need_ack AS needAck, c.sent_at AS sentAt,
  c.delivered_at AS deliveredAt, c.responded_at AS respondedAt, c.response_code AS responseCode,
  c.response_payload AS responsePayload, c.expires_at AS expiresAt, c.schedule_id AS scheduleID,
  ${PARENT_TASK} AS parentTaskID, c.create_at AS createAt, c.update_at AS updateAt`

/** Control logs of a tenant; `where` picks device rows, one device's or one group's. */
export const controlLogSpec = (where: string): ListSpec => ({
  columns: controlColumns,
  from: 'FROM control_logs c',
  where: `c.tenant_id = ?${where}`,
  fields: {
    deviceName: 'c.device_name',
    deviceID: 'c.device_id',
    groupName: 'c.group_name',
    groupID: 'c.group_id',
    topic: 'c.topic',
    publishStatus: 'c.publish_status',
    taskID: 'c.task_id',
    parentTaskID: PARENT_TASK,
    commandStatus: 'c.command_status',
    createUser: 'c.publish_user',
    msgTime: 'c.msg_time',
    createAt: 'c.create_at',
    updateAt: 'c.update_at',
  },
  timeField: 'c.msg_time',
  idField: 'c.id',
})

/** Device downlinks: rows that name a device (a group's own row names none). */
export const DEVICE_ROWS = ' AND (c.device_int_id IS NOT NULL OR c.device_id IS NOT NULL)'
/** A group's own rows: the group's commands, not their per-device deliveries. */
export const GROUP_ROWS =
  ' AND c.group_int_id = ? AND c.device_int_id IS NULL AND c.device_id IS NULL'

const CONNECT_COLUMNS = [
  'tenant_id',
  'device_int_id',
  'device_id',
  'device_name',
  'connect_status',
  'ip',
  'keep_alive',
  'reason',
  'msg_time',
  'create_at',
]
const EVENT_COLUMNS = [
  'tenant_id',
  'device_int_id',
  'device_id',
  'device_name',
  'product_int_id',
  'topic',
  'payload',
  'ip',
  'status',
  'reason',
  'msg_time',
  'create_at',
]
const CONTROL_COLUMNS = [
  'tenant_id',
  'device_int_id',
  'device_id',
  'device_name',
  'group_int_id',
  'group_id',
  'group_name',
  'task_id',
  'topic',
  'payload',
  'publish_status',
  'publish_user',
  'user_int_id',
  'msg_time',
  'create_at',
]

/** The multi-row INSERTs of connection logs written at `now` (their default msgTime). */
export function connectLogInserts(rows: readonly ConnectLogInput[], now: number): InStatement[] {
  const values = rows.map((r): InValue[] => [
    r.tenantID,
    r.deviceIntID ?? null,
    r.deviceID,
    r.deviceName ?? null,
    r.connectStatus,
    r.IP ?? null,
    r.keepAlive ?? null,
    r.reason ?? null,
    r.msgTime ?? now,
    now,
  ])
  return insertRows('connect_logs', CONNECT_COLUMNS, values)
}

/** The multi-row INSERTs of uplink messages written at `now`. */
export function eventInserts(rows: readonly EventInput[], now: number): InStatement[] {
  const values = rows.map((r): InValue[] => [
    r.tenantID,
    r.deviceIntID ?? null,
    r.deviceID,
    r.deviceName ?? null,
    r.productIntID ?? null,
    r.topic ?? null,
    r.payload ?? null,
    r.IP ?? null,
    r.status ?? 1,
    r.reason ?? null,
    r.msgTime ?? now,
    now,
  ])
  return insertRows('events', EVENT_COLUMNS, values)
}

/** The multi-row INSERTs of control logs written at `now`, each answering the new rows' ids. */
export function controlLogInserts(rows: readonly ControlLogInput[], now: number): InStatement[] {
  const values = rows.map((r): InValue[] => [
    r.tenantID,
    r.deviceIntID ?? null,
    r.deviceID ?? null,
    r.deviceName ?? null,
    r.groupIntID ?? null,
    r.groupID ?? null,
    r.groupName ?? null,
    r.taskID ?? null,
    r.topic ?? null,
    r.payload ?? null,
    r.publishStatus,
    r.publishUser ?? null,
    r.userIntID ?? null,
    r.msgTime ?? now,
    now,
  ])
  return insertRows('control_logs', CONTROL_COLUMNS, values, 'RETURNING id')
}
