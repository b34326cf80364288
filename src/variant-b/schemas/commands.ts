/**
 * Variant B of commands: the device by deviceID (required), `topic` optional (the device's `inbox`); the group by
 * groupID (required) with `needAck` (0: one publish to the group topic; 1, the default: one command per device).
 */
import { z } from 'zod'
import { annotate } from '../../schemas/common.ts'
import {
  DevicePublish as DevicePublishA,
  GroupPublish as GroupPublishA,
} from '../../schemas/commands.ts'
import { COMMAND_EXCHANGE } from '../../schemas/device-payloads.ts'

const id = z
  .string({ error: 'required, a string' })
  .min(1, { error: 'must not be empty' })
  .max(64, { error: 'at most 64 characters' })

const { deviceIntID: _device, ...deviceShape } = DevicePublishA.shape
const { groupIntID: _group, ...groupShape } = GroupPublishA.shape

export const DevicePublish = z.object({ ...deviceShape, deviceID: id })
annotate(DevicePublish, {
  description: COMMAND_EXCHANGE,
  examples: [{ deviceID: 'thermometer-1', payload: { led: 'on' }, qos: 1, timeout: 30, ttl: 600 }],
})

export const GroupPublish = z.object({ ...groupShape, groupID: id })
annotate(GroupPublish, {
  description: `Each member gets the command as one device does (needAck 1). ${COMMAND_EXCHANGE}`,
  examples: [{ groupID: 'floor-1', payload: { led: 'off' }, needAck: 1 }],
})
