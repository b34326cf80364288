/**
 * Connection logs, uplink messages (events) and downlink messages (control logs) as their lists read them,
 * declared once: store/libsql/logs-sql.ts selects, filters and sorts them from these tables and answers their
 * records (`RecordOf`). Lists are newest first by msgTime.
 */
import { int, str } from './table.ts'
import type { FieldTable, RecordOf } from './table.ts'

const text = str.nullable()

/** When a message was seen and its row written and last changed (`x` the log's alias): sort keys. */
const logTimes = (x: string) =>
  ({
    msgTime: { sql: `${x}.msg_time`, read: int, time: true, sort: true },
    createAt: { sql: `${x}.create_at`, read: int, time: true, sort: true },
    updateAt: { sql: `${x}.update_at`, read: int.nullable(), time: true, sort: true },
  }) as const satisfies FieldTable

/** A connection attempt (`l`); repeated refusals are folded into one row (`attempts`). */
export const CONNECT_LOG_TABLE = {
  id: { sql: 'l.id', read: int },
  tenantID: { sql: 'l.tenant_id', read: str },
  deviceID: { sql: 'l.device_id', read: str, filter: 'text' },
  deviceName: { sql: 'l.device_name', read: text, filter: 'text' },
  IP: { sql: 'l.ip', read: text, filter: 'text' },
  keepAlive: { sql: 'l.keep_alive', read: int.nullable() },
  connectStatus: { sql: 'l.connect_status', read: int, label: 'connectStatus', filter: 'int' },
  attempts: { sql: 'l.attempts', read: int },
  reason: { sql: 'l.reason', read: text },
  ...logTimes('l'),
} as const satisfies FieldTable

export type ConnectLogRecord = RecordOf<typeof CONNECT_LOG_TABLE>

/** An uplink message (`e`) with its product's current name (`p`). */
export const EVENT_TABLE = {
  id: { sql: 'e.id', read: int },
  deviceID: { sql: 'e.device_id', read: str, filter: 'text' },
  deviceName: { sql: 'e.device_name', read: text, filter: 'text' },
  /** The same name, under a gateway's list. */
  gatewayName: { sql: 'e.device_name', read: text },
  productName: { sql: 'p.product_name', read: text },
  IP: { sql: 'e.ip', read: text },
  topic: { sql: 'e.topic', read: text, filter: 'text' },
  payload: { sql: 'e.payload', read: text },
  status: { sql: 'e.status', read: int, filter: 'int' },
  reason: { sql: 'e.reason', read: text },
  ...logTimes('e'),
} as const satisfies FieldTable

export type EventRecord = RecordOf<typeof EVENT_TABLE>

/** The taskID of a group member's group command. */
const PARENT_TASK = '(SELECT p.task_id FROM control_logs p WHERE p.id = c.parent_id)'

/** A downlink (`c`): a command to a device, or a group command's own row. */
export const CONTROL_LOG_TABLE = {
  id: { sql: 'c.id', read: int },
  deviceIntID: { sql: 'c.device_int_id', read: int.nullable() },
  deviceID: { sql: 'c.device_id', read: text, filter: 'text' },
  deviceName: { sql: 'c.device_name', read: text, filter: 'text' },
  groupID: { sql: 'c.group_id', read: text, filter: 'text' },
  groupName: { sql: 'c.group_name', read: text, filter: 'text' },
  topic: { sql: 'c.topic', read: text, filter: 'text' },
  payload: { sql: 'c.payload', read: text },
  publishStatus: { sql: 'c.publish_status', read: int, label: 'publishStatus', filter: 'int' },
  publishUser: { sql: 'c.publish_user', read: text },
  /** The same user, under a gateway's list. */
  createUser: { sql: 'c.publish_user', read: text, filter: 'text' },
  userIntID: { sql: 'c.user_int_id', read: int.nullable() },
  taskID: { sql: 'c.task_id', read: text, filter: 'text' },
  commandStatus: { sql: 'c.command_status', read: text, label: 'commandStatus', filter: 'text' },
  /** Why a command ended without reaching its device, or was canceled (docs/commands.md). */
  statusReason: { sql: 'c.status_reason', read: text },
  qos: { sql: 'c.qos', read: int.nullable() },
  needAck: { sql: 'c.need_ack', read: int.nullable() },
  sentAt: { sql: 'c.sent_at', read: int.nullable(), time: true },
  deliveredAt: { sql: 'c.delivered_at', read: int.nullable(), time: true },
  respondedAt: { sql: 'c.responded_at', read: int.nullable(), time: true },
  responseCode: { sql: 'c.response_code', read: int.nullable() },
  responsePayload: { sql: 'c.response_payload', read: text },
  expiresAt: { sql: 'c.expires_at', read: int.nullable(), time: true },
  scheduleID: { sql: 'c.schedule_id', read: int.nullable() },
  parentTaskID: { sql: PARENT_TASK, read: text, filter: 'text' },
  ...logTimes('c'),
} as const satisfies FieldTable

export type ControlLogRecord = RecordOf<typeof CONTROL_LOG_TABLE>
