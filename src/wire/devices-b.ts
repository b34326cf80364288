import { Device, DeviceListItem, DeviceWrite } from '../schemas/devices-b.ts'
import { createSerializer } from './shape.ts'

/** Device forms of Variant B over the rows its device access answers (src/services/device-access-b.ts). */
export const deviceWire = createSerializer(
  { detail: Device, list: DeviceListItem, write: DeviceWrite },
  {
    labels: { authType: 'authType', deviceType: 'deviceTypeVariantB', status: 'deviceStatus' },
    times: ['connectedAt', 'lastSeenAt', 'createAt', 'updateAt'],
    secret: ['token'],
  },
)
