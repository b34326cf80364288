import { GroupDevicesAdded } from '../schemas/groups.ts'
import { Group, GroupDevice, GroupListItem } from '../schemas/groups-b.ts'
import { deviceTypeB } from '../services/device-access-b.ts'
import { createSerializer, type Row, type WireCtx } from './shape.ts'

/** Group forms of Variant B; `devices` comes from src/services/members-b.ts. */
export const groupWire = createSerializer(
  { detail: Group, list: GroupListItem, added: GroupDevicesAdded },
  { times: ['createAt', 'updateAt'] },
)

const members = createSerializer(
  { list: GroupDevice },
  {
    labels: { deviceType: 'deviceTypeVariantB', status: 'deviceStatus' },
    times: ['createAt'],
  },
)

/** Members of a group (stored device rows) in Variant B's device shape. */
export const groupDeviceWire = {
  list: (record: object, ctx: WireCtx): Row => {
    const row = record as Row
    return members.list({ ...row, deviceType: deviceTypeB(row), status: row.deviceStatus }, ctx)
  },
}
