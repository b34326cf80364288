/** Variant B of the connection log: `deviceStatus` 0 offline, 1 online, 2 authentication failed. */
import { ConnectLog as ConnectLogA, connectLogFilters, timedListQuery } from '../../schemas/logs.ts'
import type { FilterFields } from '../../http/paging.ts'
import { z } from 'zod'

const RENAMED: Record<string, string> = {
  connectStatus: 'deviceStatus',
  connectStatusLabel: 'deviceStatusLabel',
}

/** Variant A's connection log with its status fields renamed, in the same place. */
export const ConnectLog = z.object(
  Object.fromEntries(
    Object.entries(ConnectLogA.shape).map(([key, type]) => [RENAMED[key] ?? key, type]),
  ),
)

/** The filters of Variant A's connection logs, the status filter (and sort key) named `deviceStatus`. */
export const ConnectLogListQuery = timedListQuery(
  Object.fromEntries(
    Object.entries(connectLogFilters).map(([key, type]) => [RENAMED[key] ?? key, type]),
  ) as FilterFields,
  ['msgTime'],
).transform((q) => {
  // the stored field keeps Variant A's name
  for (const f of q.filters) if (f.field === 'deviceStatus') f.field = 'connectStatus'
  if (q.sort === 'deviceStatus') q.sort = 'connectStatus'
  return q
})
