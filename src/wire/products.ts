import { PRODUCT_TABLE } from '../../store/fields/products.ts'
import { Product, ProductListItem } from '../schemas/products.ts'
import { tableSerializer } from './shape.ts'

export const productWire = tableSerializer(PRODUCT_TABLE, {
  detail: Product,
  list: ProductListItem,
})
