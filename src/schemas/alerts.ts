import { z } from 'zod'
import { Int, Label, NullableInt, NullableStr, Str, Timestamp } from './common.ts'
import type { FilterFields } from '../http/paging.ts'
import { timedListQuery } from './logs.ts'

/** Current alert. alertDetail is the object of the triggering values. */
export const CurrentAlert = z.object({
  id: Int,
  alertName: Str,
  alertContent: NullableStr,
  alertSeverity: Int,
  alertSeverityLabel: Label,
  alertTimes: Int,
  alertDetail: z.unknown().meta({ description: 'object of the triggering values' }),
  deviceID: NullableStr,
  deviceName: NullableStr,
  startTime: Timestamp,
  /** The rule that raised it; null for the built-in limit and fault alerts. */
  ruleID: NullableInt,
  ackAt: Timestamp,
  ackUser: NullableStr,
  createAt: Timestamp,
  updateAt: Timestamp,
})

/** History alert: a handled (cleared) alert, with the time it ended. */
const { createAt, updateAt, ...alertBase } = CurrentAlert.shape
export const HistoryAlert = z.object({ ...alertBase, endTime: Timestamp, createAt, updateAt })

export const alertFilters = {
  alertName: 'text',
  deviceID: 'text',
  deviceName: 'text',
  alertSeverity: 'int',
  ruleID: 'int',
} satisfies FilterFields

export const CurrentAlertListQuery = timedListQuery(alertFilters, ['startTime', 'alertTimes'])
export const HistoryAlertListQuery = timedListQuery(alertFilters, [
  'startTime',
  'endTime',
  'alertTimes',
])
