import { z } from 'zod'
import { WIRE_TIME_DOC } from '../kernel/time.ts'
import { enumCode, intIn, intID, name, text, Int, Timestamp } from './common.ts'
import { annotate, responseSchema } from './common.ts'
import { ALERT_RULE_TABLE } from '../../store/fields/alert-rules.ts'
import { filterFields, requestSchema } from '../../store/fields/table.ts'

const formula = z
  .string({ error: 'must be a string' })
  .trim()
  .max(1000, { error: 'at most 1000 characters' })

const ruleFields = {
  ruleName: name(50),
  productID: z.string({ error: 'required, a productID' }).trim().min(1, { error: 'required' }),
  deviceIntIDs: z
    .array(intID, { error: 'must be an array of device ids' })
    .max(1000, { error: 'at most 1000 devices' })
    .nullish(),
  condition: formula.nullish(),
  alertSeverity: enumCode('alertSeverity'),
  forSeconds: intIn(0, 86_400).optional(),
  clearCondition: formula.nullish(),
  clearForSeconds: intIn(0, 86_400).optional(),
  noDataSeconds: intIn(1, 30 * 86_400).nullish(),
  alertContent: text(1000),
  enable: z.union([z.literal(0), z.literal(1)], { error: 'must be 0 or 1' }).optional(),
}

/** The example of an alert rule (create and test). */
const RULE_EXAMPLE = {
  ruleName: 'Too hot',
  productID: 'pT8kZ3wQ',
  condition: 'temp > 30',
  alertSeverity: 2,
  forSeconds: 60,
  clearCondition: 'temp < 28',
  alertContent: '{deviceName}: {value:temp} °C',
}

/** `POST /alert_rules`. */
export const AlertRuleCreate = requestSchema(ALERT_RULE_TABLE, ruleFields)
annotate(AlertRuleCreate, { examples: [RULE_EXAMPLE] })

/** Edit: the whole record as read may come back; absent fields keep their values. */
export const AlertRuleUpdate = z.object(ruleFields).partial()

/** Checked by the service (with the rule's other fields, so that every failing field is named). */
const time = z.string({ error: 'must be YYYY-MM-DD HH:MM:SS' }).meta(WIRE_TIME_DOC)

/** `POST /alert_rules/test`: a rule (not stored) over one device's stored values of a range. */
export const AlertRuleTest = z.object({
  ...ruleFields,
  ruleName: name(50).optional(),
  deviceID: z.string({ error: 'required, a deviceID' }).min(1, { error: 'required' }),
  startTime: time,
  endTime: time,
})
annotate(AlertRuleTest, {
  examples: [
    {
      ...RULE_EXAMPLE,
      deviceID: 'thermometer-1',
      startTime: '2026-01-01 00:00:00',
      endTime: '2026-01-02 00:00:00',
    },
  ],
})

export const AlertRule = responseSchema(ALERT_RULE_TABLE, [
  'id ruleName productID productName deviceIntIDs condition alertSeverity alertSeverityLabel',
  'forSeconds clearCondition clearForSeconds noDataSeconds alertContent enable createUser createAt',
  'updateAt',
])

/** What a dry run answers: the alerts the rule would have raised (endTime null: still open at the end). */
export const AlertRuleTestAlert = z.object({
  startTime: Timestamp,
  endTime: Timestamp,
  alertTimes: Int,
})
export const AlertRuleTestResult = z.array(AlertRuleTestAlert)

/** List filters: ruleName, productID, alertSeverity, enable (store/fields/alert-rules.ts). */
export const alertRuleFilters = filterFields(ALERT_RULE_TABLE)

export type AlertRuleBody = z.infer<typeof AlertRuleUpdate>
export type AlertRuleTestBody = z.infer<typeof AlertRuleTest>
