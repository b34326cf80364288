import type { InStatement, InValue } from '@libsql/client'
import { insertRows, jsonRows, type JsonRows } from './db.ts'
import { tableList } from './list.ts'
import { DEVICE_EVENT_IDS } from './event-devices.ts'
import { CONNECT_LOG_TABLE, CONTROL_LOG_TABLE, EVENT_TABLE } from '../fields/logs.ts'
import type { ConnectLogInput, ControlLogInput, EventInput } from '../types.ts'

/** Connection logs of a tenant; `where` narrows further (one device). */
export const connectLogSpec = (where = '') =>
  tableList(CONNECT_LOG_TABLE, {
    from: 'FROM connect_logs l',
    where: `l.tenant_id = ?${where}`,
    timeField: 'l.msg_time',
    idField: 'l.id',
  })

/** Uplink messages of a tenant, with the product's current name. */
export const eventSpec = () =>
  tableList(EVENT_TABLE, {
    from: 'FROM events e LEFT JOIN products p ON p.id = e.product_int_id',
    where: 'e.tenant_id = ?',
    timeField: 'e.msg_time',
    idField: 'e.id',
  })

/**
 * One device's uplink messages (args: tenant, then the device's record id twice): its rows found by their ids
 * (./event-devices.ts), never by a scan of the tenant's (`+` keeps SQLite off the tenant's index). Its rows are
 * sorted for a page, so the page's ids are picked from `events` alone and joined after (the deferred join).
 */
export const deviceEventSpec = () =>
  tableList(EVENT_TABLE, {
    from: 'FROM events e LEFT JOIN products p ON p.id = e.product_int_id',
    where: `+e.tenant_id = ? AND e.id IN (${DEVICE_EVENT_IDS})`,
    timeField: 'e.msg_time',
    idField: 'e.id',
    count: { from: 'FROM events e', baseAlias: 'e' },
  })

/** Control logs of a tenant; `where` picks device rows, one device's or one group's. */
export const controlLogSpec = (where: string) =>
  tableList(CONTROL_LOG_TABLE, {
    from: 'FROM control_logs c',
    where: `c.tenant_id = ?${where}`,
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
/** The payload crosses to the store worker outside the JSON text (jsonRows). */
const EVENT_APART = [EVENT_COLUMNS.indexOf('payload')]
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

/** Uplink messages written at `now`, for `Db.insertJson`. */
export function eventRows(rows: readonly EventInput[], now: number): JsonRows {
  // pushed, not an array sized first: JSON.stringify of a holey array (one made by `new Array(n)`) took ~20% longer
  // than the copies of a pushed one's growth cost (500 rows: 0.66 against 0.55 µs a row)
  const values: InValue[] = []
  for (const r of rows)
    values.push(
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
    )
  return jsonRows('events', EVENT_COLUMNS, values, EVENT_APART)
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
