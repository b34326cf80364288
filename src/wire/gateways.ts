import { GATEWAY_TABLE, type GatewayRecord } from '../../store/fields/devices.ts'
import { Gateway, GatewayListItem } from '../schemas/gateways.ts'
import { recordSerializer, wireSpecOf } from './shape.ts'

/** Gateway forms: detail and list, over the records the gateway repository answers. */
export const gatewayWire = recordSerializer<GatewayRecord>()(
  { detail: Gateway, list: GatewayListItem },
  wireSpecOf(GATEWAY_TABLE, { secret: ['token'] }),
)
