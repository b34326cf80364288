import { GATEWAY_TABLE } from '../../store/fields/devices.ts'
import { Gateway, GatewayListItem } from '../schemas/gateways.ts'
import { tableSerializer } from './shape.ts'

/** Gateway forms: detail and list, over the records the gateway repository answers. */
export const gatewayWire = tableSerializer(
  GATEWAY_TABLE,
  { detail: Gateway, list: GatewayListItem },
  { secret: ['token'] },
)
