/**
 * The API shapes (API_VARIANT A and B) as the parameterised suites see them: per variant, the bodies to send and
 * where to read a field, so one suite runs under both.
 */
import * as assert from 'uvu/assert'
import type { Client } from '../../_support/service.ts'

export const variants = ['A', 'B'] as const
export type Variant = (typeof variants)[number]

let seq = 0
export const uniq = (prefix: string) => `${prefix}-${++seq}-${Date.now().toString(36)}`

type Body = Record<string, unknown>

/** How one variant spells the resources the suites touch. */
export interface VariantKit {
  v: Variant
  /** The service settings of the variant. */
  env: Record<string, string>
  /** A product body (an MQTT product). */
  productBody(extra?: Body): Body
  /** A terminal on the cloud, authenticated by token. */
  deviceBody(productID: string, extra?: Body): Body
  /** A terminal hanging off gateway `gateway` (its record id). */
  childBody(productID: string, gateway: number, extra?: Body): Body
  /** Creates a gateway of the product and answers its record (id and credentials). */
  newGateway(c: Client, productID: string): Promise<any>
  groupBody(productID: string, extra?: Body): Body
  /** The fields a create without a body names. */
  requiredDeviceFields: string[]
  requiredProductFields: string[]
  requiredGroupFields: string[]
  /** The run status of a device record (0 offline, 1 online). */
  statusOf(device: any): number
  /** The status of a connection log (0 offline, 1 online, 2 authentication failed). */
  connectStatusOf: (log: any) => number
  /** The name of that status field (also its list filter). */
  connectStatusField: string
  /** The deviceType code of a terminal. */
  terminal: number
  /** A device record's location as written by `location('Room 7')`. */
  location(text: string): unknown
}

const A: VariantKit = {
  v: 'A',
  env: {},
  productBody: (extra = {}) => ({ productName: uniq('prod'), cloudProtocol: 1, ...extra }),
  deviceBody: (productID, extra = {}) => ({
    productID,
    deviceName: uniq('dev'),
    deviceType: 1,
    upLinkSystem: 1,
    cloudProtocol: 1,
    authType: 1,
    ...extra,
  }),
  childBody: (productID, gateway, extra = {}) => ({
    ...A.deviceBody(productID),
    upLinkSystem: 2,
    gateway,
    ...extra,
  }),
  async newGateway(c, productID) {
    const r = await c.post('/api/v1/gateways', {
      gatewayName: uniq('gw'),
      productID,
      gatewayProtocol: 1,
      authType: 1,
    })
    assert.is(r.status, 201, r.text)
    return r.body
  },
  groupBody: (productID, extra = {}) => ({ productID, groupName: uniq('grp'), ...extra }),
  requiredDeviceFields: ['cloudProtocol', 'deviceName', 'deviceType', 'productID'],
  requiredProductFields: ['cloudProtocol', 'productName'],
  requiredGroupFields: ['groupName', 'productID'],
  statusOf: (d) => d.deviceStatus,
  connectStatusOf: (l) => l.connectStatus,
  connectStatusField: 'connectStatus',
  terminal: 1,
  location: (text) => ({ place: text }),
}

const B: VariantKit = {
  v: 'B',
  env: { API_VARIANT: 'B' },
  productBody: (extra = {}) => ({ productName: uniq('prod'), description: 'a product', ...extra }),
  deviceBody: (productID, extra = {}) => ({
    productID,
    deviceName: uniq('dev'),
    deviceType: 0,
    authType: 1,
    ...extra,
  }),
  childBody: (productID, gateway, extra = {}) => ({
    ...B.deviceBody(productID),
    gateway,
    ...extra,
  }),
  async newGateway(c, productID) {
    const r = await c.post('/api/v1/devices', {
      deviceName: uniq('gw'),
      productID,
      deviceType: 1,
      authType: 1,
    })
    assert.is(r.status, 201, r.text)
    return r.body
  },
  groupBody: (productID, extra = {}) => ({
    productID,
    groupName: uniq('grp'),
    description: 'a group',
    ...extra,
  }),
  requiredDeviceFields: ['authType', 'deviceName', 'deviceType', 'productID'],
  requiredProductFields: ['description', 'productName'],
  requiredGroupFields: ['description', 'groupName', 'productID'],
  statusOf: (d) => d.status,
  connectStatusOf: (l) => l.deviceStatus,
  connectStatusField: 'deviceStatus',
  terminal: 0,
  location: (text) => text,
}

export const kits: Record<Variant, VariantKit> = { A, B }

/** Creates through `path` and answers the record (asserts 201). */
export async function created(c: Client, path: string, body: Body): Promise<any> {
  const r = await c.post(path, body)
  assert.is(r.status, 201, r.text)
  return r.body
}
