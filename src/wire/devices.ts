import { DEVICE_TABLE, type DeviceRecord } from '../../store/fields/devices.ts'
import { Device, DeviceListItem, DeviceWrite } from '../schemas/devices.ts'
import { recordSerializer, wireSpecOf } from './shape.ts'

/** Device forms: detail, list, and write (create/edit answers, without labels), over stored records. */
export const deviceWire = recordSerializer<DeviceRecord>()(
  { detail: Device, list: DeviceListItem, write: DeviceWrite },
  wireSpecOf(DEVICE_TABLE, { secret: ['token'] }),
)
