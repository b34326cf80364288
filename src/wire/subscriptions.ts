import { Subscription } from '../schemas/subscriptions.ts'
import { createSerializer } from './shape.ts'

export const subscriptionWire = createSerializer(
  { detail: Subscription },
  { times: ['createAt', 'updateAt'] },
)
