import { Device, DeviceListItem, DeviceWrite } from '../schemas/devices-b.ts'
import type { DeviceRecordB } from '../services/device-access-b.ts'
import { recordSerializer } from './shape.ts'

/** Device forms of Variant B over the records its device access answers (src/services/device-access-b.ts). */
export const deviceWire = recordSerializer<DeviceRecordB>()(
  { detail: Device, list: DeviceListItem, write: DeviceWrite },
  {
    labels: { authType: 'authType', deviceType: 'deviceTypeVariantB', status: 'deviceStatus' },
    times: ['connectedAt', 'lastSeenAt', 'createAt', 'updateAt'],
    secret: ['token'],
  },
)
