import { z } from 'zod'
import { intID, looseIntOf, name, text, annotate, responseSchema } from './common.ts'
import { PRODUCT_RESOURCE_TABLE } from '../../store/fields/product-model.ts'
import { filterFields, requestSchema } from '../../store/fields/table.ts'

/**
 * Product resource, with the product. There is no codeValue dictionary:
 * codeValueLabel is the itemName, or the codeValue itself.
 */
export const ProductResource = responseSchema(PRODUCT_RESOURCE_TABLE, [
  'id codeValue codeValueLabel dataPointIntID dataPointName productID productName productItemIntID',
  'itemName createAt updateAt',
])

/** The create answer of product resources. */
export const ProductResourceCreated = responseSchema(
  PRODUCT_RESOURCE_TABLE,
  'codeValue createAt dataPointIntID id productItemIntID updateAt',
)

export const ProductResourceCreate = requestSchema(PRODUCT_RESOURCE_TABLE, {
  codeValue: name(100),
  dataPointIntID: intID.nullish(),
  productIntID: looseIntOf((n) => n.positive({ error: 'must be a product id' })),
  productItemIntID: intID.nullish(),
  itemName: text(100),
})
annotate(ProductResourceCreate, {
  examples: [{ productIntID: 1, codeValue: 'relay-1', itemName: 'Relay 1' }],
})

/** Edit body: productIntID may be sent back but not changed. */
export const ProductResourceUpdate = ProductResourceCreate.partial()

/** List filters: productID, codeValue, itemName, dataPointIntID (store/fields). */
export const productResourceFilters = filterFields(PRODUCT_RESOURCE_TABLE)

export type ProductResourceCreate = z.infer<typeof ProductResourceCreate>
export type ProductResourceUpdate = z.infer<typeof ProductResourceUpdate>
