import { z } from 'zod'
import { enumCode, intID, looseInt, name, text, Int, Str, responseSchema } from './common.ts'
import { DATA_STREAM_DETAIL_TABLE, DATA_STREAM_TABLE } from '../../store/fields/product-model.ts'
import { filterFields, requestSchema } from '../../store/fields/table.ts'

/** Data stream detail. */
export const DataStream = responseSchema(
  DATA_STREAM_DETAIL_TABLE,
  [
    'id productID productName streamName streamType streamTypeLabel streamDataType',
    'streamDataTypeLabel topic dataPoints dataPointNames detail userIntID createAt updateAt',
  ],
  { dataPoints: z.array(Int), dataPointNames: z.array(Str) },
)

/** The list form plus productID. */
export const DataStreamListItem = responseSchema(DATA_STREAM_TABLE, [
  'id productID productName streamName streamType streamTypeLabel streamDataType',
  'streamDataTypeLabel topic',
])

/**
 * A topic relative to the device's mountpoint: no wildcards, no leading '/', at most 200 characters, not under
 * `state/` (a device's state topics, README "Desired state").
 */
export const relativeTopic = z
  .string({ error: 'required, a string' })
  .min(1, { error: 'must not be empty' })
  .max(200, { error: 'at most 200 characters' })
  .refine((t) => !/[+#]/.test(t), { error: 'must not contain the wildcards + or #' })
  .refine((t) => !t.startsWith('/'), { error: 'is relative to the device: no leading /' })
  // eslint-disable-next-line no-control-regex -- the control characters are what it refuses
  .refine((t) => !/[\u0000-\u001f]/.test(t), { error: 'must not contain control characters' })
  .refine((t) => !/^state(\/|$)/.test(t), { error: 'state/ topics are reserved for device state' })
  .refine((t) => !/^ota(\/|$)/.test(t), { error: 'ota/ topics are reserved for firmware updates' })
  .meta({ pattern: '^(?!/)(?!state(/|$))(?!ota(/|$))[^+#\\u0000-\\u001f]*$' })

/** Create body. The product by productID, or by productIntID. */
export const DataStreamCreate = requestSchema(DATA_STREAM_TABLE, {
  productID: z.string({ error: 'must be a string' }).optional(),
  productIntID: looseInt.optional(),
  streamName: name(50),
  streamType: enumCode('streamType'),
  streamDataType: enumCode('streamDataType'),
  topic: relativeTopic,
  dataPoints: z
    .array(intID, { error: 'must be an array of data point ids' })
    .max(1000)
    .transform((ids) => [...new Set(ids)])
    .optional(),
  detail: text(300),
}).meta({
  anyOf: [{ required: ['productID'] }, { required: ['productIntID'] }],
  examples: [
    {
      productIntID: 1,
      streamName: 'Telemetry',
      streamType: 1,
      streamDataType: 1,
      topic: 'telemetry',
      dataPoints: [1],
    },
  ],
})

export const DataStreamUpdate = DataStreamCreate.partial()

/** List filters: productID, streamName, topic, streamType, streamDataType (store/fields). */
export const dataStreamFilters = filterFields(DATA_STREAM_TABLE)

export type DataStreamCreate = z.infer<typeof DataStreamCreate>
export type DataStreamUpdate = z.infer<typeof DataStreamUpdate>
