import { z } from 'zod'
import { enumCode, intID, name, text, Int, annotate, responseSchema } from './common.ts'
import { TOPIC_MAX, topicFilterProblem } from '../rules/policies.ts'
import {
  POLICY_CANDIDATE_TABLE,
  POLICY_DETAIL_TABLE,
  POLICY_DEVICE_TABLE,
  POLICY_TABLE,
} from '../../store/fields/access.ts'
import { filterFields, requestSchema } from '../../store/fields/table.ts'

/** A topic filter relative to the device's mountpoint (src/rules/policies.ts). */
export const TopicFilter = z
  .string({ error: 'required, a string' })
  .superRefine((topic, ctx) => {
    const problem = topicFilterProblem(topic)
    if (problem) ctx.addIssue({ code: 'custom', message: problem })
  })
  // the same rules as a pattern, for the document: levels of anything but / + # NUL, or + alone; # alone last
  .meta({
    minLength: 1,
    maxLength: TOPIC_MAX,
    pattern: '^(?!/)(?:(?:[^/+#\\u0000]*|\\+)/)*(?:[^/+#\\u0000]*|\\+|#)$',
  })

/** Policy detail. `mqtt_acl` holds one `{id}` per bound device (the device record id). */
export const Policy = responseSchema(
  POLICY_DETAIL_TABLE,
  [
    'id name topic access accessLabel allow allowLabel description mqtt_acl userIntID createUser',
    'createAt updateAt',
  ],
  { mqtt_acl: z.array(z.object({ id: Int })) },
)

/** Policy in a list: no createUser (detail only), no mqtt_acl. */
export const PolicyListItem = Policy.omit({ createUser: true, mqtt_acl: true })

export const PolicyCreate = requestSchema(POLICY_TABLE, {
  name: name(50),
  topic: TopicFilter,
  access: enumCode('access'),
  allow: enumCode('allow'),
  description: text(300),
})
annotate(PolicyCreate, {
  examples: [
    {
      name: 'telemetry',
      topic: 'telemetry/#',
      access: 0,
      allow: 1,
      description: 'Publish telemetry',
    },
  ],
})

export const PolicyUpdate = PolicyCreate.partial()

/** List filters: name, topic, access, allow (store/fields/access.ts). */
export const policyFilters = filterFields(POLICY_TABLE)

/** A device bound to a policy (GET /policies/{id}/devices). */
export const PolicyDevice = responseSchema(
  POLICY_DEVICE_TABLE,
  'id deviceID deviceName deviceTypeLabel',
)

export const policyDeviceFilters = filterFields(POLICY_DEVICE_TABLE)

/** A device that can still be bound (GET /platform_select/policies/{id}/not_joined_devices). */
export const PolicyCandidateDevice = responseSchema(
  POLICY_CANDIDATE_TABLE,
  'id deviceName productName',
)

export const policyCandidateFilters = filterFields(POLICY_CANDIDATE_TABLE)

const idList = (what: string) =>
  z
    .array(intID, { error: `required, an array of ${what} ids` })
    .min(1, { error: `at least one ${what} id` })
    .max(1000, { error: 'at most 1000 ids' })
    .transform((ids) => [...new Set(ids)])

/** Bind devices to a policy: one or more device ids. */
export const PolicyDevicesBind = z.object({ devicesIntID: idList('device') })
annotate(PolicyDevicesBind, { examples: [{ devicesIntID: [1] }] })

/** Bind policies to a device: one or more policy ids. */
export const DevicePoliciesBind = z.object({ ids: idList('policy') })
annotate(DevicePoliciesBind, { examples: [{ ids: [1] }] })

export type PolicyCreate = z.infer<typeof PolicyCreate>
export type PolicyUpdate = z.infer<typeof PolicyUpdate>
