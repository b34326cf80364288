/**
 * GET /group_data: one numeric data point of a group's devices over a range (docs/telemetry-queries.md): the first
 * members' series and the group's min/avg/max band, read from the rollups (query/group.ts).
 */
import type { Context } from 'hono'
import type { Deps } from '../deps.ts'
import type { AppEnv } from '../http/env.ts'
import { Router } from '../http/router.ts'
import { InvalidParameter } from '../kernel/errors.ts'
import { GroupData, GroupDataQuery } from '../schemas/telemetry.ts'
import { groupOf } from '../services/group-commands.ts'
import type { GroupMemberRecord, GroupRecord } from '../../store/types.ts'
import { Deadline } from '../../query/deadline.ts'
import { WireTimeFormatter } from '../../query/format.ts'
import { groupData, GROUP_SHOWN, NUMBER_TYPES } from '../../query/group.ts'
import { resolveRange } from '../../query/range.ts'

/** Members read per page when every member's deviceID is needed. */
const MEMBER_PAGE = 5000

/** The group's data point `dataPointID` (of its product); unknown or not numeric: 400 naming dataPointID. */
async function pointOf({ meta }: Deps, tenant: string, group: GroupRecord, dataPointID: string) {
  const filters = [
    { field: 'productID', op: 'eq' as const, value: group.productID },
    { field: 'dataPointID', op: 'eq' as const, value: dataPointID },
  ]
  const { items } = await meta.dataPoints.list(tenant, { page: 1, limit: 1, filters })
  const point = items[0]
  if (!point) throw new InvalidParameter('dataPointID', "not a data point of the group's product")
  if (!NUMBER_TYPES.has(point.pointDataType))
    throw new InvalidParameter(
      'dataPointID',
      `not a numeric data point (pointDataType ${point.pointDataType})`,
    )
  return point
}

/** The first GROUP_SHOWN members by deviceName, every member's deviceID, and how many there are. */
async function membersOf({ meta }: Deps, tenant: string, groupIntID: number) {
  const first = await meta.groups.members.list(tenant, groupIntID, {
    page: 1,
    limit: GROUP_SHOWN,
    sort: 'deviceName',
    order: 'asc',
    filters: [],
  })
  let all: GroupMemberRecord[] = first.items
  if (first.count > first.items.length) {
    all = []
    for (let page = 1; all.length < first.count; page++) {
      const q = { page, limit: MEMBER_PAGE, sort: 'id', order: 'asc' as const, filters: [] }
      const { items } = await meta.groups.members.list(tenant, groupIntID, q)
      all.push(...items)
      if (items.length < MEMBER_PAGE) break
    }
  }
  return { shown: first.items, deviceIDs: all.map((m) => m.deviceID), count: first.count }
}

/** The group and data point a request names, and the range and window it asks for. */
async function requestOf(
  deps: Deps,
  c: Context<AppEnv>,
  query: (typeof GroupDataQuery)['_output'],
) {
  const tenant = c.get('tenant')
  const group = await groupOf(deps.meta, tenant, query)
  const point = await pointOf(deps, tenant, group, query.dataPointID)
  const range = resolveRange(query, c.get('tz'), Date.now())
  return { tenant, group, point, range }
}

export function groupDataRoute(r: Router, deps: Deps) {
  r.typed(
    {
      method: 'get',
      path: '/group_data',
      tag: 'Telemetry',
      summary: "One data point of a group's devices: members' series and the group's band",
      description: `The group by groupID (or groupIntID; another tenant's or an unknown one is 404) and one numeric
data point of its product (dataPointID; unknown or not numeric: 400 naming it). Range: time_unit (hour, day
(default), week, month: the last unit up to now), or startTime/endTime (YYYY-MM-DD HH:MM:SS in the service's TIMEZONE,
or epoch seconds/milliseconds; endTime inclusive to its second). interval: the window, whole minutes or more (1m,
15m, 1h, 6h, 1d, 1mo ...; default 1m for an hour, 1h for a day, 6h for a week, 1d for a month), at most 10,080
windows; day and month windows follow TIMEZONE. series: the first ${GROUP_SHOWN} members by deviceName, each with the
mean of its values per window (windows without values left out; a member without values has no points); truncated
says when the group has more (deviceCount). group: per window, the min, avg (sum / count), max and count of every
member's values. Read from the 1-minute, 1-hour and 1-day rollups, so long ranges of large groups answer fast.`,
      query: GroupDataQuery,
      response: GroupData,
      errors: [404],
    },
    async (c, { query }) => {
      const { tenant, group, point, range } = await requestOf(deps, c, query)
      const members = await membersOf(deps, tenant, group.id)
      const window = query.interval ?? range.window
      const tz = c.get('tz')
      const data = await groupData(deps.telemetry, {
        tenantID: tenant,
        deviceIDs: members.deviceIDs,
        shown: members.shown.map((m) => m.deviceID),
        dataPointID: point.dataPointID,
        range,
        tz,
        window,
        windowParam: query.interval === undefined ? range.param : 'interval',
        budget: new Deadline(deps.config.QUERY_TIMEOUT_MS),
      })
      const fmt = new WireTimeFormatter(tz)
      const g = data.group
      return c.json({
        groupIntID: group.id,
        groupID: group.groupID,
        groupName: group.groupName,
        dataPointIntID: point.id,
        dataPointID: point.dataPointID,
        dataPointName: point.dataPointName,
        unitName: point.unitName ?? null,
        unitSymbol: point.unitSymbol ?? null,
        interval: window,
        deviceCount: members.count,
        truncated: members.count > members.shown.length,
        resolution: data.resolution,
        series: members.shown.map((m) => {
          const s = data.devices.get(m.deviceID) ?? { time: [], value: [] }
          return {
            deviceIntID: m.id,
            deviceID: m.deviceID,
            deviceName: m.deviceName,
            points: s.time.map((t, i) => ({ time: fmt.format(t), value: s.value[i]! })),
          }
        }),
        group: g.time.map((t, i) => ({
          time: fmt.format(t),
          min: g.min[i]!,
          avg: g.mean[i]!,
          max: g.max[i]!,
          count: g.count[i]!,
        })),
      })
    },
  )
}
