import { DEVICE_TABLE } from '../../store/fields/devices.ts'
import { Device, DeviceListItem, DeviceWrite } from '../schemas/devices.ts'
import { tableSerializer } from './shape.ts'

/** Device forms: detail, list, and write (create/edit answers, without labels), over stored records. */
export const deviceWire = tableSerializer(
  DEVICE_TABLE,
  { detail: Device, list: DeviceListItem, write: DeviceWrite },
  { secret: ['token'] },
)
