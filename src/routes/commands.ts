import type { z } from 'zod'
import type { Deps } from '../deps.ts'
import type { ShapesA } from '../wire/shapes.ts'
import { ApiError } from '../errors.ts'
import { Router } from '../http/router.ts'
import { actorOf, wireCtx } from '../http/env.ts'

const tag = 'Commands'
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,64}$/

type CommandsA = ShapesA['commands']

/**
 * The commands of one variant: Variant A's forms, but for the bodies naming the device and the group, which a
 * variant may take its own way as long as what they validate is a Variant A body (the command service's input).
 */
export type CommandVariant = Omit<CommandsA, 'DevicePublish' | 'GroupPublish'> & {
  DevicePublish: z.ZodType<z.output<CommandsA['DevicePublish']>>
  GroupPublish: z.ZodType<z.output<CommandsA['GroupPublish']>>
}

export function commandRoutes({ services }: Deps, v: CommandVariant) {
  const {
    DevicePublish,
    PublishAnswer,
    GroupPublish,
    GroupPublishAnswer,
    CancelQuery,
    commandWire,
  } = v
  const r = new Router()

  r.typed(
    {
      method: 'post',
      path: '/device_publish',
      tag,
      summary: 'Send a command to a device',
      description:
        'The command is stored before it is published, as `{"data_type":"request","task_id":…,"data":<payload>}` ' +
        'on `topic` (default `inbox`) with `qos` (default 1). `timeout` (s): how long to wait for the PUBACK; ' +
        '`ttl` (s): an offline device gets it on its next connection (otherwise it is `unsent`); `wait` (s): ' +
        'answer once it is delivered, answered or final. `Idempotency-Key` (1-64 characters): a retry within ' +
        '24 h answers the first answer. A blocked device: 422; unknown: 404.',
      body: DevicePublish,
      response: PublishAnswer,
      status: 201,
    },
    async (c, { body }) => {
      const key = c.req.header('idempotency-key')
      if (key !== undefined && !IDEMPOTENCY_KEY.test(key))
        throw new ApiError('PARAMETER_INVALID', {
          'Idempotency-Key': '1 to 64 printable characters',
        })
      const answer = await services.commands.publish(actorOf(c), body, key)
      return c.json(commandWire.answer(answer, wireCtx(c)), 201)
    },
  )

  r.typed(
    {
      method: 'delete',
      path: '/device_publish',
      tag,
      summary: 'Cancel queued commands (?taskIDs=a,b); a command past queued is left as it is',
      query: CancelQuery,
      status: 204,
    },
    async (c, { query }) => {
      await services.commands.cancel(actorOf(c), query.taskIDs)
      return c.body(null, 204)
    },
  )

  r.typed(
    {
      method: 'post',
      path: '/group_publish',
      tag,
      summary: 'Send a command to every device of a group (a task)',
      description:
        '`needAck` 1 (default): one command per member (each in the device control logs), paced by ' +
        '`ratePerSecond`; the task (`statusUrl`) reports {total, delivered, succeeded, failed, pending}. ' +
        '`needAck` 0: one QoS 0 publish to the group topic `group/{groupID}` (members are subscribed to it).',
      body: GroupPublish,
      response: GroupPublishAnswer,
      status: 201,
    },
    async (c, { body }) => c.json(await services.commands.toGroup(actorOf(c), body), 201),
  )

  return r
}
