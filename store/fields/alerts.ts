/**
 * Current (open) and history (handled) alerts, declared once: store/libsql/alerts.ts selects, filters and sorts
 * them from these tables and answers their records (`RecordOf`).
 */
import { int, str, times } from './table.ts'
import type { FieldTable, RecordOf } from './table.ts'

/** An open alert (`a`, table current_alerts). */
export const CURRENT_ALERT_TABLE = {
  id: { sql: 'a.id', read: int },
  alertName: { sql: 'a.alert_name', read: str, filter: 'text' },
  alertContent: { sql: 'a.alert_content', read: str.nullable() },
  alertSeverity: { sql: 'a.alert_severity', read: int, label: 'alertSeverity', filter: 'int' },
  /** How often it was raised while open. */
  alertTimes: { sql: 'a.alert_times', read: int, sort: true },
  /** The triggering values, JSON text. */
  alertDetail: { sql: 'a.alert_detail', read: str.nullable(), json: true },
  deviceID: { sql: 'a.device_id', read: str.nullable(), filter: 'text' },
  deviceName: { sql: 'a.device_name', read: str.nullable(), filter: 'text' },
  startTime: { sql: 'a.start_time', read: int, time: true, sort: true },
  /** The rule that raised it; null for the built-in limit and fault alerts. */
  ruleID: { sql: 'a.rule_id', read: int.nullable(), filter: 'int' },
  ackAt: { sql: 'a.ack_at', read: int.nullable(), time: true },
  ackUser: { sql: 'a.ack_user', read: str.nullable() },
  ...times('a'),
} as const satisfies FieldTable

export type CurrentAlertRecord = RecordOf<typeof CURRENT_ALERT_TABLE>

/** A handled alert (`a`, table history_alerts): an open alert's fields and when it ended. */
export const HISTORY_ALERT_TABLE = {
  ...CURRENT_ALERT_TABLE,
  endTime: { sql: 'a.end_time', read: int, time: true, sort: true },
} as const satisfies FieldTable

export type HistoryAlertRecord = RecordOf<typeof HISTORY_ALERT_TABLE>
