import { z } from 'zod'
import { enumCode, name, annotate, responseSchema } from './common.ts'
import { connectionDocs, credentialFields, describedFields, describedText } from './devices.ts'
import { GATEWAY_TABLE } from '../../store/fields/devices.ts'
import { filterFields } from '../../store/fields/table.ts'

const docs = connectionDocs('gateway')

/** Gateway: every field (deviceCount is list only, createUser detail only). */
const GatewayFields = responseSchema(
  GATEWAY_TABLE,
  [
    'id gatewayName deviceID deviceUsername token authType authTypeLabel blocked deviceStatus',
    'deviceStatusLabel lastSeenAt deviceCount gatewayProtocol gatewayProtocolLabel upLinkNetwork',
    'upLinkNetworkLabel upLinkProtocol upLinkProtocolLabel mac productID productName',
  ],
  docs,
)
  .extend(describedText)
  .extend(
    responseSchema(
      GATEWAY_TABLE,
      [
        'location deviceConsoleIP deviceConsolePort deviceConsoleUsername',
        'createUser userIntID createAt updateAt',
      ],
      docs,
    ).shape,
  )

export const Gateway = GatewayFields.omit({ deviceCount: true })
export const GatewayListItem = GatewayFields.omit({ createUser: true })

/** A MAC address: six hex pairs separated by `:` or `-`. */
export const MAC_PATTERN = /^[0-9A-Fa-f]{2}([:-])(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}$/

/**
 * Create a gateway. The gateway is stored with devices
 * (kind 'gateway'), so its credentials work like a device's.
 */
export const GatewayCreate = z.object({
  gatewayName: name(50),
  productID: name(64),
  gatewayProtocol: enumCode('gatewayProtocol'),
  upLinkNetwork: enumCode('upLinkNetwork').nullish(),
  upLinkProtocol: enumCode('upLinkProtocol').nullish(),
  ...credentialFields,
  authType: enumCode('authType'),
  blocked: enumCode('blocked').optional(),
  mac: z
    .string({ error: 'must be a MAC address' })
    .regex(MAC_PATTERN, { error: 'must be a MAC address like 00:1A:2B:3C:4D:5E' })
    .nullish(),
  ...describedFields,
})
annotate(GatewayCreate, {
  examples: [
    {
      gatewayName: 'gateway-1',
      productID: 'pT8kZ3wQ',
      gatewayProtocol: 1,
      authType: 1,
      upLinkNetwork: 4,
      mac: '00:1A:2B:3C:4D:5E',
    },
  ],
})

export const GatewayUpdate = GatewayCreate.partial()

/** List filters (and sort keys) of gateways: the field table's. */
export const gatewayFilters = filterFields(GATEWAY_TABLE)

export type GatewayCreate = z.infer<typeof GatewayCreate>
export type GatewayUpdate = z.infer<typeof GatewayUpdate>
