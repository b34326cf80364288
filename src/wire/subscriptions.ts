import { SUBSCRIPTION_TABLE } from '../../store/fields/access.ts'
import { Subscription } from '../schemas/subscriptions.ts'
import { tableSerializer } from './shape.ts'

export const subscriptionWire = tableSerializer(SUBSCRIPTION_TABLE, { detail: Subscription })
