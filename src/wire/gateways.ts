import { Gateway, GatewayListItem } from '../schemas/gateways.ts'
import { createSerializer } from './shape.ts'

export const gatewayWire = createSerializer(
  { detail: Gateway, list: GatewayListItem },
  {
    labels: {
      authType: 'authType',
      deviceStatus: 'deviceStatus',
      gatewayProtocol: 'gatewayProtocol',
      upLinkNetwork: 'upLinkNetwork',
      upLinkProtocol: 'upLinkProtocol',
    },
    times: ['createAt', 'updateAt'],
    json: ['location'],
  },
)
