import { PRODUCT_TABLE, type ProductRecord } from '../../store/fields/products.ts'
import { Product, ProductListItem } from '../schemas/products.ts'
import { recordSerializer, wireSpecOf } from './shape.ts'

export const productWire = recordSerializer<ProductRecord>()(
  { detail: Product, list: ProductListItem },
  wireSpecOf(PRODUCT_TABLE),
)
