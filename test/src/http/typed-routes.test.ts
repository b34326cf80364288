/**
 * Router.typed (src/http/router.ts): a handler's answer is checked at compile time against its route's
 * response schema. The `@ts-expect-error` lines below are the failing cases: `npx tsc` fails if one of them
 * compiles. At run time a typed route behaves as `route` does.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { Router } from '../../../src/http/router.ts'
import { recordSerializer } from '../../../src/wire/shape.ts'
import { requestSchema } from '../../../store/fields/table.ts'
import { PRODUCT_TABLE, type ProductRecord } from '../../../store/fields/products.ts'
import { productWire } from '../../../src/wire/products.ts'
import { Product } from '../../../src/schemas/products.ts'
import { ApiError } from '../../../src/errors.ts'
import type { Deps } from '../../../src/deps.ts'
import { productRoutes } from '../../../src/routes/products.ts'
import { groupRoutes } from '../../../src/routes/groups.ts'
import { shapesA, shapesB } from '../../../src/wire/shapes.ts'
import { productAnswer } from '../../_support/fixtures.ts'

const Thing = z.object({ id: z.number(), name: z.string() })
const def = {
  method: 'post',
  path: '/things/:id',
  tag: 't',
  summary: 's',
  public: true,
  body: z.object({ name: z.string() }),
  response: Thing,
  status: 201,
} as const

const r = new Router()
r.app.onError((e, c) =>
  c.json(
    { errorCode: e instanceof ApiError ? e.errorCode : 'x' },
    e instanceof ApiError ? 422 : 500,
  ),
)
r.typed(def, (c, { id, body }) => c.json({ id, name: body.name }, 201))
r.typed({ ...def, path: '/empty', response: undefined, status: 204 }, (c) => c.body(null, 204))

// Compile-time failures, one per line that must not compile.
// @ts-expect-error a field of the wrong type
r.typed(def, (c, { id }) => c.json({ id: String(id), name: 'x' }, 201))
// @ts-expect-error a field missing
r.typed(def, (c, { id }) => c.json({ id }, 201))
// @ts-expect-error a stored record instead of its wire form (times are numbers in the store)
r.typed({ ...def, response: Product }, (c) => c.json({} as ProductRecord))
// @ts-expect-error a form naming a field the record does not hold
recordSerializer<ProductRecord>()({ detail: z.object({ nope: z.string() }) }, {})
// @ts-expect-error a request field whose output is not what the table stores
requestSchema(PRODUCT_TABLE, { productName: z.number() })
// The routes whose shape varies are checked per variant (src/routes/variants.ts); never called here.
export const variants = (deps: Deps) => [
  productRoutes(deps, { ...shapesA.products, expand: async (_t, rows) => rows }),
  // @ts-expect-error Variant B's product forms over stored records, without the devices B answers
  productRoutes(deps, { ...shapesB.products, expand: async (_t, rows) => rows }),
  // @ts-expect-error Variant A's group forms with Variant B's members
  groupRoutes(deps, {
    ...shapesA.groups,
    GroupDevice: shapesB.groups.GroupDevice,
    expand: async (_t, r) => r,
  }),
]
// An untyped route still compiles with any Response (routes migrate one file at a time).
r.route(def, (c) => c.json({ anything: true }))

const typed = suite('Router.typed')

typed('a typed route :: validates its body and answers like route', async () => {
  const ok = await r.app.request('/things/7', { method: 'POST', body: '{"name":"a"}' })
  assert.is(ok.status, 201)
  assert.equal(await ok.json(), { id: 7, name: 'a' })
  const bad = await r.app.request('/things/7', { method: 'POST', body: '{"name":1}' })
  assert.is(bad.status, 422)
  assert.equal(await bad.json(), { errorCode: 'FORM_INVALID' })
  const empty = await r.app.request('/empty', { method: 'POST', body: '{"name":"a"}' })
  assert.is(empty.status, 204)
})

typed('a typed serializer :: the form of a record, labels and times filled', () => {
  const record: ProductRecord = {
    id: 1,
    productName: 'p',
    productID: 'pid',
    cloudProtocol: 1,
    description: null,
    rawRetentionDays: null,
    eventRetentionDays: null,
    deviceCount: 2,
    appCount: 0,
    dataPointCount: 0,
    dataStreamCount: 0,
    itemCount: 0,
    userIntID: null,
    createUser: null,
    createAt: Date.UTC(2026, 0, 2, 3, 4, 5),
    updateAt: null,
  }
  assert.equal(productWire.detail(record, { lang: 'en', tz: 'UTC' }), productAnswer)
})

typed.run()
