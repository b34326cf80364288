import { Product, ProductListItem } from '../schemas/products-b.ts'
import { createSerializer } from './shape.ts'

/** Product forms of Variant B; `devices` comes from src/services/members-b.ts. */
export const productWire = createSerializer(
  { detail: Product, list: ProductListItem },
  { times: ['createAt', 'updateAt'] },
)
