/**
 * Where a recorded change reads its resource (store/libsql/audit-sql.ts): its table, record id, public id and name,
 * for each kind of resource. Apart from ./audit-logs.ts and without zod: every store thread loads the audit SQL
 * (the metadata store's writes carry the audit row), and zod in their shared chunk cost each thread ~3 MB of heap at
 * rest (the service's RSS at rest 164 MB against 152).
 */
import type { AuditResource } from '../../src/kernel/audit-resources.ts'

/** Where a recorded change reads its resource: columns of `table` (its record id is always `id`). */
export interface AuditSource {
  table: string
  /** Columns a batch of creates may name its records by (src/kernel/audit.ts `createdAs`). */
  keys?: readonly 'task_id'[]
  /** Of the records named by key, those a change can still touch (a cancel moves queued commands only). */
  keyedWhere?: string
  /** The record id recorded as resourceIntID. */
  intID: string
  /** The public id recorded as resourceID (text). */
  id: string
  name: string
}

const plain = (table: string, id: string, name: string): AuditSource => ({
  table,
  intID: 'id',
  id,
  name,
})
const byRecordID = (table: string, name: string) => plain(table, 'CAST(id AS TEXT)', name)

/** The source of each kind of resource, and of the commands (recorded against their device or group). */
export const AUDIT_SOURCES = {
  user: byRecordID('users', 'username'),
  application: plain('applications', 'app_id', 'app_name'),
  product: plain('products', 'product_id', 'product_name'),
  device: plain('devices', 'device_id', 'device_name'),
  gateway: plain('devices', 'device_id', 'device_name'),
  group: plain('groups', 'group_id', 'group_name'),
  data_point: plain('data_points', 'data_point_id', 'data_point_name'),
  data_stream: byRecordID('data_streams', 'stream_name'),
  metric: byRecordID('metrics', 'metric_name'),
  product_resource: byRecordID('product_resources', 'item_name'),
  app_template: byRecordID('app_templates', 'template_name'),
  policy: byRecordID('policies', 'name'),
  cert: byRecordID('certs', 'name'),
  command: { ...plain('control_logs', 'task_id', 'topic'), keys: ['task_id'] },
  schedule: byRecordID('schedules', 'schedule_name'),
  webhook: byRecordID('webhooks', 'url'),
  alert: byRecordID('current_alerts', 'alert_name'),
  history_alert: byRecordID('history_alerts', 'alert_name'),
  alert_rule: byRecordID('alert_rules', 'rule_name'),
  firmware: plain('firmware', 'firmware_id', 'version'),
  firmware_rollout: plain('firmware_rollouts', 'rollout_id', 'version'),
  task: { ...plain('tasks', 'task_id', 'task_name'), keys: ['task_id'] },
  /** A command to a device, recorded against the device. */
  device_command: {
    table: 'control_logs',
    intID: 'device_int_id',
    id: 'device_id',
    name: 'device_name',
    keys: ['task_id'],
    keyedWhere: `command_status = 'queued'`,
  },
  /** A command to a group, recorded against the group. */
  group_command: {
    table: 'control_logs',
    intID: 'group_int_id',
    id: 'group_id',
    name: 'group_name',
    keys: ['task_id'],
  },
} as const satisfies Record<AuditResource | 'device_command' | 'group_command', AuditSource>
export type AuditSourceName = keyof typeof AUDIT_SOURCES
