import { z } from 'zod'
import { looseIntOf, annotate, responseSchema } from './common.ts'
import { TopicFilter } from './policies.ts'
import { SUBSCRIPTION_TABLE } from '../../store/fields/access.ts'
import { filterFields, requestSchema } from '../../store/fields/table.ts'

/** A device's proxy subscription. */
export const Subscription = responseSchema(SUBSCRIPTION_TABLE, 'id topic qos createAt updateAt')

/** qos may arrive as a string or a number: both are accepted, stored as a number. */
export const SubscriptionCreate = requestSchema(SUBSCRIPTION_TABLE, {
  topic: TopicFilter,
  qos: looseIntOf((n) =>
    n.min(0, { error: 'must be one of 0, 1, 2' }).max(2, { error: 'must be one of 0, 1, 2' }),
  )
    .optional()
    .transform((n) => n ?? 1),
})
annotate(SubscriptionCreate, { examples: [{ topic: 'config/#', qos: 1 }] })

/** List filters: topic, qos (store/fields/access.ts). */
export const subscriptionFilters = filterFields(SUBSCRIPTION_TABLE)

export type SubscriptionCreate = z.infer<typeof SubscriptionCreate>
