import type { InStatement, InValue } from '@libsql/client'
import type { WriteResult } from './db.ts'
import type { AlertEvent } from '../../src/kernel/events.ts'
import type { AlertEventCtx } from '../types.ts'
import { deliveriesOfLast } from './webhooks.ts'

type AlertEventType = 'alert.raised' | 'alert.cleared' | 'alert.acked'

/** Fields an event type adds to the payload: `, 'key', ?` pairs and their values. */
export interface PayloadExtra {
  sql: string
  args: InValue[]
}

const NONE: PayloadExtra = { sql: '', args: [] }

/**
 * The payload (outbox `data`) of the current alert `c`; args: the severity labels (JSON object), the change time,
 * then the extra's values.
 */
const payload = (extra: string) => `json_object('alertID', c.id, 'ruleID', c.rule_id,
  'ruleName', iif(c.rule_id IS NULL, NULL, c.alert_name), 'alertName', c.alert_name,
  'alertSeverity', c.alert_severity, 'alertSeverityLabel', json_extract(?, '$."' || c.alert_severity || '"'),
  'deviceIntID', c.device_int_id, 'deviceID', c.device_id, 'deviceName', c.device_name,
  'alertContent', c.alert_content, 'alertTimes', c.alert_times, 'alertDetail', json(c.alert_detail),
  'startTime', c.start_time, 'at', ?${extra})`

/**
 * The two statements that store one `type` event per current alert `c` matching `where` (its args `whereArgs`)
 * and a pending delivery for each enabled webhook of that alert's tenant subscribed to the type. Run them inside
 * the transaction of the change, before the statement that changes what `where` matches (the alert's move, its
 * ack). The first answers the events (id, tenantID, data); the second is `deliveriesOfLast` of ./webhooks.ts (the
 * rows the first stored).
 */
export function alertEventStatements(
  type: AlertEventType,
  where: string,
  whereArgs: readonly InValue[],
  ctx: AlertEventCtx,
  extra: PayloadExtra = NONE,
): InStatement[] {
  return [
    {
      sql: `INSERT INTO outbox_events (tenant_id, type, time, device_id, data)
        SELECT c.tenant_id, ?, ?, c.device_id, ${payload(extra.sql)}
        FROM current_alerts c WHERE ${where} ORDER BY c.id
        RETURNING id, tenant_id AS tenantID, data`,
      args: [type, ctx.at, JSON.stringify(ctx.severityLabels), ctx.at, ...extra.args, ...whereArgs],
    },
    deliveriesOfLast(ctx.at),
  ]
}

/** The events the first statement of `alertEventStatements` answered, in outbox order. */
export function alertEventsOf(rs: WriteResult | undefined): AlertEvent[] {
  if (!rs) return []
  return rs.rows
    .map((r) => ({
      id: Number(r.id),
      e: { tenantID: String(r.tenantID), ...(JSON.parse(String(r.data)) as object) },
    }))
    .sort((x, y) => x.id - y.id)
    .map((x) => x.e as AlertEvent)
}
