/**
 * group_data: one numeric data point of a group's devices over a range, per window: the first members' own means
 * and the group's min, mean, max and count over every member (TelemetryStore.groupSeries, read from the rollups).
 * Windows are whole minutes or more (the rollups' finest tier), at most GROUP_MAX_WINDOWS of them.
 */
import type { GroupSeries, TelemetryStore } from '../store/telemetry.ts'
import { parseEvery, windowBounds, WindowError } from '../store/windows.ts'
import { within, type Deadline } from './deadline.ts'
import { QueryParamError, type QueryRange } from './range.ts'

/** Windows one answer may hold (a week of minutes; each member shown adds a point per window). */
export const GROUP_MAX_WINDOWS = 10_080

/** Members answered one by one: the first by name; the group's windows still fold them all. */
export const GROUP_SHOWN = 20

/** Point data types whose values are stored as numbers a mean means something of (ingest/values.ts). */
export const NUMBER_TYPES: ReadonlySet<number> = new Set([1, 15, 16, 17, 18, 21, 22, 25])

export interface GroupQuery {
  tenantID: string
  /** Every member's deviceID. */
  deviceIDs: readonly string[]
  /** The members answered one by one (GROUP_SHOWN at most). */
  shown: readonly string[]
  dataPointID: string
  range: QueryRange
  tz: string
  /** The window (`interval`, else the range's default). */
  window: string
  /** The parameter that set `window`, named when it cannot be served. */
  windowParam: string
  budget?: Deadline
}

/** The group's windows, or a QueryParamError naming the window's parameter when it cannot be served. */
export async function groupData(store: TelemetryStore, q: GroupQuery): Promise<GroupSeries> {
  const every = parseEvery(q.window)
  if (!every || every.unit === 's')
    throw new QueryParamError({
      [q.windowParam]:
        'a window of whole minutes or more: <n>m, <n>h, <n>d or <n>mo (1m, 15m, 1h, 1d)',
    })
  try {
    windowBounds(q.range.start, q.range.end, q.window, q.tz, GROUP_MAX_WINDOWS)
  } catch (e) {
    if (e instanceof WindowError) throw new QueryParamError({ [q.windowParam]: e.message })
    throw e
  }
  const range = {
    tenantID: q.tenantID,
    deviceIDs: q.deviceIDs,
    shown: q.shown,
    dataPointID: q.dataPointID,
    start: q.range.start,
    end: q.range.end,
  }
  return within(q.budget, store.groupSeries(range, { every: q.window, tz: q.tz }))
}
