import {
  GROUP_MEMBER_TABLE,
  GROUP_TABLE,
  type GroupMemberRecord,
  type GroupRecord,
} from '../../store/fields/products.ts'
import type { MembersAdded } from '../../store/types.ts'
import { Group, GroupDevice, GroupDevicesAdded, GroupListItem } from '../schemas/groups.ts'
import { recordSerializer, wireSpecOf } from './shape.ts'

/** Answer of adding members (shared by both variants). */
export const groupAddedWire = recordSerializer<MembersAdded>()({ added: GroupDevicesAdded }, {})

export const groupWire = {
  ...recordSerializer<GroupRecord>()(
    { detail: Group, list: GroupListItem },
    wireSpecOf(GROUP_TABLE),
  ),
  ...groupAddedWire,
}

/** Members of a group: `statusLabel` uses the same enumeration as `deviceStatusLabel`. */
export const groupDeviceWire = recordSerializer<GroupMemberRecord>()(
  { list: GroupDevice },
  wireSpecOf(GROUP_MEMBER_TABLE),
)
