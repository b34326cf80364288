/**
 * responseSchema (src/schemas/common.ts): a response schema named over a field table's fields, each typed from
 * the table. The `@ts-expect-error` lines are the failing cases: `npx tsc` fails if one of them compiles.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { Label, Str, Timestamp, responseSchema } from '../../../src/schemas/common.ts'
import { Product } from '../../../src/schemas/products.ts'
import { PRODUCT_TABLE } from '../../../store/fields/products.ts'
import { WEBHOOK_TABLE } from '../../../store/fields/webhooks.ts'
import { tableSerializer } from '../../../src/wire/shape.ts'
import { productAnswer } from '../../_support/fixtures.ts'

const json = (s: z.ZodType) => {
  const { $schema: _, ...rest } = z.toJSONSchema(s, { io: 'output', unrepresentable: 'any' })
  return rest
}

// Compile-time failures, one per line that must not compile.
const unknownNames = [
  // @ts-expect-error a name the table does not hold
  () => responseSchema(PRODUCT_TABLE, 'id nope'),
  // @ts-expect-error the label of a field without a label
  () => responseSchema(PRODUCT_TABLE, 'id productIDLabel'),
  // @ts-expect-error a list of names built at run time (its names are not known)
  () => responseSchema(PRODUCT_TABLE, ['id', 'nope'].join(' ')),
]
// @ts-expect-error a table serializer's form naming a field the table's records do not hold
tableSerializer(PRODUCT_TABLE, { detail: z.object({ nope: z.string() }) })
// @ts-expect-error a derived time is wire text, not the stored number
const _time: z.output<typeof Product>['createAt'] = 1

const rs = suite('responseSchema')

rs('names in order :: the fields in that order, typed from the table', () => {
  const s = responseSchema(PRODUCT_TABLE, [
    'id productName',
    'cloudProtocol cloudProtocolLabel createAt',
  ])
  assert.equal(Object.keys(s.shape), [
    'id',
    'productName',
    'cloudProtocol',
    'cloudProtocolLabel',
    'createAt',
  ])
  assert.equal(
    json(s),
    json(
      z.object({
        id: z.number().int(),
        productName: z.string(),
        cloudProtocol: z.number().int(),
        cloudProtocolLabel: Label,
        createAt: Timestamp,
      }),
    ),
  )
})

rs('a JSON field and a given schema :: the parsed type, the given schema in place', () => {
  const s = responseSchema(WEBHOOK_TABLE, 'id events url', { url: Str.meta({ description: 'u' }) })
  assert.equal(json(s.shape.events), json(WEBHOOK_TABLE.events.type))
  assert.equal(json(s.shape.url), { type: 'string', description: 'u' })
  assert.equal(Object.keys(s.shape), ['id', 'events', 'url'])
})

rs('an unknown name :: refused when the schema is built', () => {
  for (const build of unknownNames) assert.throws(build, /not a field of the table/)
})

rs('a product answer :: parsed by the derived detail schema', () => {
  const answer = { ...productAnswer, eventRetentionDays: 90 }
  assert.equal(Product.parse(answer), answer)
  assert.not.ok(Product.safeParse({ ...answer, createAt: 1 }).success)
})

rs.run()
