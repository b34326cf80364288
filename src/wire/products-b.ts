import { PRODUCT_TABLE, type ProductRecord } from '../../store/fields/products.ts'
import { Product, ProductListItem } from '../schemas/products-b.ts'
import type { DeviceRefs } from '../services/members-b.ts'
import { recordSerializer, wireSpecOf } from './shape.ts'

/** Product forms of Variant B; `devices` comes from src/services/members-b.ts. */
export const productWire = recordSerializer<ProductRecord & Partial<DeviceRefs>>()(
  { detail: Product, list: ProductListItem },
  wireSpecOf(PRODUCT_TABLE),
)
