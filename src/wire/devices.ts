import { Device, DeviceListItem, DeviceWrite } from '../schemas/devices.ts'
import { createSerializer } from './shape.ts'

/** Device forms: detail, list, and write (create/edit answers, without labels: spec Devices › create). */
export const deviceWire = createSerializer(
  { detail: Device, list: DeviceListItem, write: DeviceWrite },
  {
    labels: {
      authType: 'authType',
      deviceStatus: 'deviceStatus',
      deviceType: 'deviceType',
      upLinkSystem: 'upLinkSystem',
      cloudProtocol: 'cloudProtocol',
      carrier: 'carrier',
      physicalNetwork: 'physicalNetwork',
    },
    times: ['connectedAt', 'createAt', 'updateAt'],
    json: ['location', 'lora', 'metaData', 'scopes'],
  },
)
