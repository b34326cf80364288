import { PRODUCT_TABLE, type ProductRecord } from '../../../store/fields/products.ts'
import { Product, ProductListItem } from '../schemas/products.ts'
import { recordSerializer, wireSpecOf } from '../../wire/shape.ts'

/** What Variant B adds to a product or group record: the record ids of its devices, oldest first. */
export interface DeviceRefs {
  devices: Array<{ id: number }>
}

/** A product as Variant B answers it: with its devices and gateways, counted. */
export type ProductRecordB = ProductRecord & DeviceRefs & { deviceCount: number }

/** Product forms of Variant B (the refs come from src/variant-b/http/members.ts). */
export const productWire = recordSerializer<ProductRecordB>()(
  { detail: Product, list: ProductListItem },
  wireSpecOf(PRODUCT_TABLE),
)
