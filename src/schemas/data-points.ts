import { z } from 'zod'
import { enumCode, looseIntOf, looseNumber, looseNumberOf, name, text } from './common.ts'
import { annotate, responseSchema } from './common.ts'
import { DATA_POINT_TABLE } from '../../store/fields/product-model.ts'
import { filterFields, requestSchema } from '../../store/fields/table.ts'

/** Data point detail; productIntID added so that an edit can send it back. */
export const DataPoint = responseSchema(DATA_POINT_TABLE, [
  'id dataPointID dataPointName productID productIntID productName pointDataType pointDataTypeLabel',
  'dataTransType dataTransTypeLabel unitName unitSymbol upperLimit lowerLimit dataStep binarySize',
  'faultValue isDiscard enum isLocationType locationType registerAddr detail createUser createAt',
  'updateAt',
])

export const DataPointListItem = DataPoint.omit({ createUser: true })

/**
 * Letters, digits, underscore and hyphen, starting with a letter or underscore (a formula names an id with `-` as
 * `dp("the-id")`).
 */
export const DATA_POINT_ID = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/

/**
 * Ids refused although DATA_POINT_ID matches them: names of every JavaScript object's own machinery, which would
 * read or replace it wherever values are kept by dataPointID.
 */
export const RESERVED_DATA_POINT_IDS: ReadonlySet<string> = new Set([
  '__proto__',
  'constructor',
  'prototype',
])

/** An integer flag or code outside the enumerations table (isLocationType, isDiscard, isShow). */
export function oneOf(values: number[]) {
  const error = `must be one of ${values.join(', ')}`
  return z
    .number({ error })
    .refine((n) => values.includes(n), { error })
    .meta({ enum: values })
}

/** Create body; numbers may arrive as numeric strings. */
export const DataPointCreate = requestSchema(DATA_POINT_TABLE, {
  dataPointName: name(50),
  dataPointID: z
    .string({ error: 'required, a string' })
    .regex(DATA_POINT_ID, {
      error: 'letters, digits, _ and -, starting with a letter or _, at most 64 characters',
    })
    .refine((id) => !RESERVED_DATA_POINT_IDS.has(id), {
      error: `must not be ${[...RESERVED_DATA_POINT_IDS].join(', ')}`,
    })
    .meta({ not: { enum: [...RESERVED_DATA_POINT_IDS] } }),
  productIntID: looseIntOf((n) => n.positive({ error: 'must be a product id' })),
  pointDataType: enumCode('pointDataType'),
  dataTransType: enumCode('dataTransType'),
  unitName: text(50),
  unitSymbol: text(20),
  upperLimit: looseNumber.nullish(),
  lowerLimit: looseNumber.nullish(),
  dataStep: looseNumberOf((n) => n.positive({ error: 'must be greater than 0' })).nullish(),
  enum: z.array(z.unknown(), { error: 'must be a JSON array or null' }).max(1000).nullish(),
  isLocationType: oneOf([0, 1, 2]).nullish(),
  locationType: enumCode('locationType').nullish(),
  binarySize: looseIntOf((n) => n.positive({ error: 'must be a positive integer' })).nullish(),
  faultValue: text(100),
  isDiscard: oneOf([0, 1]).nullish(),
  registerAddr: text(50),
  detail: text(300),
})
annotate(DataPointCreate, {
  examples: [
    {
      productIntID: 1,
      dataPointID: 'temp',
      dataPointName: 'Temperature',
      pointDataType: 1,
      dataTransType: 1,
      unitName: 'degree Celsius',
      unitSymbol: '°C',
    },
  ],
})

/** Edit body: any create field; productIntID may be sent back but not changed. */
export const DataPointUpdate = DataPointCreate.partial()

/** List filters: productID, dataPointID, dataPointName, pointDataType, dataTransType (store/fields). */
export const dataPointFilters = filterFields(DATA_POINT_TABLE)

export type DataPointCreate = z.infer<typeof DataPointCreate>
export type DataPointUpdate = z.infer<typeof DataPointUpdate>
