import { PRODUCT_RESOURCE_TABLE } from '../../store/fields/product-model.ts'
import { ProductResource, ProductResourceCreated } from '../schemas/product-resources.ts'
import { tableSerializer } from './shape.ts'

export const productResourceWire = tableSerializer(PRODUCT_RESOURCE_TABLE, {
  detail: ProductResource,
  created: ProductResourceCreated,
})
