import { SUBSCRIPTION_TABLE, type SubscriptionRecord } from '../../store/fields/access.ts'
import { Subscription } from '../schemas/subscriptions.ts'
import { recordSerializer, wireSpecOf } from './shape.ts'

export const subscriptionWire = recordSerializer<SubscriptionRecord>()(
  { detail: Subscription },
  wireSpecOf(SUBSCRIPTION_TABLE),
)
