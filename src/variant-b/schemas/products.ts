/** Variant B of products: no cloud protocol on the wire (MQTT), `devices` as `[{id}]`, description required. */
import { z } from 'zod'
import {
  annotate,
  name,
  retentionDays,
  Int,
  NullableInt,
  NullableStr,
  Str,
  Timestamp,
} from '../../schemas/common.ts'
import type { FilterFields } from '../../http/paging.ts'

/** `[{id}]`: the record ids of the devices (gateways included) of a product or group. */
export const DeviceRefs = z.array(z.object({ id: Int }))

/** Product detail (Variant B). */
export const Product = z.object({
  id: Int,
  productID: Str,
  productName: Str,
  description: NullableStr,
  rawRetentionDays: NullableInt,
  eventRetentionDays: NullableInt,
  deviceCount: Int,
  devices: DeviceRefs,
  userIntID: NullableInt,
  createUser: NullableStr,
  createAt: Timestamp,
  updateAt: Timestamp,
})

/** Product in a list: createUser is detail only. */
export const ProductListItem = Product.omit({ createUser: true })

/** Create (Variant B): productName and description required; its devices speak MQTT. */
export const ProductCreate = z
  .object({
    productName: name(50),
    description: name(300),
    rawRetentionDays: retentionDays,
    eventRetentionDays: retentionDays,
  })
  .transform((b) => ({ ...b, cloudProtocol: 1 }))
annotate(ProductCreate, {
  examples: [{ productName: 'Thermometer', description: 'Room thermometers (MQTT)' }],
})

/** Edit: the record as read may come back; only productName, description and the retention days change. */
export const ProductUpdate = z.object({
  productName: name(50).optional(),
  description: name(300).optional(),
  rawRetentionDays: retentionDays,
  eventRetentionDays: retentionDays,
})

export const productFilters = {
  productName: 'text',
  productID: 'text',
  description: 'text',
} satisfies FilterFields
