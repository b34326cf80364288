import { z } from 'zod'
import {
  enumCode,
  intID,
  name,
  text,
  Int,
  NullableStr,
  annotate,
  responseSchema,
} from './common.ts'
import { relativeTopic } from './data-streams.ts'
import { APP_TEMPLATE_TABLE } from '../../store/fields/product-model.ts'
import { filterFields, requestSchema } from '../../store/fields/table.ts'

/** One entry of an app template's defaultValues. */
export const DefaultValue = z.object({
  id: intID.nullish(),
  dataPointID: z.string({ error: 'must be a string' }).max(64).nullish(),
  dataPointName: z.string({ error: 'must be a string' }).max(100).nullish(),
  enum: z.array(z.unknown(), { error: 'must be an array or null' }).max(1000).nullish(),
  pointDataType: enumCode('pointDataType').nullish(),
  value: z
    .union([z.string().max(1000), z.number(), z.boolean()], {
      error: 'must be a string, number or boolean',
    })
    .nullish(),
})

/** App template, with productName beside productID. */
export const AppTemplate = responseSchema(
  APP_TEMPLATE_TABLE,
  [
    'id templateName templateType templateTypeLabel productID productName productItemIntID topic',
    'dataPointIntID dataPointID dataPointName dataStreamIntID dataStreamName dataTransType enum places',
    'instanceID itemID itemName itemOperations objectID createAt updateAt defaultValues',
  ],
  { places: z.array(Int).nullable(), defaultValues: z.array(DefaultValue).nullable() },
)

/**
 * The device console form of an app template: no itemID, itemName, itemOperations, objectID; adds `value`, the
 * template data point's last value as text (null until the telemetry side provides it).
 */
export const ConsoleTemplate = AppTemplate.omit({
  itemID: true,
  itemName: true,
  itemOperations: true,
  objectID: true,
}).extend({
  value: NullableStr,
})

/** An LwM2M-style id: a string, or a number stored as its text. */
const idText = z
  .union([z.string().max(100), z.number()], { error: 'must be a string or a number' })
  .transform(String)
  .nullish()

/** Create body; the product by its productID. */
export const AppTemplateCreate = requestSchema(APP_TEMPLATE_TABLE, {
  templateName: name(50),
  templateType: enumCode('templateType'),
  productID: z.string({ error: 'required, a string' }).min(1, { error: 'must not be empty' }),
  topic: relativeTopic.nullish(),
  dataPointIntID: intID.nullish(),
  dataStreamIntID: intID.nullish(),
  dataTransType: enumCode('dataTransType').nullish(),
  enum: z.array(z.unknown(), { error: 'must be a JSON array or null' }).max(1000).nullish(),
  places: z
    .tuple([z.number().int(), z.number().int()], { error: 'must be an array of two integers' })
    .nullish(),
  instanceID: idText,
  itemID: idText,
  itemName: text(100),
  itemOperations: text(100),
  objectID: idText,
  productItemIntID: intID.nullish(),
  defaultValues: z.array(DefaultValue, { error: 'must be an array of objects' }).max(100).nullish(),
})
annotate(AppTemplateCreate, {
  examples: [
    {
      templateName: 'Temperature',
      templateType: 3,
      productID: 'pT8kZ3wQ',
      topic: 'telemetry',
      dataPointIntID: 1,
      dataTransType: 1,
    },
  ],
})

/** Edit body: productID may be sent back but not changed. */
export const AppTemplateUpdate = AppTemplateCreate.partial()

/** List filters: productID, templateName, templateType, dataPointIntID, dataStreamIntID (store/fields). */
export const appTemplateFilters = filterFields(APP_TEMPLATE_TABLE)

export type AppTemplateCreate = z.infer<typeof AppTemplateCreate>
export type AppTemplateUpdate = z.infer<typeof AppTemplateUpdate>
