import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestService, type TestService } from '../../_support/service.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { AppTemplate } from '../../../src/schemas/app-templates.ts'
import type { DataPoint } from '../../../src/schemas/data-points.ts'
import { insertDevice, tenantOf } from '../../_support/fixtures.ts'
import { assertError, mkPoint, mkProduct, mkStream, TIME } from './_product-model.ts'
import { restOf } from '../../_support/asserts.ts'

let t: TestService

const templates = suite('app templates')
templates.before(async () => {
  t = await startTestService()
})

const defaults = (pt: Wire<typeof DataPoint>) => [
  {
    id: pt.id,
    dataPointID: pt.dataPointID,
    dataPointName: pt.dataPointName,
    enum: [],
    pointDataType: 1,
    value: '1',
    extra: 'dropped',
  },
]

templates('create :: 201 full record with joined names, labels and JSON fields', async () => {
  const p = await mkProduct(t.admin)
  const pt = await mkPoint(t.admin, p.id, 'sw', { dataPointName: 'Switch', dataTransType: 3 })
  const s = await mkStream(t.admin, p.productID, [pt.id], { streamName: 'Ctl' })
  const r = await t.admin.post('/api/v1/app_templates', {
    templateName: 'Light',
    templateType: 1,
    productID: p.productID,
    topic: 'ctl/light',
    dataPointIntID: pt.id,
    dataStreamIntID: s.id,
    dataTransType: 3,
    enum: [{ on: 1 }],
    places: [1, 2],
    instanceID: 0,
    itemID: '5850',
    itemName: 'On/Off',
    itemOperations: 'RW',
    objectID: 3311,
    productItemIntID: 4,
    defaultValues: defaults(pt),
  })
  assert.is(r.status, 201, r.text)
  assert.equal(restOf(r.body), {
    templateName: 'Light',
    templateType: 1,
    templateTypeLabel: '开关',
    productID: p.productID,
    productName: p.productName,
    productItemIntID: 4,
    topic: 'ctl/light',
    dataPointIntID: pt.id,
    dataPointID: 'sw',
    dataPointName: 'Switch',
    dataStreamIntID: s.id,
    dataStreamName: 'Ctl',
    dataTransType: 3,
    enum: [{ on: 1 }],
    places: [1, 2],
    instanceID: '0',
    itemID: '5850',
    itemName: 'On/Off',
    itemOperations: 'RW',
    objectID: '3311',
    updateAt: null,
    defaultValues: [
      {
        id: pt.id,
        dataPointID: 'sw',
        dataPointName: 'Switch',
        enum: [],
        pointDataType: 1,
        value: '1',
      },
    ],
  })
  assert.is(
    (await t.admin.english().get(`/api/v1/app_templates/${r.body.id}`)).body.templateTypeLabel,
    'Switch',
  )
})

templates('validation :: 422 naming every field', async () => {
  assertError(await t.admin.post('/api/v1/app_templates', {}), 422, 'FORM_INVALID', [
    'templateName',
    'templateType',
    'productID',
  ])
  const r = await t.admin.post('/api/v1/app_templates', {
    templateName: 'x',
    templateType: 7,
    productID: 'p',
    topic: 'a/#',
    dataTransType: 0,
    enum: {},
    places: [1],
    defaultValues: [{ value: {} }],
  })
  assertError(r, 422, 'FORM_INVALID', [
    'templateType',
    'topic',
    'dataTransType',
    'enum',
    'places',
    'defaultValues.0.value',
  ])
  const places = await t.admin.post('/api/v1/app_templates', {
    templateName: 'x',
    templateType: 1,
    productID: 'p',
    places: [1.5, 2],
  })
  assertError(places, 422, 'FORM_INVALID', ['places.0'])
})

templates(
  'unknown or foreign product, point, stream :: 404; of another product :: 422',
  async () => {
    const p = await mkProduct(t.admin)
    const q = await mkProduct(t.admin)
    const qp = await mkPoint(t.admin, q.id, 'qp')
    const qs = await mkStream(t.admin, q.productID, [])
    const other = await t.newTenant()
    const op = await mkProduct(other)
    const body = { templateName: 'x', templateType: 1, productID: p.productID }
    assertError(
      await t.admin.post('/api/v1/app_templates', { ...body, productID: op.productID }),
      404,
      'DATA_NOT_FOUND',
      ['productID'],
    )
    assertError(
      await t.admin.post('/api/v1/app_templates', { ...body, dataPointIntID: 987654 }),
      404,
      'DATA_NOT_FOUND',
      ['dataPointIntID'],
    )
    assertError(
      await t.admin.post('/api/v1/app_templates', { ...body, dataStreamIntID: 987654 }),
      404,
      'DATA_NOT_FOUND',
      ['dataStreamIntID'],
    )
    assertError(
      await t.admin.post('/api/v1/app_templates', { ...body, dataPointIntID: qp.id }),
      422,
      'FORM_INVALID',
      ['dataPointIntID'],
    )
    assertError(
      await t.admin.post('/api/v1/app_templates', { ...body, dataStreamIntID: qs.id }),
      422,
      'FORM_INVALID',
      ['dataStreamIntID'],
    )
  },
)

templates('list :: by productID, filters; foreign or unknown productID empty', async () => {
  const p = await mkProduct(t.admin)
  await t.admin.post('/api/v1/app_templates', {
    templateName: 'Alpha',
    templateType: 1,
    productID: p.productID,
  })
  await t.admin.post('/api/v1/app_templates', {
    templateName: 'Beta',
    templateType: 3,
    productID: p.productID,
  })
  const r = await t.admin.get<Page<Wire<typeof AppTemplate>>>(
    `/api/v1/app_templates?productID=${p.productID}`,
  )
  assert.equal(r.body.meta, { count: 2, limit: 10, page: 1, next: null })
  assert.equal(
    r.body.items.map((x) => x.templateName),
    ['Beta', 'Alpha'],
  )
  assert.is(r.body.items[0]!.productName, p.productName)
  assert.ok('defaultValues' in r.body.items[0]!)
  assert.equal(
    (
      await t.admin.get<Page<Wire<typeof AppTemplate>>>(
        `/api/v1/app_templates?productID=${p.productID}&templateType=1`,
      )
    ).body.items.map((x) => x.templateName),
    ['Alpha'],
  )
  assert.equal(
    (await t.admin.get(`/api/v1/app_templates?productID=${p.productID}&templateName_like=et`)).body
      .meta.count,
    1,
  )
  const other = await t.newTenant()
  assert.equal((await other.get(`/api/v1/app_templates?productID=${p.productID}`)).body, {
    items: [],
    meta: { count: 0, limit: 10, page: 1, next: null },
  })
  assert.equal((await t.admin.get('/api/v1/app_templates?productID=nope')).body.meta.count, 0)
})

templates('edit :: 200, record sent back, product fixed, refs checked', async () => {
  const p = await mkProduct(t.admin)
  const q = await mkProduct(t.admin)
  const pt = await mkPoint(t.admin, p.id, 'e1')
  const qp = await mkPoint(t.admin, q.id, 'e2')
  const c = await t.admin.post('/api/v1/app_templates', {
    templateName: 'E',
    templateType: 2,
    productID: p.productID,
    places: [0, 0],
  })
  const r = await t.admin.put(`/api/v1/app_templates/${c.body.id}`, {
    ...c.body,
    templateName: 'E2',
    dataPointIntID: pt.id,
    defaultValues: defaults(pt),
  })
  assert.is(r.status, 200, r.text)
  assert.equal(
    [r.body.templateName, r.body.dataPointID, r.body.places, r.body.defaultValues.length],
    ['E2', 'e1', [0, 0], 1],
  )
  assert.match(r.body.updateAt, TIME)
  const cleared = await t.admin.put(`/api/v1/app_templates/${c.body.id}`, {
    places: null,
    dataPointIntID: null,
  })
  assert.equal(
    [
      cleared.body.places,
      cleared.body.dataPointIntID,
      cleared.body.dataPointName,
      cleared.body.templateName,
    ],
    [null, null, null, 'E2'],
  )
  assertError(
    await t.admin.put(`/api/v1/app_templates/${c.body.id}`, { productID: q.productID }),
    422,
    'FORM_INVALID',
    ['productID'],
  )
  assertError(
    await t.admin.put(`/api/v1/app_templates/${c.body.id}`, { dataPointIntID: qp.id }),
    422,
    'FORM_INVALID',
    ['dataPointIntID'],
  )
  assertError(
    await t.admin.put('/api/v1/app_templates/987654', { templateName: 'x' }),
    404,
    'DATA_NOT_FOUND',
    ['id'],
  )
})

templates('delete :: 204, all or none, then 404', async () => {
  const p = await mkProduct(t.admin)
  const c = await t.admin.post('/api/v1/app_templates', {
    templateName: 'D',
    templateType: 1,
    productID: p.productID,
  })
  assertError(
    await t.admin.del(`/api/v1/app_templates?ids=${c.body.id},987654`),
    404,
    'DATA_NOT_FOUND',
    ['ids'],
  )
  const r = await t.admin.del(`/api/v1/app_templates?ids=${c.body.id}`)
  assert.is(r.status, 204)
  assert.is(r.text, '')
  assertError(await t.admin.get(`/api/v1/app_templates/${c.body.id}`), 404, 'DATA_NOT_FOUND', [
    'id',
  ])
})

templates(
  'tenant isolation and viewer :: 404 foreign ids, never listed; viewer 403; SQL text verbatim',
  async () => {
    const other = await t.newTenant()
    const op = await mkProduct(other)
    const theirs = await other.post('/api/v1/app_templates', {
      templateName: 'T',
      templateType: 1,
      productID: op.productID,
    })
    const id = theirs.body.id
    assertError(await t.admin.get(`/api/v1/app_templates/${id}`), 404, 'DATA_NOT_FOUND', ['id'])
    assertError(
      await t.admin.put(`/api/v1/app_templates/${id}`, { templateName: 'x' }),
      404,
      'DATA_NOT_FOUND',
      ['id'],
    )
    assertError(await t.admin.del(`/api/v1/app_templates?ids=${id}`), 404, 'DATA_NOT_FOUND', [
      'ids',
    ])
    assert.not.ok(
      (
        await t.admin.get<Page<Wire<typeof AppTemplate>>>('/api/v1/app_templates?_limit=1000')
      ).body.items.some((x) => x.id === id),
    )
    const viewer = await t.userWithRole('viewer')
    const p = await mkProduct(t.admin)
    assertError(
      await viewer.post('/api/v1/app_templates', {
        templateName: 'v',
        templateType: 1,
        productID: p.productID,
      }),
      403,
      'PERMISSION_DENIED',
      ['role'],
    )
    assert.is((await viewer.get('/api/v1/app_templates')).status, 200)
    const n = "t'); DROP TABLE app_templates; --"
    assert.is(
      (
        await t.admin.post('/api/v1/app_templates', {
          templateName: n,
          templateType: 1,
          productID: p.productID,
        })
      ).body.templateName,
      n,
    )
  },
)

templates.run()

const consoles = suite('device consoles')
consoles.after(async () => t.close())

consoles("device :: page of its product's templates in the console form, value null", async () => {
  const p = await mkProduct(t.admin)
  const q = await mkProduct(t.admin)
  const pt = await mkPoint(t.admin, p.id, 'c1')
  await t.admin.post('/api/v1/app_templates', {
    templateName: 'Mine',
    templateType: 1,
    productID: p.productID,
    dataPointIntID: pt.id,
    itemID: '1',
    itemName: 'i',
    objectID: '2',
  })
  await t.admin.post('/api/v1/app_templates', {
    templateName: 'Other product',
    templateType: 1,
    productID: q.productID,
  })
  const device = await insertDevice(t, await tenantOf(t), p.id)
  const r = await t.admin.get(`/api/v1/device_consoles/${device}`)
  assert.is(r.status, 200, r.text)
  assert.equal(r.body.meta, { count: 1, limit: 10, page: 1, next: null })
  const item = r.body.items[0]
  assert.is(item.templateName, 'Mine')
  assert.is(item.dataPointID, 'c1')
  assert.is(item.value, null)
  for (const gone of ['itemID', 'itemName', 'itemOperations', 'objectID'])
    assert.not.ok(gone in item, gone)
  assert.is(Object.keys(item).at(-1), 'value')
  const page2 = await t.admin.get(`/api/v1/device_consoles/${device}?_page=2`)
  assert.equal(page2.body, { items: [], meta: { count: 1, limit: 10, page: 2, next: null } })
})

consoles('unknown or foreign device :: 404 DATA_NOT_FOUND', async () => {
  assertError(await t.admin.get('/api/v1/device_consoles/987654'), 404, 'DATA_NOT_FOUND', ['id'])
  const other = await t.newTenant()
  const op = await mkProduct(other)
  const theirs = await insertDevice(t, other.tenantID, op.id)
  assertError(await t.admin.get(`/api/v1/device_consoles/${theirs}`), 404, 'DATA_NOT_FOUND', ['id'])
  assert.is((await other.get(`/api/v1/device_consoles/${theirs}`)).status, 200)
  assertError(await t.admin.get('/api/v1/device_consoles/abc'), 404, 'DATA_NOT_FOUND', ['id'])
})

consoles.run()
