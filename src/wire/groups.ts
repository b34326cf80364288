import { Group, GroupDevice, GroupDevicesAdded, GroupListItem } from '../schemas/groups.ts'
import { createSerializer } from './shape.ts'

export const groupWire = createSerializer(
  { detail: Group, list: GroupListItem, added: GroupDevicesAdded },
  { times: ['createAt', 'updateAt'] },
)

/** Members of a group: `statusLabel` uses the same enumeration as `deviceStatusLabel`. */
export const groupDeviceWire = createSerializer(
  { list: GroupDevice },
  {
    labels: { deviceType: 'deviceType', deviceStatus: 'deviceStatus', status: 'deviceStatus' },
    times: ['createAt'],
  },
)
