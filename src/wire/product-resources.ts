import {
  PRODUCT_RESOURCE_TABLE,
  type ProductResourceRecord,
} from '../../store/fields/product-model.ts'
import { ProductResource, ProductResourceCreated } from '../schemas/product-resources.ts'
import { recordSerializer, wireSpecOf } from './shape.ts'

export const productResourceWire = recordSerializer<ProductResourceRecord>()(
  { detail: ProductResource, created: ProductResourceCreated },
  wireSpecOf(PRODUCT_RESOURCE_TABLE),
)
