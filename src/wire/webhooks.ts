import { Webhook, WebhookCreated, WebhookDelivery } from '../schemas/webhooks.ts'
import { createSerializer } from './shape.ts'

export const webhookWire = createSerializer(
  { detail: Webhook, created: WebhookCreated },
  { times: ['createAt', 'updateAt'] },
)

export const deliveryWire = createSerializer(
  { detail: WebhookDelivery },
  { times: ['nextTryAt', 'createAt', 'updateAt'] },
)
