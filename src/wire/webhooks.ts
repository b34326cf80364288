import { DELIVERY_TABLE, WEBHOOK_TABLE, type WebhookRecord } from '../../store/fields/webhooks.ts'
import { Webhook, WebhookCreated, WebhookDelivery } from '../schemas/webhooks.ts'
import { recordSerializer, tableSerializer, wireSpecOf } from './shape.ts'

export const webhookWire = {
  ...tableSerializer(WEBHOOK_TABLE, { detail: Webhook }),
  /** The create answer: the record and its generated secret, shown this once. */
  ...recordSerializer<WebhookRecord & { secret: string }>()(
    { created: WebhookCreated },
    wireSpecOf(WEBHOOK_TABLE),
  ),
}

export const deliveryWire = tableSerializer(DELIVERY_TABLE, { detail: WebhookDelivery })
