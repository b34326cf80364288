/**
 * Variant B of commands: the device by deviceID (required), `topic` optional (the device's `inbox`); the group by
 * groupID (required) with `needAck` (0: one publish to the group topic; 1, the default: one command per device).
 */
import { z } from 'zod'
import { DevicePublish as DevicePublishA, GroupPublish as GroupPublishA } from './commands.ts'

const id = z
  .string({ error: 'required, a string' })
  .min(1, { error: 'must not be empty' })
  .max(64, { error: 'at most 64 characters' })

const { deviceIntID: _device, ...deviceShape } = DevicePublishA.shape
const { groupIntID: _group, ...groupShape } = GroupPublishA.shape

export const DevicePublish = z.object({ ...deviceShape, deviceID: id })

export const GroupPublish = z.object({ ...groupShape, groupID: id })
