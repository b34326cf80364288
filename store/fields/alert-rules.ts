/**
 * Alert rules, declared once: store/libsql selects, filters, sorts and writes them from this table, their record
 * derives from it, and the HTTP side takes its list filters, labels, times and request fields from it.
 */
import { z } from 'zod'
import { audit, int, productID, recordID, str } from './table.ts'
import type { FieldTable, RecordOf, WriteOf } from './table.ts'

/** An alert rule (`r`) of one product (`p`). */
export const ALERT_RULE_TABLE = {
  id: recordID('r'),
  tenantID: { sql: 'r.tenant_id', read: str },
  ruleName: { sql: 'r.rule_name', column: 'rule_name', type: str, filter: 'text' },
  productIntID: { sql: 'r.product_int_id', column: 'product_int_id', type: int },
  productID,
  productName: { sql: 'p.product_name', read: str.nullable() },
  /** Record ids of the product's devices the rule watches; null: every device of the product. */
  deviceIntIDs: {
    sql: 'r.device_int_ids',
    column: 'device_int_ids',
    type: z.array(int).nullable(),
    read: str.nullable(),
    json: true,
  },
  /** A boolean formula over the product's dataPointIDs; null for a no-data rule. */
  condition: { sql: 'r.condition', column: 'condition', type: str.nullable() },
  /** 1 urgent, 2 major, 3 minor, 4 warning. */
  alertSeverity: {
    sql: 'r.alert_severity',
    column: 'alert_severity',
    type: int,
    label: 'alertSeverity',
    filter: 'int',
  },
  forSeconds: { sql: 'r.for_seconds', column: 'for_seconds', type: int },
  /** Null: `not (condition)`. */
  clearCondition: { sql: 'r.clear_condition', column: 'clear_condition', type: str.nullable() },
  clearForSeconds: { sql: 'r.clear_for_seconds', column: 'clear_for_seconds', type: int },
  /** Seconds without any uplink that raise the alert (instead of a condition). */
  noDataSeconds: { sql: 'r.no_data_seconds', column: 'no_data_seconds', type: int.nullable() },
  alertContent: { sql: 'r.alert_content', column: 'alert_content', type: str.nullable() },
  enable: { sql: 'r.enable', column: 'enable', type: int, filter: 'int' },
  ...audit('r'),
} as const satisfies FieldTable

/** A rule as stored: `deviceIntIDs` JSON text. */
export type StoredAlertRule = RecordOf<typeof ALERT_RULE_TABLE>
/** A rule as the repository answers it: `deviceIntIDs` parsed once, for the alert engine. */
export type AlertRuleRecord = Omit<StoredAlertRule, 'deviceIntIDs'> & {
  deviceIntIDs: number[] | null
}
/** The fields of an alert rule a caller sets (the service resolved productID and checked the conditions). */
export type AlertRuleInput = WriteOf<typeof ALERT_RULE_TABLE>
