/**
 * Firmware rollouts and their devices, declared once: store/libsql/rollouts.ts lists and reads them from these tables,
 * and the HTTP side takes their filters, labels and times from them.
 */
import { z } from 'zod'
import {
  created,
  int,
  productID,
  productName,
  recordID,
  str,
  type FieldTable,
  type RecordOf,
} from './table.ts'

/** A device's states in a rollout, in the order they are reached (src/rules/rollout.ts says which follows which). */
export const OTA_STATUSES = [
  'queued',
  'notified',
  'downloading',
  'downloaded',
  'verifying',
  'updating',
  'updated',
  'failed',
  'timed_out',
  'canceled',
] as const
export type OtaStatus = (typeof OTA_STATUSES)[number]

/** A rollout's states. */
export const ROLLOUT_STATUSES = [
  'running',
  'paused',
  'succeeded',
  'partial',
  'failed',
  'aborted',
  'canceled',
] as const
export type RolloutStatus = (typeof ROLLOUT_STATUSES)[number]

/** `{queued: n, notified: n, ...}`: a rollout's devices by state (every state), over its device rows. */
export const countsSql = (rollout: string) =>
  `(SELECT json_object(${OTA_STATUSES.map((s) => `'${s}', count(CASE WHEN status = '${s}' THEN 1 END)`).join(', ')})
    FROM firmware_rollout_devices WHERE rollout_int_id = ${rollout})`

const RampUp = z.object({ startPerMinute: int, factor: z.number(), every: int })

/** A firmware rollout (`r`; its product `p`, its group `g` when it targets one, its creator `u`). */
export const ROLLOUT_TABLE = {
  id: recordID('r'),
  rolloutID: { sql: 'r.rollout_id', read: str, filter: 'text' },
  firmwareID: { sql: 'r.firmware_id', read: str, filter: 'text' },
  version: { sql: 'r.version', read: str, filter: 'text' },
  productID,
  productIntID: { sql: 'r.product_int_id', read: int },
  productName,
  target: { sql: 'r.target', read: z.enum(['devices', 'group', 'product']), filter: 'text' },
  groupID: { sql: 'g.group_id', read: str.nullable() },
  groupIntID: { sql: 'r.group_int_id', read: int.nullable() },
  groupName: { sql: 'g.group_name', read: str.nullable() },
  fromVersions: { sql: 'r.from_versions', read: z.array(str).nullable(), json: true },
  ratePerMinute: { sql: 'r.rate_per_minute', read: int },
  rampUp: { sql: 'r.ramp_up', read: RampUp.nullable(), json: true },
  abortFailedPercent: { sql: 'r.abort_failed_percent', read: int.nullable() },
  abortMinFinished: { sql: 'r.abort_min_finished', read: int },
  timeoutMinutes: { sql: 'r.timeout_minutes', read: int },
  retries: { sql: 'r.retries', read: int },
  status: {
    sql: 'r.status',
    read: z.enum(ROLLOUT_STATUSES),
    label: 'rolloutStatus',
    filter: 'text',
  },
  total: { sql: 'r.total', read: int },
  counts: { sql: countsSql('r.id'), read: z.record(str, int), json: true },
  finishedAt: { sql: 'r.finished_at', time: true, read: int.nullable() },
  ...created('r'),
} as const satisfies FieldTable

export type RolloutRecord = RecordOf<typeof ROLLOUT_TABLE>

/**
 * A device of a rollout (`rd`; the rollout `r`, the device `d`): listed per rollout (`GET
 * /firmware_rollouts/{id}/devices`) and per device (its firmware history).
 */
export const ROLLOUT_DEVICE_TABLE = {
  rolloutIntID: { sql: 'rd.rollout_int_id', read: int },
  rolloutID: { sql: 'r.rollout_id', read: str, filter: 'text' },
  firmwareID: { sql: 'r.firmware_id', read: str },
  version: { sql: 'r.version', read: str },
  rolloutStatus: { sql: 'r.status', read: z.enum(ROLLOUT_STATUSES), label: 'rolloutStatus' },
  deviceIntID: { sql: 'rd.device_int_id', read: int },
  deviceID: { sql: 'd.device_id', read: str, filter: 'text' },
  deviceName: { sql: 'd.device_name', read: str, filter: 'text' },
  softVersion: { sql: 'd.soft_version', read: str.nullable() },
  fromVersion: { sql: 'rd.from_version', read: str.nullable() },
  status: { sql: 'rd.status', read: z.enum(OTA_STATUSES), label: 'otaStatus', filter: 'text' },
  attempt: { sql: 'rd.attempt', read: int },
  progress: { sql: 'rd.progress', read: int.nullable() },
  error: { sql: 'rd.error', read: str.nullable() },
  notifiedAt: { sql: 'rd.notified_at', time: true, read: int.nullable() },
  deliveredAt: { sql: 'rd.delivered_at', time: true, read: int.nullable() },
  updateAt: { sql: 'rd.update_at', time: true, sort: true, read: int },
} as const satisfies FieldTable

export type RolloutDeviceRecord = RecordOf<typeof ROLLOUT_DEVICE_TABLE>
