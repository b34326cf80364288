import {
  GROUP_MEMBER_TABLE,
  GROUP_TABLE,
  type GroupMemberRecord,
  type GroupRecord,
} from '../../../store/fields/products.ts'
import { Group, GroupDevice, GroupListItem } from '../schemas/groups.ts'
import { deviceTypeB } from './devices.ts'
import { groupAddedWire } from '../../wire/groups.ts'
import type { DeviceRefs } from './products.ts'
import { recordSerializer, wireSpecOf, type WireCtx } from '../../wire/shape.ts'

/** A group as Variant B answers it: with its members' record ids. */
export type GroupRecordB = GroupRecord & DeviceRefs

/** Group forms of Variant B (the refs come from src/variant-b/http/members.ts). */
export const groupWire = {
  ...recordSerializer<GroupRecordB>()(
    { detail: Group, list: GroupListItem },
    wireSpecOf(GROUP_TABLE),
  ),
  ...groupAddedWire,
}

const members = recordSerializer<GroupMemberRecord>()(
  { list: GroupDevice },
  wireSpecOf(GROUP_MEMBER_TABLE, {
    labels: { deviceType: 'deviceTypeVariantB', status: 'deviceStatus' },
  }),
)

/** Members of a group (stored device rows) in Variant B's device shape. */
export const groupDeviceWire = {
  list: (record: GroupMemberRecord, ctx: WireCtx) =>
    members.list({ ...record, deviceType: deviceTypeB(record), status: record.deviceStatus }, ctx),
}
