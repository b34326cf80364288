import { DeviceSchedule, GroupSchedule } from '../schemas/schedules.ts'
import { createSerializer } from './shape.ts'

const spec = {
  labels: { scheduleType: 'scheduleType' },
  times: ['crontabTime', 'nextRunAt', 'lastRunAt', 'createAt', 'updateAt'],
} as const

export const deviceScheduleWire = createSerializer({ detail: DeviceSchedule }, spec)
export const groupScheduleWire = createSerializer({ detail: GroupSchedule }, spec)
