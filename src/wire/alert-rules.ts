import { AlertRule, AlertRuleTestAlert } from '../schemas/alert-rules.ts'
import { createSerializer } from './shape.ts'

export const alertRuleWire = createSerializer(
  { detail: AlertRule, testAlert: AlertRuleTestAlert },
  {
    labels: { alertSeverity: 'alertSeverity' },
    times: ['createAt', 'updateAt', 'startTime', 'endTime'],
  },
)
