import { Product, ProductListItem } from '../schemas/products.ts'
import { createSerializer } from './shape.ts'

export const productWire = createSerializer(
  { detail: Product, list: ProductListItem },
  { labels: { cloudProtocol: 'cloudProtocol' }, times: ['createAt', 'updateAt'] },
)
