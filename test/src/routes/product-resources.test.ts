import * as assert from 'uvu/assert'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { ProductResource } from '../../../src/schemas/product-resources.ts'
import { assertError, mkPoint, mkProduct, TIME } from './_product-model.ts'

let t: TestService
type Resources = Page<Wire<typeof ProductResource>>

const resources = serviceSuite('product resources', (svc) => (t = svc))

resources('create with a numeric-string productIntID :: 201 in the write shape', async () => {
  const p = await mkProduct(t.admin)
  const pt = await mkPoint(t.admin, p.id, 'sn')
  const r = await t.admin.post('/api/v1/product_resources', {
    codeValue: 'SN-001',
    dataPointIntID: pt.id,
    productIntID: String(p.id),
    productItemIntID: 7,
    itemName: 'Serial',
  })
  assert.is(r.status, 201, r.text)
  assert.equal(Object.keys(r.body), [
    'codeValue',
    'createAt',
    'dataPointIntID',
    'id',
    'productItemIntID',
    'updateAt',
  ])
  assert.equal(
    [r.body.codeValue, r.body.dataPointIntID, r.body.productItemIntID, r.body.updateAt],
    ['SN-001', pt.id, 7, null],
  )
  assert.match(r.body.createAt, TIME)
  const d = await t.admin.get(`/api/v1/product_resources/${r.body.id}`)
  assert.equal(d.body, {
    id: r.body.id,
    codeValue: 'SN-001',
    codeValueLabel: 'Serial',
    dataPointIntID: pt.id,
    dataPointName: pt.dataPointName,
    productID: p.productID,
    productName: p.productName,
    productItemIntID: 7,
    itemName: 'Serial',
    createAt: r.body.createAt,
    updateAt: null,
  })
})

resources('without itemName or point :: codeValueLabel is the codeValue, nulls', async () => {
  const p = await mkProduct(t.admin)
  const r = await t.admin.post('/api/v1/product_resources', { codeValue: 'C2', productIntID: p.id })
  assert.is(r.status, 201, r.text)
  const d = await t.admin.get(`/api/v1/product_resources/${r.body.id}`)
  assert.equal(
    [d.body.codeValueLabel, d.body.dataPointIntID, d.body.dataPointName, d.body.itemName],
    ['C2', null, null, null],
  )
})

resources('validation :: 422 naming every field', async () => {
  assertError(await t.admin.post('/api/v1/product_resources', {}), 422, 'FORM_INVALID', [
    'codeValue',
    'productIntID',
  ])
  const r = await t.admin.post('/api/v1/product_resources', {
    codeValue: ' ',
    productIntID: 'x1',
    dataPointIntID: '3',
    productItemIntID: -1,
  })
  assertError(r, 422, 'FORM_INVALID', [
    'codeValue',
    'productIntID',
    'dataPointIntID',
    'productItemIntID',
  ])
  assertError(await t.admin.call('POST', '/api/v1/product_resources', '[]'), 400, 'BAD_REQUEST', [
    'body',
  ])
})

resources(
  'unknown or foreign product and point :: 404; point of another product :: 422',
  async () => {
    const p = await mkProduct(t.admin)
    const q = await mkProduct(t.admin)
    const qp = await mkPoint(t.admin, q.id, 'qp')
    const other = await t.newTenant()
    const op = await mkProduct(other)
    const opt = await mkPoint(other, op.id, 'x')
    assertError(
      await t.admin.post('/api/v1/product_resources', { codeValue: 'c', productIntID: 987654 }),
      404,
      'DATA_NOT_FOUND',
      ['productIntID'],
    )
    assertError(
      await t.admin.post('/api/v1/product_resources', { codeValue: 'c', productIntID: op.id }),
      404,
      'DATA_NOT_FOUND',
      ['productIntID'],
    )
    assertError(
      await t.admin.post('/api/v1/product_resources', {
        codeValue: 'c',
        productIntID: p.id,
        dataPointIntID: opt.id,
      }),
      404,
      'DATA_NOT_FOUND',
      ['dataPointIntID'],
    )
    assertError(
      await t.admin.post('/api/v1/product_resources', {
        codeValue: 'c',
        productIntID: p.id,
        dataPointIntID: qp.id,
      }),
      422,
      'FORM_INVALID',
      ['dataPointIntID'],
    )
  },
)

resources(
  'list :: by productID with names, filters; foreign or unknown productID empty',
  async () => {
    const p = await mkProduct(t.admin)
    const pt = await mkPoint(t.admin, p.id, 'lp')
    await t.admin.post('/api/v1/product_resources', {
      codeValue: 'A',
      productIntID: p.id,
      dataPointIntID: pt.id,
      itemName: 'Alpha',
    })
    await t.admin.post('/api/v1/product_resources', { codeValue: 'B', productIntID: p.id })
    const r = await t.admin.get<Resources>(
      `/api/v1/product_resources?productID=${p.productID}&_page=1&_limit=10`,
    )
    assert.equal(r.body.meta, { count: 2, limit: 10, page: 1, next: null })
    assert.equal(
      r.body.items.map((x) => [x.codeValue, x.codeValueLabel, x.dataPointName]),
      [
        ['B', 'B', null],
        ['A', 'Alpha', pt.dataPointName],
      ],
    )
    assert.equal(
      (await t.admin.get(`/api/v1/product_resources?productID=${p.productID}&itemName_like=alp`))
        .body.meta.count,
      1,
    )
    assert.equal(
      (await t.admin.get(`/api/v1/product_resources?productID=${p.productID}&codeValue=B`)).body
        .meta.count,
      1,
    )
    const other = await t.newTenant()
    assert.equal((await other.get(`/api/v1/product_resources?productID=${p.productID}`)).body, {
      items: [],
      meta: { count: 0, limit: 10, page: 1, next: null },
    })
    assert.equal((await t.admin.get('/api/v1/product_resources?productID=nope')).body.meta.count, 0)
  },
)

resources('edit :: 200 detail, absent fields kept, product fixed, point checked', async () => {
  const p = await mkProduct(t.admin)
  const q = await mkProduct(t.admin)
  const pt = await mkPoint(t.admin, p.id, 'e1')
  const qp = await mkPoint(t.admin, q.id, 'e2')
  const c = await t.admin.post('/api/v1/product_resources', {
    codeValue: 'E',
    productIntID: p.id,
    itemName: 'Item',
  })
  const d = (await t.admin.get(`/api/v1/product_resources/${c.body.id}`)).body
  const r = await t.admin.put(`/api/v1/product_resources/${c.body.id}`, {
    ...d,
    codeValue: 'E2',
    dataPointIntID: pt.id,
  })
  assert.is(r.status, 200, r.text)
  assert.equal(
    [r.body.codeValue, r.body.itemName, r.body.dataPointName],
    ['E2', 'Item', pt.dataPointName],
  )
  assert.match(r.body.updateAt, TIME)
  assertError(
    await t.admin.put(`/api/v1/product_resources/${c.body.id}`, { productIntID: q.id }),
    422,
    'FORM_INVALID',
    ['productIntID'],
  )
  assertError(
    await t.admin.put(`/api/v1/product_resources/${c.body.id}`, { dataPointIntID: qp.id }),
    422,
    'FORM_INVALID',
    ['dataPointIntID'],
  )
  assertError(
    await t.admin.put('/api/v1/product_resources/987654', { codeValue: 'x' }),
    404,
    'DATA_NOT_FOUND',
    ['id'],
  )
})

resources('delete :: 204, all or none, then 404', async () => {
  const p = await mkProduct(t.admin)
  const a = await t.admin.post('/api/v1/product_resources', { codeValue: 'D1', productIntID: p.id })
  assertError(
    await t.admin.del(`/api/v1/product_resources?ids=${a.body.id},987654`),
    404,
    'DATA_NOT_FOUND',
    ['ids'],
  )
  const r = await t.admin.del(`/api/v1/product_resources?ids=${a.body.id}`)
  assert.is(r.status, 204)
  assert.is(r.text, '')
  assertError(await t.admin.get(`/api/v1/product_resources/${a.body.id}`), 404, 'DATA_NOT_FOUND', [
    'id',
  ])
  assertError(await t.admin.del('/api/v1/product_resources?ids=1,a'), 400, 'PARAMETER_INVALID', [
    'ids',
  ])
})

resources(
  'tenant isolation and viewer :: 404 foreign ids; viewer 403; SQL-looking text verbatim',
  async () => {
    const other = await t.newTenant()
    const op = await mkProduct(other)
    const theirs = await other.post('/api/v1/product_resources', {
      codeValue: 'T',
      productIntID: op.id,
    })
    const id = theirs.body.id
    assertError(await t.admin.get(`/api/v1/product_resources/${id}`), 404, 'DATA_NOT_FOUND', ['id'])
    assertError(
      await t.admin.put(`/api/v1/product_resources/${id}`, { codeValue: 'x' }),
      404,
      'DATA_NOT_FOUND',
      ['id'],
    )
    assertError(await t.admin.del(`/api/v1/product_resources?ids=${id}`), 404, 'DATA_NOT_FOUND', [
      'ids',
    ])
    assert.not.ok(
      (await t.admin.get<Resources>('/api/v1/product_resources?_limit=1000')).body.items.some(
        (x) => x.id === id,
      ),
    )
    const viewer = await t.userWithRole('viewer')
    const p = await mkProduct(t.admin)
    assertError(
      await viewer.post('/api/v1/product_resources', { codeValue: 'v', productIntID: p.id }),
      403,
      'PERMISSION_DENIED',
      ['role'],
    )
    assert.is((await viewer.get('/api/v1/product_resources')).status, 200)
    const n = "x' OR 1=1; --"
    const r = await t.admin.post('/api/v1/product_resources', { codeValue: n, productIntID: p.id })
    assert.is(r.body.codeValue, n)
  },
)

resources.run()
