import { DEVICE_TABLE } from '../../store/fields/devices.ts'
import { jsonFields, labelFields, timeFields } from '../../store/fields/table.ts'
import type { EnumName } from '../enums.ts'
import { Device, DeviceListItem, DeviceWrite } from '../schemas/devices.ts'
import { createSerializer } from './shape.ts'

/** Device forms: detail, list, and write (create/edit answers, without labels). */
export const deviceWire = createSerializer(
  { detail: Device, list: DeviceListItem, write: DeviceWrite },
  {
    labels: labelFields(DEVICE_TABLE) as Record<string, EnumName>,
    times: timeFields(DEVICE_TABLE),
    secret: ['token'],
    json: jsonFields(DEVICE_TABLE),
  },
)
