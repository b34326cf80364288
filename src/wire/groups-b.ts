import {
  GROUP_MEMBER_TABLE,
  GROUP_TABLE,
  type GroupMemberRecord,
  type GroupRecord,
} from '../../store/fields/products.ts'
import { Group, GroupDevice, GroupListItem } from '../schemas/groups-b.ts'
import { deviceTypeB } from '../services/device-access-b.ts'
import type { DeviceRefs } from '../services/members-b.ts'
import { groupAddedWire } from './groups.ts'
import { recordSerializer, wireSpecOf, type WireCtx } from './shape.ts'

/** Group forms of Variant B; `devices` comes from src/services/members-b.ts. */
export const groupWire = {
  ...recordSerializer<GroupRecord & Partial<DeviceRefs>>()(
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
