/**
 * Scheduled commands, declared once for reads: store/libsql/schedules.ts selects, filters and sorts them from this
 * table and answers its records (`RecordOf`); writes store the fields of a ScheduleInput (store/meta/schedules.ts).
 */
import { z } from 'zod'
import { int, str, times } from './table.ts'
import type { FieldTable, RecordOf } from './table.ts'

/** A schedule (`s`) of a device or a group; `u` is its creator. */
export const SCHEDULE_TABLE = {
  id: { sql: 's.id', read: int },
  tenantID: { sql: 's.tenant_id', read: str },
  kind: { sql: 's.kind', read: z.enum(['device', 'group']) },
  /** The target's record id and its string id (deviceID or groupID). */
  targetIntID: { sql: 'coalesce(s.device_int_id, s.group_int_id)', read: int },
  targetID: { sql: 'coalesce(s.device_id, s.group_id)', read: str },
  /** The target's string id under its own name. */
  deviceID: { sql: 's.device_id', read: str.nullable(), filter: 'text' },
  groupID: { sql: 's.group_id', read: str.nullable(), filter: 'text' },
  scheduleName: { sql: 's.schedule_name', read: str, filter: 'text' },
  /** 1 once at `crontabTime`, 2 every `IntervalMinute` minutes, 3 at each match of `cron`. */
  scheduleType: { sql: 's.schedule_type', read: int, filter: 'int' },
  crontabTime: { sql: 's.crontab_time', read: int.nullable() },
  IntervalMinute: { sql: 's.interval_minute', read: int.nullable() },
  cron: { sql: 's.cron', read: str.nullable() },
  topic: { sql: 's.topic', read: str.nullable(), filter: 'text' },
  payload: { sql: 's.payload', read: str },
  qos: { sql: 's.qos', read: int.nullable() },
  /** Seconds (the command's acknowledgement timeout); null: the service's default. */
  timeout: { sql: 's.timeout', read: int.nullable() },
  /** Seconds an offline device's command waits for it; null: not at all. */
  ttl: { sql: 's.ttl', read: int.nullable() },
  /** Group schedules: 1 a command per member, 0 one publish to the group topic. */
  needAck: { sql: 's.need_ack', read: int.nullable() },
  enable: { sql: 's.enable', read: int, filter: 'int' },
  /** The due time to fire next; null: none. */
  nextRunAt: { sql: 's.next_run_at', read: int.nullable(), sort: true },
  /** The due time fired last, its command's (device) or task's (group) taskID. */
  lastRunAt: { sql: 's.last_run_at', read: int.nullable(), sort: true },
  lastTaskID: { sql: 's.last_task_id', read: str.nullable() },
  /** The creator (the firings' commands are recorded for this user). */
  userIntID: { sql: 's.user_int_id', read: int.nullable() },
  createUser: { sql: 'u.username', read: str.nullable() },
  ...times('s'),
} as const satisfies FieldTable

/** A stored schedule. */
export type ScheduleRecord = RecordOf<typeof SCHEDULE_TABLE>
