/**
 * The API shapes (API_VARIANT A and B) as the parameterised suites see them: per variant, the bodies to send and
 * where to read a field, so one suite runs under both.
 */
import * as assert from 'uvu/assert'
import type { Client } from '../../_support/service.ts'
import type { Wire } from '../../_support/wire.ts'
import type { Group } from '../../../src/schemas/groups.ts'
import type { Policy } from '../../../src/schemas/policies.ts'
import type { Product } from '../../../src/schemas/products.ts'
import type * as DevicesB from '../../../src/variant-b/schemas/devices.ts'
import type * as GroupsB from '../../../src/variant-b/schemas/groups.ts'
import type * as ProductsB from '../../../src/variant-b/schemas/products.ts'
import { mqttBody, uniq, type NewDevice, type NewGateway } from './devices-helpers.ts'

export const variants = ['A', 'B'] as const
export type Variant = (typeof variants)[number]

export { uniq }

type Body = Record<string, unknown>

/** What every variant's new gateway holds: its record id and credentials. */
export interface GatewayRecord {
  id: number
  deviceID: string
  deviceUsername: string
  token: string
}

/**
 * A Variant B device as its create answers it: token included (as NewDevice). Its gateways are devices too (of
 * deviceType 1).
 */
export type DeviceB = Wire<typeof DevicesB.DeviceWrite> & { token: string }

/** What a create answers at each path the suites create through, in either variant's form. */
export interface Created {
  '/api/v1/products': Wire<typeof Product> | Wire<typeof ProductsB.Product>
  '/api/v1/devices': NewDevice | DeviceB
  '/api/v1/groups': Wire<typeof Group> | Wire<typeof GroupsB.Group>
  '/api/v1/policies': Wire<typeof Policy>
}

/** How one variant spells the resources the suites touch; `G` is its gateway record. */
export interface VariantKit<G extends GatewayRecord = GatewayRecord> {
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
  newGateway(c: Client, productID: string): Promise<G>
  groupBody(productID: string, extra?: Body): Body
  /** The fields a create without a body names. */
  requiredDeviceFields: string[]
  requiredProductFields: string[]
  requiredGroupFields: string[]
  /**
   * The run status of a device record (0 offline, 1 online): the field the variant names it, read from a record of
   * either variant's form (so unknown until a test compares it).
   */
  statusOf(device: Record<string, unknown>): unknown
  /** The status of a connection log (0 offline, 1 online, 2 authentication failed), read as statusOf reads. */
  connectStatusOf: (log: Record<string, unknown>) => unknown
  /** The name of that status field (also its list filter). */
  connectStatusField: string
  /** The deviceType code of a terminal. */
  terminal: number
  /** A device record's location as written by `location('Room 7')`. */
  location(text: string): unknown
}

const A: VariantKit<NewGateway> = {
  v: 'A',
  env: {},
  productBody: (extra = {}) => ({ productName: uniq('prod'), cloudProtocol: 1, ...extra }),
  deviceBody: mqttBody,
  childBody: (productID, gateway, extra = {}) => ({
    ...A.deviceBody(productID),
    upLinkSystem: 2,
    gateway,
    ...extra,
  }),
  newGateway: (c, productID) =>
    created<NewGateway>(c, '/api/v1/gateways', {
      gatewayName: uniq('gw'),
      productID,
      gatewayProtocol: 1,
      authType: 1,
    }),
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

const B: VariantKit<DeviceB> = {
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
  // a gateway of Variant B is a device of deviceType 1
  newGateway: (c, productID) =>
    created<DeviceB>(
      c,
      '/api/v1/devices',
      B.deviceBody(productID, { deviceName: uniq('gw'), deviceType: 1 }),
    ),
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

export const kits = { A, B } satisfies Record<Variant, VariantKit>

/** What the suites read of a new product, the same in both variants. */
export interface ProductRecord {
  id: number
  productID: string
  productName: string
}

/** What the suites read of a new device, the same in both variants. */
export interface DeviceRecord {
  id: number
  deviceID: string
  deviceUsername: string
  token: string
}

/** Creates a product in `k`'s form (a name of its own) as `client` and answers its record. */
export const kitProduct = (k: VariantKit, client: Client) =>
  created<ProductRecord>(client, '/api/v1/products', k.productBody())

/** A new product in `k`'s form and `n` devices of it, created as `client`. */
export async function kitDevices(k: VariantKit, client: Client, n: number) {
  const product = await kitProduct(k, client)
  const devices: DeviceRecord[] = []
  for (let i = 0; i < n; i++)
    devices.push(
      await created<DeviceRecord>(client, '/api/v1/devices', k.deviceBody(product.productID)),
    )
  return { product, devices }
}

/** Creates a group of `productID` in `k`'s form (a name of its own, unless `extra` names it) as `client`. */
export const kitGroup = (k: VariantKit, productID: string, client: Client, extra: Body = {}) =>
  created<{ id: number; groupID: string; groupName: string }>(
    client,
    '/api/v1/groups',
    k.groupBody(productID, extra),
  )

/**
 * Creates through `path` and answers the record (asserts 201): in either variant's form (Created), or as `T` says
 * where a suite knows its variant.
 */
export function created<P extends keyof Created>(
  c: Client,
  path: P,
  body: Body,
): Promise<Created[P]>
export function created<T>(c: Client, path: string, body: Body): Promise<T>
export async function created(c: Client, path: string, body: Body): Promise<unknown> {
  const r = await c.post<unknown>(path, body)
  assert.is(r.status, 201, r.text)
  return r.body
}
