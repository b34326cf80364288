/** Variant B of groups: `devices` as `[{id}]`, `userIntID`, description required; members in the device shape. */
import { z } from 'zod'
import { annotate, name, Int, Label, NullableInt, Str, Timestamp } from '../../schemas/common.ts'
import * as A from '../../schemas/groups.ts'
import { DeviceRefs } from './products.ts'

/** Group detail (Variant B): Variant A's with `devices` and `userIntID` in place of `deviceCount`. */
const { deviceCount: _count, createUser, createAt, updateAt, ...head } = A.Group.shape
export const Group = z.object({
  ...head,
  devices: DeviceRefs,
  userIntID: NullableInt,
  createUser,
  createAt,
  updateAt,
})

/** Group in a list: createUser is detail only. */
export const GroupListItem = Group.omit({ createUser: true })

/** Create (Variant B): productID, groupName and description required. */
export const GroupCreate = A.GroupCreate.extend({ description: name(300) })
annotate(GroupCreate, {
  examples: [
    { productID: 'pT8kZ3wQ', groupName: 'Floor 1', description: 'Thermometers of floor 1' },
  ],
})

/** Edit: the whole record as read may come back; productID may change only while the group is empty. */
export const GroupUpdate = GroupCreate.partial()

/** Filters: groupName_like, groupID_like (and their exact forms), productID, description. */
export const groupFilters = A.groupFilters

/** A member of a group: the Variant B device list form. */
export const GroupDevice = z.object({
  id: Int,
  deviceID: Str,
  deviceName: Str,
  deviceType: Int,
  deviceTypeLabel: Label,
  status: Int,
  statusLabel: Label,
  productID: Str,
  productName: Str,
  createAt: Timestamp,
})
