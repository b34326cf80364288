import { ALERT_RULE_TABLE, type AlertRuleRecord } from '../../store/fields/alert-rules.ts'
import type { DryRunAlert } from '../rules/alerts.ts'
import { AlertRule, AlertRuleTestAlert } from '../schemas/alert-rules.ts'
import { recordSerializer, wireSpecOf } from './shape.ts'

export const alertRuleWire = {
  ...recordSerializer<AlertRuleRecord>()({ detail: AlertRule }, wireSpecOf(ALERT_RULE_TABLE)),
  /** An alert a dry run would have raised. */
  ...recordSerializer<DryRunAlert>()(
    { testAlert: AlertRuleTestAlert },
    { times: ['startTime', 'endTime'] },
  ),
}
