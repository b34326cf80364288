/**
 * The kinds of resource the audit log names (store/fields/audit-logs.ts says where each is read from), apart from
 * its scope (src/kernel/audit.ts) so that the console's types can name them without Node's.
 */
export const AUDIT_RESOURCES = [
  'user',
  'application',
  'product',
  'device',
  'gateway',
  'group',
  'data_point',
  'data_stream',
  'metric',
  'product_resource',
  'app_template',
  'policy',
  'cert',
  'command',
  'schedule',
  'webhook',
  'alert',
  'history_alert',
  'alert_rule',
  'firmware',
  'firmware_rollout',
  'task',
] as const
export type AuditResource = (typeof AUDIT_RESOURCES)[number]
