/**
 * Webhooks and their deliveries, declared once: store/libsql selects, filters, sorts and writes them from these
 * tables, their records are `RecordOf` these tables, and the HTTP side takes its list filters, times and JSON
 * fields from them.
 */
import { z } from 'zod'
import { int, recordID, str, times } from './table.ts'
import type { FieldTable, RecordOf, WriteOf } from './table.ts'

/** The records these tables' reads answer and the fields their writes store. */
export type WebhookRecord = RecordOf<typeof WEBHOOK_TABLE>
/** The fields of a webhook a caller sets. */
export type WebhookInput = WriteOf<typeof WEBHOOK_TABLE>
export type DeliveryRecord = RecordOf<typeof DELIVERY_TABLE>

/** The event types that go through the outbox (webhooks and the live stream carry them). */
export const OUTBOX_TYPES = [
  'alert.raised',
  'alert.cleared',
  'alert.acked',
  'command.status',
  'device.online',
  'device.offline',
  'device.state',
  'firmware.rollout',
  'firmware.device',
] as const

export type OutboxType = (typeof OUTBOX_TYPES)[number]

/** A webhook of a tenant (`w`). Its secret is not a field: only the delivery loop reads it. */
export const WEBHOOK_TABLE = {
  id: recordID('w'),
  tenantID: { sql: 'w.tenant_id', read: str },
  url: { sql: 'w.url', column: 'url', type: str, filter: 'text' },
  /** The event types it is sent, stored (and read) as JSON text. */
  events: {
    sql: 'w.events',
    column: 'events',
    type: z.array(z.enum(OUTBOX_TYPES)),
    read: str,
    json: true,
  },
  enable: { sql: 'w.enable', column: 'enable', type: int, filter: 'int' },
  userIntID: { sql: 'w.user_int_id', read: int.nullable() },
  ...times('w'),
} as const satisfies FieldTable

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

/** A delivery of an event (`e`) to a webhook (`w`) as the API lists it (`d`). */
export const DELIVERY_TABLE = {
  id: recordID('d'),
  webhookID: { sql: 'd.webhook_id', read: int },
  status: { sql: 'd.status', read: z.enum(DELIVERY_STATUSES), filter: 'text' },
  eventID: { sql: 'd.event_id', read: int, filter: 'int' },
  type: { sql: 'e.type', read: str, filter: 'text' },
  attempts: { sql: 'd.attempts', read: int, sort: true },
  responseCode: { sql: 'd.response_code', read: int.nullable() },
  lastError: { sql: 'd.last_error', read: str.nullable() },
  durationMs: { sql: 'd.duration_ms', read: int.nullable() },
  nextTryAt: { sql: 'd.next_try_at', time: true, read: int.nullable() },
  createAt: { sql: 'd.create_at', time: true, read: int },
  updateAt: { sql: 'd.update_at', time: true, read: int.nullable() },
} as const satisfies FieldTable

/** An event of the outbox (`e`); `id` is the event id. */
export const OUTBOX_EVENT_TABLE = {
  id: recordID('e'),
  tenantID: { sql: 'e.tenant_id', read: str },
  type: { sql: 'e.type', read: z.enum(OUTBOX_TYPES) },
  /** Epoch ms of the change. */
  time: { sql: 'e.time', read: int },
  /** The device it concerns, for stream filters; null when none. */
  deviceID: { sql: 'e.device_id', read: str.nullable() },
  /** JSON text of the event's data. */
  data: { sql: 'e.data', read: str },
} as const satisfies FieldTable
