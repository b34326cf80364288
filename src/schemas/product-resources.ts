import { z } from 'zod'
import {
  intID,
  looseIntOf,
  name,
  text,
  Int,
  NullableInt,
  NullableStr,
  Str,
  Timestamp,
  annotate,
} from './common.ts'
import { PRODUCT_RESOURCE_TABLE } from '../../store/fields/product-model.ts'
import { filterFields, requestSchema } from '../../store/fields/table.ts'

/**
 * Product resource, with the product. There is no codeValue dictionary:
 * codeValueLabel is the itemName, or the codeValue itself.
 */
export const ProductResource = z.object({
  id: Int,
  codeValue: Str,
  codeValueLabel: Str,
  dataPointIntID: NullableInt,
  dataPointName: NullableStr,
  productID: Str,
  productName: Str,
  productItemIntID: NullableInt,
  itemName: NullableStr,
  createAt: Timestamp,
  updateAt: Timestamp,
})

/** The create answer of product resources. */
export const ProductResourceCreated = z.object({
  codeValue: Str,
  createAt: Timestamp,
  dataPointIntID: NullableInt,
  id: Int,
  productItemIntID: NullableInt,
  updateAt: Timestamp,
})

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
