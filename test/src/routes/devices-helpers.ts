import type { Client } from '../../_support/service.ts'
import type { Wire } from '../../_support/wire.ts'
import type { DeviceWrite } from '../../../src/schemas/devices.ts'
import type { Gateway } from '../../../src/schemas/gateways.ts'
import type { Product } from '../../../src/schemas/products.ts'

let seq = 0
export const uniq = (prefix: string) => `${prefix}-${++seq}-${Date.now().toString(36)}`

export { TIME } from '../../_support/asserts.ts'

/** A device as its create answers it: with its token, which only viewers read as null (and they cannot create). */
export type NewDevice = Wire<typeof DeviceWrite> & { token: string }

/** A gateway as its create answers it, token included (as NewDevice). */
export type NewGateway = Wire<typeof Gateway> & { token: string }

/** Creates a product with that cloud protocol and returns its record. */
export async function newProduct(c: Client, cloudProtocol = 1) {
  const r = await c.post<Wire<typeof Product>>('/api/v1/products', {
    productName: uniq('prod'),
    cloudProtocol,
  })
  if (r.status !== 201) throw new Error(`product create failed: ${r.text}`)
  return r.body
}

/** Creates a gateway on `productID` and returns its record. */
export async function newGateway(
  c: Client,
  productID: string,
  extra: Record<string, unknown> = {},
) {
  const r = await c.post<NewGateway>('/api/v1/gateways', {
    gatewayName: uniq('gw'),
    productID,
    gatewayProtocol: 7,
    authType: 1,
    ...extra,
  })
  if (r.status !== 201) throw new Error(`gateway create failed: ${r.text}`)
  return r.body
}

/** A valid body of an MQTT terminal on the cloud. */
export const mqttBody = (productID: string, extra: Record<string, unknown> = {}) => ({
  productID,
  deviceName: uniq('dev'),
  deviceType: 1,
  upLinkSystem: 1,
  cloudProtocol: 1,
  authType: 1,
  ...extra,
})

/** Creates a device from `body` and returns its record, as a create answers it (throws unless 201). */
export async function newDevice(c: Client, body: Record<string, unknown>) {
  const r = await c.post<NewDevice>('/api/v1/devices', body)
  if (r.status !== 201) throw new Error(`device create failed: ${r.status} ${r.text}`)
  return r.body
}
