import { z } from 'zod'
import { Int, Label, NullableInt, NullableStr, Str, Timestamp } from './common.ts'
import { listQuery, type FilterFields } from '../http/paging.ts'
import { parseTime, WIRE_TIME, WIRE_TIME_DOC } from '../kernel/time.ts'

/**
 * Connection log record (status 2 = authentication failed). `attempts`: the refusals of that client id from that
 * address counted into this row (later ones within MQTT_REFUSAL_LOG_SECONDS add to it); 1 for connects and
 * disconnects. `reason`: why a refused attempt was refused (`unknown device`, `bad credentials`, `certificate
 * required`, `blocked`, `unsupported protocol`); null for connects and disconnects.
 */
export const ConnectLog = z.object({
  id: Int,
  deviceID: Str,
  deviceName: NullableStr,
  IP: NullableStr,
  keepAlive: NullableInt,
  tenantID: NullableStr,
  connectStatus: Int,
  connectStatusLabel: Label,
  attempts: Int,
  reason: NullableStr.meta({
    description:
      'why a refused attempt (status 2) was refused: unknown device, bad credentials, certificate required, ' +
      'blocked, unsupported protocol; null otherwise',
  }),
  msgTime: Timestamp,
  createAt: Timestamp,
  updateAt: Timestamp,
})

/**
 * Uplink message (event) record. `status` 1: the values were stored as data points; 0: some or all were not,
 * and `reason` says why. productName is shown in the tenant-wide list.
 */
export const Event = z.object({
  id: Int,
  deviceID: Str,
  deviceName: NullableStr,
  productName: NullableStr,
  IP: NullableStr,
  topic: NullableStr,
  payload: NullableStr,
  status: Int,
  reason: NullableStr,
  msgTime: Timestamp,
  createAt: Timestamp,
  updateAt: Timestamp,
})

/** A gateway's own uplink messages: gatewayName instead of deviceName. */
export const GatewayEvent = Event.omit({ deviceName: true, productName: true }).extend({
  gatewayName: NullableStr,
})

/**
 * Why a command ended without reaching its device, or was canceled (docs/commands.md): a fixed English phrase, null
 * while it moves normally.
 */
const StatusReason = NullableStr.meta({
  description:
    'why a command ended without reaching its device, or was canceled: device offline, no ttl; device blocked; ' +
    'device deleted; ttl ran out; no acknowledgement within the timeout; canceled by <user> (canceled); ' +
    'publish failed. Null otherwise',
})

/** What a control log of a command adds: its lifecycle (commandStatus, statusReason), times and the response. */
const commandFields = {
  taskID: NullableStr,
  commandStatus: NullableStr,
  commandStatusLabel: Label,
  statusReason: StatusReason,
  qos: NullableInt,
  sentAt: Timestamp,
  deliveredAt: Timestamp,
  respondedAt: Timestamp,
  responseCode: NullableInt,
  responsePayload: NullableStr,
  expiresAt: Timestamp,
  scheduleID: NullableInt,
  /** A group member's: the taskID of its group command. */
  parentTaskID: NullableStr,
}

/** What a device's and a group's control logs both answer: the message and who published it. */
const published = {
  topic: NullableStr,
  payload: NullableStr,
  publishStatus: Int,
  publishStatusLabel: Label,
  publishUser: NullableStr,
  userIntID: NullableInt,
}

/** Downlink message (control log) record; taskID ties it to the command's acknowledgement. */
export const ControlLog = z.object({
  id: Int,
  deviceIntID: NullableInt,
  deviceID: NullableStr,
  deviceName: NullableStr,
  ...published,
  ...commandFields,
  createAt: Timestamp,
  updateAt: Timestamp,
})

/** Group control log: groupID and groupName instead of deviceIntID and deviceName. */
export const GroupControlLog = z.object({
  id: Int,
  groupID: NullableStr,
  groupName: NullableStr,
  ...published,
  taskID: NullableStr,
  commandStatus: NullableStr,
  commandStatusLabel: Label,
  statusReason: StatusReason,
  qos: NullableInt,
  needAck: NullableInt,
  sentAt: Timestamp,
  deliveredAt: Timestamp,
  expiresAt: Timestamp,
  scheduleID: NullableInt,
  createAt: Timestamp,
  updateAt: Timestamp,
})

/** Gateway control log: a structured payload (the stored JSON parsed; text that is not JSON stays a string). */
export const GatewayControlLog = z.object({
  id: Int,
  deviceIntID: NullableInt,
  createUser: NullableStr,
  payload: z
    .union([z.record(z.string(), z.unknown()), z.array(z.unknown()), z.string()])
    .nullable(),
  ...commandFields,
  createAt: Timestamp,
})

/** `startTime`/`endTime`: the pattern and a real calendar time (2024-02-30 is refused too). */
const timeParam = z
  .string()
  .regex(WIRE_TIME, 'must be YYYY-MM-DD HH:MM:SS')
  .refine((s) => parseTime(s, 'UTC') !== null, 'must be YYYY-MM-DD HH:MM:SS')
  .meta(WIRE_TIME_DOC)
  .optional()

/**
 * The query of a time-ordered list: listQuery with startTime/endTime (strictly validated) and `_sort` also
 * accepting the `sortable` fields that are not filters (msgTime, startTime ...).
 */
export function timedListQuery<const F extends FilterFields>(
  fields: F,
  sortable: readonly string[] = [],
) {
  const sorts = ['id', 'createAt', 'updateAt', ...sortable, ...Object.keys(fields)] as [
    string,
    ...string[],
  ]
  return listQuery(fields, {
    times: true,
    extra: { startTime: timeParam, endTime: timeParam, _sort: z.enum(sorts).optional() },
  })
}

export const connectLogFilters = {
  deviceName: 'text',
  deviceID: 'text',
  IP: 'text',
  connectStatus: 'int',
} satisfies FilterFields
export const eventFilters = {
  deviceName: 'text',
  deviceID: 'text',
  topic: 'text',
  status: 'int',
} satisfies FilterFields
export const gatewayEventFilters = { topic: 'text', status: 'int' } satisfies FilterFields
export const controlLogFilters = {
  deviceName: 'text',
  deviceID: 'text',
  topic: 'text',
  publishStatus: 'int',
  taskID: 'text',
  parentTaskID: 'text',
  commandStatus: 'text',
} satisfies FilterFields
export const groupControlLogFilters = {
  groupName: 'text',
  groupID: 'text',
  topic: 'text',
  publishStatus: 'int',
  taskID: 'text',
  commandStatus: 'text',
} satisfies FilterFields
export const gatewayControlLogFilters = {
  createUser: 'text',
  taskID: 'text',
  commandStatus: 'text',
} satisfies FilterFields

export const ConnectLogListQuery = timedListQuery(connectLogFilters, ['msgTime'])
export const EventListQuery = timedListQuery(eventFilters, ['msgTime'])
export const GatewayEventListQuery = timedListQuery(gatewayEventFilters, ['msgTime'])
export const ControlLogListQuery = timedListQuery(controlLogFilters, ['msgTime'])
export const GroupControlLogListQuery = timedListQuery(groupControlLogFilters, ['msgTime'])
export const GatewayControlLogListQuery = timedListQuery(gatewayControlLogFilters, ['msgTime'])
