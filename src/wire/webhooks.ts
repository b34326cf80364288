import {
  DELIVERY_TABLE,
  WEBHOOK_TABLE,
  type DeliveryRecord,
  type WebhookRecord,
} from '../../store/fields/webhooks.ts'
import { Webhook, WebhookCreated, WebhookDelivery } from '../schemas/webhooks.ts'
import { recordSerializer, wireSpecOf } from './shape.ts'

export const webhookWire = {
  ...recordSerializer<WebhookRecord>()({ detail: Webhook }, wireSpecOf(WEBHOOK_TABLE)),
  /** The create answer: the record and its generated secret, shown this once. */
  ...recordSerializer<WebhookRecord & { secret: string }>()(
    { created: WebhookCreated },
    wireSpecOf(WEBHOOK_TABLE),
  ),
}

export const deliveryWire = recordSerializer<DeliveryRecord>()(
  { detail: WebhookDelivery },
  wireSpecOf(DELIVERY_TABLE),
)
