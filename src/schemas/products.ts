import { z } from 'zod'
import { enumCode, name, text, annotate, responseSchema, retentionDays } from './common.ts'
import { PRODUCT_TABLE } from '../../store/fields/products.ts'
import { filterFields, requestSchema } from '../../store/fields/table.ts'

/** Product detail. */
export const Product = responseSchema(PRODUCT_TABLE, [
  'id productID productName description cloudProtocol cloudProtocolLabel deviceCount',
  'rawRetentionDays eventRetentionDays',
  'createUser userIntID createAt updateAt',
])

/** Product in a list: adds the counts, drops createUser. */
export const ProductListItem = Product.omit({ createUser: true }).extend(
  responseSchema(PRODUCT_TABLE, 'appCount dataPointCount dataStreamCount itemCount').shape,
)

export const ProductCreate = requestSchema(PRODUCT_TABLE, {
  productName: name(50),
  cloudProtocol: enumCode('cloudProtocol'),
  description: text(300),
  rawRetentionDays: retentionDays,
  eventRetentionDays: retentionDays,
})
annotate(ProductCreate, {
  examples: [
    { productName: 'Thermometer', cloudProtocol: 1, description: 'Room thermometers (MQTT)' },
  ],
})

export const ProductUpdate = ProductCreate.partial()

/** List filters: productName, productID, cloudProtocol, description (store/fields/products.ts). */
export const productFilters = filterFields(PRODUCT_TABLE)

export type ProductCreate = z.infer<typeof ProductCreate>
export type ProductUpdate = z.infer<typeof ProductUpdate>
