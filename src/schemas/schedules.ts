import { z } from 'zod'
import { CommandPayload, enumCode, intIn, Qos, intID, name } from './common.ts'
import { Int, Label, NullableInt, NullableStr, Str, Timestamp } from './common.ts'
import { WIRE_TIME, WIRE_TIME_DOC } from '../kernel/time.ts'
import { MAX_INTERVAL_MINUTES } from '../rules/schedules.ts'
import type { FilterFields } from '../http/paging.ts'

/** Minutes between firings: an integer, or the same as a numeric string. */
const intervalMinute = z.preprocess(
  (v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
  intIn(1, MAX_INTERVAL_MINUTES),
)

const scheduleFields = {
  scheduleName: name(50),
  scheduleType: enumCode('scheduleType'),
  /** Once (type 1): the wall time in the service's time zone. */
  crontabTime: z
    .string({ error: 'must be YYYY-MM-DD HH:MM:SS' })
    .regex(WIRE_TIME, { error: 'must be YYYY-MM-DD HH:MM:SS' })
    .meta(WIRE_TIME_DOC)
    .nullish(),
  IntervalMinute: intervalMinute.nullish(),
  cron: z
    .string({ error: 'must be a 5-field cron expression' })
    .trim()
    .max(120, { error: 'at most 120 characters' })
    .nullish(),
  topic: z
    .string({ error: 'must be a string' })
    .trim()
    .max(255, { error: 'at most 255 characters' })
    .refine((v) => !/[+#]/.test(v), { error: 'a topic without wildcards' })
    .nullish(),
  payload: CommandPayload,
  qos: Qos.nullish(),
  timeout: intIn(1, 3600).nullish(),
  ttl: intIn(0, 604_800).nullish(),
  enable: z.union([z.literal(0), z.literal(1)], { error: 'must be 0 or 1' }).optional(),
}

const deviceTarget = {
  deviceID: z.string({ error: 'must be a string' }).min(1).max(64).optional(),
  deviceIntID: intID.optional(),
}

const groupTarget = {
  groupID: z.string({ error: 'must be a string' }).min(1).max(64).optional(),
  groupIntID: intID.optional(),
  needAck: z.union([z.literal(0), z.literal(1)], { error: 'must be 0 or 1' }).nullish(),
}

const DeviceScheduleObject = z.object({ ...deviceTarget, ...scheduleFields })
const GroupScheduleObject = z.object({ ...groupTarget, ...scheduleFields })

/** A target check that runs even when other fields failed, so that every failing field is named. */
const always = () => true

/** `POST /device_schedule_publish`: the device by deviceID and/or deviceIntID. */
export const DeviceScheduleCreate = DeviceScheduleObject.refine(
  (b) => b.deviceID !== undefined || b.deviceIntID !== undefined,
  { error: 'deviceID or deviceIntID is required', path: ['deviceID'], when: always },
).meta({
  anyOf: [{ required: ['deviceID'] }, { required: ['deviceIntID'] }],
  examples: [
    {
      deviceIntID: 1,
      scheduleName: 'Hourly report',
      scheduleType: 2,
      IntervalMinute: 60,
      payload: { report: true },
    },
  ],
})

/** `POST /group_schedule_publish`: the group by groupID and/or groupIntID. */
export const GroupScheduleCreate = GroupScheduleObject.refine(
  (b) => b.groupID !== undefined || b.groupIntID !== undefined,
  { error: 'groupID or groupIntID is required', path: ['groupID'], when: always },
).meta({
  anyOf: [{ required: ['groupID'] }, { required: ['groupIntID'] }],
  examples: [
    {
      groupIntID: 1,
      scheduleName: 'Lights off at night',
      scheduleType: 3,
      cron: '0 22 * * *',
      payload: { led: 'off' },
      needAck: 1,
    },
  ],
})

/** Edit: the whole record as read may come back; absent fields keep their values. */
export const DeviceScheduleUpdate = DeviceScheduleObject.partial()
export const GroupScheduleUpdate = GroupScheduleObject.partial()

const record = {
  id: Int,
  scheduleName: Str,
  scheduleType: Int,
  scheduleTypeLabel: Label,
  crontabTime: Timestamp,
  IntervalMinute: NullableInt,
  cron: NullableStr,
}
const tail = {
  topic: NullableStr,
  payload: Str,
  nextRunAt: Timestamp,
  lastRunAt: Timestamp,
  lastTaskID: NullableStr,
  enable: Int,
  createAt: Timestamp,
  updateAt: Timestamp,
}

export const DeviceSchedule = z.object({ ...record, deviceID: Str, ...tail })
export const GroupSchedule = z.object({ ...record, groupID: Str, ...tail })

const filters = { scheduleName: 'text', scheduleType: 'int', enable: 'int', topic: 'text' } as const
export const deviceScheduleFilters = { ...filters, deviceID: 'text' } satisfies FilterFields
export const groupScheduleFilters = { ...filters, groupID: 'text' } satisfies FilterFields

/** Any schedule body (create or edit, either kind) as the service takes it. */
export type ScheduleBody = z.infer<typeof DeviceScheduleUpdate> &
  z.infer<typeof GroupScheduleUpdate>
