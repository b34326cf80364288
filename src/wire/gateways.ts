import { GATEWAY_TABLE } from '../../store/fields/devices.ts'
import { jsonFields, labelFields, timeFields } from '../../store/fields/table.ts'
import type { EnumName } from '../enums.ts'
import { Gateway, GatewayListItem } from '../schemas/gateways.ts'
import { createSerializer } from './shape.ts'

/** Gateway forms: detail and list. */
export const gatewayWire = createSerializer(
  { detail: Gateway, list: GatewayListItem },
  {
    labels: labelFields(GATEWAY_TABLE) as Record<string, EnumName>,
    times: timeFields(GATEWAY_TABLE),
    secret: ['token'],
    json: jsonFields(GATEWAY_TABLE),
  },
)
