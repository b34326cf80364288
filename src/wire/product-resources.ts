import { ProductResource, ProductResourceCreated } from '../schemas/product-resources.ts'
import { createSerializer } from './shape.ts'

export const productResourceWire = createSerializer(
  { detail: ProductResource, created: ProductResourceCreated },
  { times: ['createAt', 'updateAt'] },
)
