import type { ListArgs, Page } from '../list.ts'
import type {
  DeliveryRecord,
  DeliveryStatus,
  OUTBOX_EVENT_TABLE,
  OutboxType,
  WebhookInput,
  WebhookRecord,
} from '../fields/webhooks.ts'
import type { RecordOf } from '../fields/table.ts'
import type { TableRepository } from './table.ts'

export { OUTBOX_TYPES } from '../fields/webhooks.ts'
export type {
  DeliveryRecord,
  DeliveryStatus,
  OutboxType,
  WebhookInput,
  WebhookRecord,
} from '../fields/webhooks.ts'

/** An event to store in the outbox. */
export interface OutboxInput {
  tenantID: string
  type: OutboxType
  /** Epoch ms of the change. */
  time: number
  /** The device it concerns, for stream filters; null when none. */
  deviceID: string | null
  /** JSON text of the event's data. */
  data: string
}

/** A stored outbox event; `id` is the event id (store/fields/webhooks.ts). */
export type OutboxEvent = RecordOf<typeof OUTBOX_EVENT_TABLE>

/** A claimed delivery with what sending it needs. */
export interface DueDelivery {
  id: number
  webhookID: number
  attempts: number
  claimedUntil: number
  url: string
  secret: string
  event: OutboxEvent
}

/** What became of one attempt. */
export interface DeliveryOutcome {
  id: number
  /** The claim this node holds (the write is a compare-and-set on it). */
  claimedUntil: number
  status: DeliveryStatus
  nextTryAt: number | null
  responseCode: number | null
  lastError: string | null
  durationMs: number
  at: number
}

/**
 * Webhooks of a tenant, the outbox of events and the deliveries. Deliveries are claimed with a compare-and-set
 * on `claimed_until`, so that nodes sharing the store send each one once. A list filters by url and enable.
 */
export interface WebhookRepository extends Omit<
  TableRepository<WebhookRecord>,
  'update' | 'delete'
> {
  create(
    tenant: string,
    input: WebhookInput & { secret: string; userIntID: number | null },
    now: number,
  ): Promise<WebhookRecord>
  /** NotFound when missing or foreign. */
  update(tenant: string, id: number, input: WebhookInput, now: number): Promise<WebhookRecord>
  /** Deletes the tenant's webhooks among `ids` (and their deliveries); NotFound naming ids not found. */
  remove(tenant: string, ids: number[]): Promise<void>
  /**
   * Stores events and, for each, a pending delivery (due at `now`) per enabled webhook of its tenant subscribed
   * to its type: one transaction. Answers the stored events with their ids, in order.
   */
  append(events: readonly OutboxInput[], now: number): Promise<OutboxEvent[]>
  /** The tenant's events after `afterID`, oldest first, optionally of some types and one device. */
  eventsAfter(
    tenant: string,
    afterID: number,
    filter: { types?: readonly string[]; deviceID?: string },
    limit: number,
  ): Promise<OutboxEvent[]>
  /** Every tenant's events after `afterID`, oldest first, at most `limit` (the live stream's one reader a node). */
  eventsSince(afterID: number, limit: number): Promise<OutboxEvent[]>
  /** The largest event id (0 when none). */
  lastEventID(): Promise<number>
  /**
   * Deletes at most `limit` events older than `before` (epoch ms) with their delivery log; answers how many it
   * deleted. Retention is kept longer than a delivery is retried, so nothing pending is cut short.
   */
  prune(before: number, limit: number): Promise<number>
  /**
   * Claims pending deliveries of enabled webhooks due at `now` (not claimed, or claimed before `now`) until
   * `until`. A disabled webhook's deliveries stay pending, unclaimed, until it is enabled again.
   */
  claimDue(now: number, until: number, limit: number): Promise<DueDelivery[]>
  /** Records an attempt; false when the claim was lost meanwhile. */
  record(outcome: DeliveryOutcome): Promise<boolean>
  /** Gives claimed deliveries back untried (a stopping node). */
  release(claims: ReadonlyArray<{ id: number; claimedUntil: number }>): Promise<void>
  /** A page of one webhook's deliveries (newest first); filters: status, eventID, type. */
  deliveries(tenant: string, webhookID: number, q: ListArgs): Promise<Page<DeliveryRecord>>
  /** One delivery of the tenant's webhook with the event it carries; NotFound when missing or foreign. */
  delivery(
    tenant: string,
    webhookID: number,
    deliveryID: number,
  ): Promise<{ record: DeliveryRecord; event: OutboxEvent }>
  /** Re-queues one delivery of the tenant's webhook now; NotFound when missing or foreign. */
  retry(tenant: string, webhookID: number, deliveryID: number, now: number): Promise<DeliveryRecord>
}
