import type { ListArgs, Page } from '../list.ts'
import type { ScheduleRecord } from '../fields/schedules.ts'

export type { ScheduleRecord } from '../fields/schedules.ts'

/** What a schedule targets: one device, or one group. */
export type ScheduleKind = 'device' | 'group'

/** The fields of a schedule a caller sets (times as epoch milliseconds). */
export interface ScheduleInput {
  /** The target's record id and its string id (deviceID or groupID). */
  targetIntID: number
  targetID: string
  scheduleName: string
  /** 1 once at `crontabTime`, 2 every `IntervalMinute` minutes, 3 at each match of `cron`. */
  scheduleType: number
  crontabTime: number | null
  IntervalMinute: number | null
  cron: string | null
  topic: string | null
  payload: string
  qos: number | null
  /** Seconds (the command's acknowledgement timeout); null: the service's default. */
  timeout: number | null
  /** Seconds an offline device's command waits for it; null: not at all. */
  ttl: number | null
  /** Group schedules: 1 a command per member, 0 one publish to the group topic. */
  needAck: number | null
  enable: number
  /** The due time to fire next; null: none. */
  nextRunAt: number | null
}

/**
 * Scheduled commands of a tenant, of one kind at a time (a device schedule's id is not found among group
 * schedules). Firing is claimed with a compare-and-set on `nextRunAt`, so that nodes sharing the store fire each
 * due time once.
 */
export interface ScheduleRepository {
  /**
   * A page of the tenant's schedules of `kind`; filters: scheduleName, scheduleType, enable, topic, and deviceID
   * or groupID. Items are ScheduleRecords.
   */
  list(tenant: string, kind: ScheduleKind, q: ListArgs): Promise<Page<ScheduleRecord>>
  /** One schedule of the tenant; NotFound when missing, foreign or of the other kind. */
  get(tenant: string, kind: ScheduleKind, id: number): Promise<ScheduleRecord>
  create(
    tenant: string,
    kind: ScheduleKind,
    userIntID: number | null,
    s: ScheduleInput,
  ): Promise<ScheduleRecord>
  /** Replaces the caller's fields of a schedule (the service merges the edit first); NotFound as `get`. */
  update(tenant: string, kind: ScheduleKind, id: number, s: ScheduleInput): Promise<ScheduleRecord>
  /** Deletes all of `ids` or none: an id that is not a schedule of the tenant and kind is NotFound `ids`. */
  delete(tenant: string, kind: ScheduleKind, ids: number[]): Promise<void>
  /** Enabled schedules of every tenant whose `nextRunAt` is at or before `now`, earliest first. */
  due(now: number, limit: number): Promise<ScheduleRecord[]>
  /**
   * Claims due time `dueAt` of schedule `id`: moves `nextRunAt` from `dueAt` to `nextRunAt` and records `dueAt`
   * as `lastRunAt` (the firing's taskID is unknown until setLastTask), only while the schedule is enabled and still due at `dueAt`. Answers the claimed record, or
   * undefined when another node (or an edit) got there first.
   */
  claim(id: number, dueAt: number, nextRunAt: number | null): Promise<ScheduleRecord | undefined>
  /** Records the taskID of a firing's command (device) or task (group). */
  setLastTask(id: number, taskID: string): Promise<void>
}
