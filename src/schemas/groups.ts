import { z } from 'zod'
import { intID, name, text, Int, Str, annotate, likeText, responseSchema } from './common.ts'
import { GROUP_MEMBER_TABLE, GROUP_TABLE } from '../../store/fields/products.ts'
import { filterFields, requestSchema } from '../../store/fields/table.ts'
import { enumDoc } from '../enums.ts'

/** Group detail. */
export const Group = responseSchema(
  GROUP_TABLE,
  'id groupID groupName description productID productName deviceCount createUser createAt updateAt',
)

/** Group in a list: createUser is detail only. */
export const GroupListItem = Group.omit({ createUser: true })

export const GroupCreate = requestSchema(GROUP_TABLE, {
  productID: name(64),
  groupName: name(50),
  description: text(300),
})
annotate(GroupCreate, {
  examples: [
    { productID: 'pT8kZ3wQ', groupName: 'Floor 1', description: 'Thermometers of floor 1' },
  ],
})

/** Edit: the whole record as read may come back; productID may change only while the group is empty. */
export const GroupUpdate = GroupCreate.partial()

/** List filters: groupName, groupID, productID, description (store/fields/products.ts). */
export const groupFilters = filterFields(GROUP_TABLE)

/** Add devices to a group (POST /groups/{id}/devices). */
export const GroupDevicesAdd = z.object({
  ids: z
    .array(intID, { error: 'required, an array of device ids' })
    .min(1, { error: 'must not be empty' })
    .max(1000, { error: 'at most 1000 ids' })
    .transform((ids) => [...new Set(ids)]),
})
annotate(GroupDevicesAdd, { examples: [{ ids: [1] }] })

/** Answer of adding devices: how many were new, and the members now. */
export const GroupDevicesAdded = z.object({
  groupIntID: Int,
  groupID: Str,
  added: Int,
  deviceCount: Int,
})

/** A member of a group: device fields plus `status`/`statusLabel` (the same value as deviceStatus). */
export const GroupDevice = responseSchema(
  GROUP_MEMBER_TABLE,
  [
    'id deviceID deviceName deviceType deviceTypeLabel deviceStatus deviceStatusLabel status',
    'statusLabel productID productName createAt',
  ],
  { status: Int.meta(enumDoc('deviceStatus')) },
)

export const groupDeviceFilters = filterFields(GROUP_MEMBER_TABLE)

/** platform_select option: a device of the group's product not yet in the group. */
export const SelectOption = z.object({ label: Str, value: Int })

export const NotJoinedDevicesQuery = z.object({ deviceName_like: likeText() })

export type GroupCreate = z.infer<typeof GroupCreate>
export type GroupUpdate = z.infer<typeof GroupUpdate>
