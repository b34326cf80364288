import { z } from 'zod'
import { CommandPayload, intID, intIn, Int, Label, NullableStr, Qos, Str } from './common.ts'
import { COMMAND_EXCHANGE } from './device-payloads.ts'

const topic = z
  .string({ error: 'must be a string' })
  .min(1, { error: 'must not be empty' })
  .max(255, { error: 'at most 255 characters' })

/** What every command takes beside its target. */
const commandFields = {
  payload: CommandPayload,
  topic: topic.optional(),
  qos: Qos.optional(),
  timeout: intIn(1, 3600).optional(),
  ttl: intIn(0, 604_800).optional(),
}

/** `POST /device_publish`: the device by deviceID and/or deviceIntID. */
export const DevicePublish = z
  .object({
    deviceID: z.string({ error: 'must be a string' }).min(1).max(64).optional(),
    deviceIntID: intID.optional(),
    ...commandFields,
    wait: intIn(0, 60).optional(),
  })
  .refine((b) => b.deviceID !== undefined || b.deviceIntID !== undefined, {
    error: 'deviceID or deviceIntID is required',
    path: ['deviceID'],
    when: (p) => typeof p.value === 'object' && p.value !== null, // named with the other failing fields
  })
  .meta({
    description: COMMAND_EXCHANGE,
    examples: [{ deviceIntID: 1, payload: { led: 'on' }, qos: 1, timeout: 30 }],
  })
  .meta({ anyOf: [{ required: ['deviceID'] }, { required: ['deviceIntID'] }] })

export const PublishAnswer = z.object({
  publishStatus: Int,
  publishStatusLabel: Label,
  taskID: Str,
  commandStatus: Str,
  commandStatusLabel: Label,
  statusReason: NullableStr.meta({
    description:
      'why the command is unsent (device offline, no ttl; device blocked), or expired, timed out or canceled ' +
      'by the time it answers (docs/commands.md); null otherwise',
  }),
})

/** `POST /group_publish`: the group by groupID and/or groupIntID. */
export const GroupPublish = z
  .object({
    groupID: z.string({ error: 'must be a string' }).min(1).max(64).optional(),
    groupIntID: intID.optional(),
    ...commandFields,
    needAck: z.union([z.literal(0), z.literal(1)], { error: 'must be 0 or 1' }).optional(),
    ratePerSecond: intIn(1, 100_000).optional(),
  })
  .refine((b) => b.groupID !== undefined || b.groupIntID !== undefined, {
    error: 'groupID or groupIntID is required',
    path: ['groupID'],
    when: (p) => typeof p.value === 'object' && p.value !== null,
  })
  .meta({
    anyOf: [{ required: ['groupID'] }, { required: ['groupIntID'] }],
    description: `Each member gets the command as one device does (needAck 1). ${COMMAND_EXCHANGE}`,
    examples: [{ groupIntID: 1, payload: { led: 'off' }, needAck: 1, ratePerSecond: 100 }],
  })

export const GroupPublishAnswer = z.object({ statusUrl: Str, taskID: Str })

/** `DELETE /device_publish?taskIDs=a,b`. */
export const CancelQuery = z.object({
  taskIDs: z
    .string({ error: 'required: taskIDs separated by commas' })
    .regex(/^[\w-]{1,64}(,[\w-]{1,64}){0,999}$/, { error: 'taskIDs separated by commas' })
    .transform((s) => [...new Set(s.split(','))]),
})

/** `GET /ingest/commands?wait=`: seconds to wait for a command (0 to 30). */
export const PollQuery = z.object({
  wait: z
    .preprocess((v) => (typeof v === 'string' && /^\d{1,2}$/.test(v) ? Number(v) : v), intIn(0, 30))
    .optional(),
})

export const PolledCommands = z.object({
  items: z.array(z.object({ taskID: Str, topic: Str, payload: Str })),
})

export type DevicePublish = z.infer<typeof DevicePublish>
export type GroupPublish = z.infer<typeof GroupPublish>
