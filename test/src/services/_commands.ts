import * as assert from 'uvu/assert'
import type { Client } from '../../_support/service.ts'
import type { Wire } from '../../_support/wire.ts'
import type { PublishAnswer } from '../../../src/schemas/commands.ts'

/** Queues a command for a device that is offline (one `command.status` event): asserts 201, answers its taskID. */
export async function queueCommand(c: Client, deviceID: string) {
  const r = await c.post<Wire<typeof PublishAnswer>>('/api/v1/device_publish', {
    deviceID,
    payload: 'x',
    ttl: 600,
  })
  assert.is(r.status, 201, r.text)
  return r.body.taskID
}
