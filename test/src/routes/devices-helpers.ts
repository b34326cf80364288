import type { Client } from '../../_support/service.ts'

let seq = 0
export const uniq = (prefix: string) => `${prefix}-${++seq}-${Date.now().toString(36)}`

export const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/

/** Creates a product with that cloud protocol and returns its record. */
export async function newProduct(c: Client, cloudProtocol = 1): Promise<any> {
  const r = await c.post('/api/v1/products', { productName: uniq('prod'), cloudProtocol })
  if (r.status !== 201) throw new Error(`product create failed: ${r.text}`)
  return r.body
}

/** Creates a gateway on `productID` and returns its record. */
export async function newGateway(
  c: Client,
  productID: string,
  extra: Record<string, unknown> = {},
): Promise<any> {
  const r = await c.post('/api/v1/gateways', {
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

/** Creates a device from `body` and returns its record (throws unless 201). */
export async function newDevice(c: Client, body: Record<string, unknown>): Promise<any> {
  const r = await c.post('/api/v1/devices', body)
  if (r.status !== 201) throw new Error(`device create failed: ${r.status} ${r.text}`)
  return r.body
}
