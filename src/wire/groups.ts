import { GROUP_MEMBER_TABLE, GROUP_TABLE } from '../../store/fields/products.ts'
import type { MembersAdded } from '../../store/types.ts'
import { Group, GroupDevice, GroupDevicesAdded, GroupListItem } from '../schemas/groups.ts'
import { recordSerializer, tableSerializer } from './shape.ts'

/** Answer of adding members (shared by both variants). */
export const groupAddedWire = recordSerializer<MembersAdded>()({ added: GroupDevicesAdded }, {})

export const groupWire = {
  ...tableSerializer(GROUP_TABLE, { detail: Group, list: GroupListItem }),
  ...groupAddedWire,
}

/** Members of a group: `statusLabel` uses the same enumeration as `deviceStatusLabel`. */
export const groupDeviceWire = tableSerializer(GROUP_MEMBER_TABLE, { list: GroupDevice })
