import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestService, type TestService } from '../../_support/service.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { DataPointListItem } from '../../../src/schemas/data-points.ts'
import { assertError, mkPoint, mkProduct, uniq } from './_product-model.ts'
import { restOf } from '../../_support/asserts.ts'

type Points = Page<Wire<typeof DataPointListItem>>

let t: TestService
const base = (productIntID: number, extra: object = {}) => ({
  dataPointName: `Temp ${uniq()}`,
  dataPointID: `temp_${uniq().replace('-', '_')}`,
  productIntID,
  pointDataType: 1,
  dataTransType: 1,
  ...extra,
})

const create = suite('data points: create')
create.before(async () => {
  t = await startTestService()
})

create(
  'full body, numbers as strings :: 201 stored as numbers, zh labels, product joined',
  async () => {
    const p = await mkProduct(t.admin)
    const r = await t.admin.post('/api/v1/data_points', {
      dataPointName: 'Temperature',
      dataPointID: 'temp-1',
      productIntID: String(p.id),
      pointDataType: 1,
      dataTransType: 3,
      unitName: 'Celsius',
      unitSymbol: '°C',
      upperLimit: '100.5',
      lowerLimit: '-40',
      dataStep: '0.5',
      enum: [{ value: 1, label: 'one' }],
      isLocationType: 0,
      detail: 'room',
    })
    assert.is(r.status, 201, r.text)
    assert.equal(restOf(r.body), {
      dataPointID: 'temp-1',
      dataPointName: 'Temperature',
      productID: p.productID,
      productIntID: p.id,
      productName: p.productName,
      pointDataType: 1,
      pointDataTypeLabel: '数值',
      dataTransType: 3,
      dataTransTypeLabel: '可上报可下发',
      unitName: 'Celsius',
      unitSymbol: '°C',
      upperLimit: 100.5,
      lowerLimit: -40,
      dataStep: 0.5,
      binarySize: null,
      faultValue: null,
      isDiscard: null,
      enum: [{ value: 1, label: 'one' }],
      isLocationType: 0,
      locationType: null,
      registerAddr: null,
      detail: 'room',
      createUser: 'admin',
      updateAt: null,
    })
    const en = await t.admin.english().get(`/api/v1/data_points/${r.body.id}`)
    assert.is(en.body.pointDataTypeLabel, 'Numeric')
    assert.is(en.body.dataTransTypeLabel, 'Report and issue')
  },
)

create('empty body :: 422 FORM_INVALID naming the five required fields', async () => {
  const r = await t.admin.post('/api/v1/data_points', {})
  assertError(r, 422, 'FORM_INVALID', [
    'dataPointName',
    'dataPointID',
    'productIntID',
    'pointDataType',
    'dataTransType',
  ])
})

create('bad dataPointID shapes :: 422 errors.dataPointID', async () => {
  const p = await mkProduct(t.admin)
  for (const dataPointID of ['1abc', 'a b', 'a.b', '', 'x'.repeat(65), 'dp("x")']) {
    const r = await t.admin.post('/api/v1/data_points', base(p.id, { dataPointID }))
    assertError(r, 422, 'FORM_INVALID', ['dataPointID'])
  }
})

create('wrong types and ranges :: 422 naming every field', async () => {
  const p = await mkProduct(t.admin)
  const r = await t.admin.post(
    '/api/v1/data_points',
    base(p.id, {
      pointDataType: 2,
      dataTransType: 4,
      upperLimit: 'abc',
      dataStep: 0,
      binarySize: 1.5,
      enum: 'a,b',
      isLocationType: 3,
      locationType: 4,
      isDiscard: 2,
    }),
  )
  assertError(r, 422, 'FORM_INVALID', [
    'pointDataType',
    'dataTransType',
    'upperLimit',
    'dataStep',
    'binarySize',
    'enum',
    'isLocationType',
    'locationType',
    'isDiscard',
  ])
  const neg = await t.admin.post(
    '/api/v1/data_points',
    base(p.id, { pointDataType: 13, binarySize: '0' }),
  )
  assertError(neg, 422, 'FORM_INVALID', ['binarySize'])
  const ok = await t.admin.post(
    '/api/v1/data_points',
    base(p.id, { pointDataType: 13, binarySize: '16' }),
  )
  assert.is(ok.status, 201)
  assert.is(ok.body.binarySize, 16)
})

create('Modbus type on an MQTT product :: 422 errors.pointDataType', async () => {
  const p = await mkProduct(t.admin, 1)
  const r = await t.admin.post('/api/v1/data_points', base(p.id, { pointDataType: 21 }))
  assertError(r, 422, 'FORM_INVALID', ['pointDataType'])
  assert.match(r.body.errors.pointDataType, /protocol/)
})

create('Modbus product :: types 21-25 allowed, registerAddr required', async () => {
  const p = await mkProduct(t.admin, 7)
  const missing = await t.admin.post('/api/v1/data_points', base(p.id, { pointDataType: 22 }))
  assertError(missing, 422, 'FORM_INVALID', ['registerAddr'])
  const r = await t.admin.post(
    '/api/v1/data_points',
    base(p.id, { pointDataType: 22, registerAddr: '40001' }),
  )
  assert.is(r.status, 201, r.text)
  assert.is(r.body.pointDataTypeLabel, '无符号长整型')
  assert.is(r.body.registerAddr, '40001')
})

create('fault type without faultValue :: 422 errors.faultValue', async () => {
  const p = await mkProduct(t.admin)
  const r = await t.admin.post('/api/v1/data_points', base(p.id, { pointDataType: 4 }))
  assertError(r, 422, 'FORM_INVALID', ['faultValue'])
  const ok = await t.admin.post(
    '/api/v1/data_points',
    base(p.id, { pointDataType: 4, faultValue: 'E1', isDiscard: 1 }),
  )
  assert.is(ok.status, 201)
  assert.is(ok.body.faultValue, 'E1')
})

create('numeric-only fields on a string point :: 422 naming each field', async () => {
  const p = await mkProduct(t.admin)
  const r = await t.admin.post(
    '/api/v1/data_points',
    base(p.id, {
      pointDataType: 3,
      unitName: 'm',
      unitSymbol: 'm',
      upperLimit: 1,
      lowerLimit: 0,
      dataStep: 1,
    }),
  )
  assertError(r, 422, 'FORM_INVALID', [
    'unitName',
    'unitSymbol',
    'upperLimit',
    'lowerLimit',
    'dataStep',
  ])
})

create(
  'lowerLimit above upperLimit :: 422 errors.lowerLimit, with every other failing rule',
  async () => {
    const p = await mkProduct(t.admin, 7)
    const r = await t.admin.post(
      '/api/v1/data_points',
      base(p.id, { upperLimit: 1, lowerLimit: 2 }),
    )
    assertError(r, 422, 'FORM_INVALID', ['lowerLimit', 'registerAddr'])
  },
)

create('unknown or foreign productIntID :: 404 errors.productIntID', async () => {
  const r = await t.admin.post('/api/v1/data_points', base(987654))
  assertError(r, 404, 'DATA_NOT_FOUND', ['productIntID'])
  const other = await t.newTenant()
  const theirs = await mkProduct(other)
  const foreign = await t.admin.post('/api/v1/data_points', base(theirs.id))
  assertError(foreign, 404, 'DATA_NOT_FOUND', ['productIntID'])
})

create(
  'taken dataPointID or name in the product :: 400 DATA_EXISTED; free in another product',
  async () => {
    const p = await mkProduct(t.admin)
    const q = await mkProduct(t.admin)
    await t.admin.post(
      '/api/v1/data_points',
      base(p.id, { dataPointID: 'hum', dataPointName: 'Humidity' }),
    )
    const byId = await t.admin.post('/api/v1/data_points', base(p.id, { dataPointID: 'hum' }))
    assert.equal(byId.body, {
      errorCode: 'DATA_EXISTED',
      message: byId.body.message,
      errors: { dataPointID: 'already exists' },
    })
    assert.is(byId.status, 400)
    const byName = await t.admin.post(
      '/api/v1/data_points',
      base(p.id, { dataPointName: 'Humidity' }),
    )
    assertError(byName, 400, 'DATA_EXISTED', ['dataPointName'])
    const elsewhere = await t.admin.post(
      '/api/v1/data_points',
      base(q.id, { dataPointID: 'hum', dataPointName: 'Humidity' }),
    )
    assert.is(elsewhere.status, 201)
  },
)

create('non-JSON body :: 400 BAD_REQUEST; SQL-looking text stored verbatim', async () => {
  const bad = await t.admin.call('POST', '/api/v1/data_points', '{nope', {
    'content-type': 'application/json',
  })
  assertError(bad, 400, 'BAD_REQUEST', ['body'])
  const p = await mkProduct(t.admin)
  const name = "x'); DROP TABLE data_points; --"
  const r = await t.admin.post(
    '/api/v1/data_points',
    base(p.id, { dataPointName: name, detail: name }),
  )
  assert.is(r.status, 201)
  const back = await t.admin.get(
    `/api/v1/data_points?dataPointName_like=${encodeURIComponent('DROP TABLE')}`,
  )
  assert.is(back.body.meta.count, 1)
  assert.is(back.body.items[0].dataPointName, name)
})

create('viewer :: 403 PERMISSION_DENIED on writes, reads allowed', async () => {
  const p = await mkProduct(t.admin)
  const pt = await mkPoint(t.admin, p.id, 'v1')
  const viewer = await t.userWithRole('viewer')
  assertError(await viewer.post('/api/v1/data_points', base(p.id)), 403, 'PERMISSION_DENIED', [
    'role',
  ])
  assertError(
    await viewer.put(`/api/v1/data_points/${pt.id}`, { detail: 'x' }),
    403,
    'PERMISSION_DENIED',
    ['role'],
  )
  assertError(await viewer.del(`/api/v1/data_points?ids=${pt.id}`), 403, 'PERMISSION_DENIED', [
    'role',
  ])
  assert.is((await viewer.get(`/api/v1/data_points/${pt.id}`)).status, 200)
  assert.is((await viewer.get(`/api/v1/data_points?productID=${p.productID}`)).body.meta.count, 1)
})

create.run()

const list = suite('data points: list')

list('by productID :: only that product, page envelope, list form without createUser', async () => {
  const p = await mkProduct(t.admin)
  const q = await mkProduct(t.admin)
  await mkPoint(t.admin, p.id, 'a1', { dataPointName: 'Alpha' })
  await mkPoint(t.admin, p.id, 'b1', { dataPointName: 'Beta' })
  await mkPoint(t.admin, q.id, 'c1')
  const r = await t.admin.get<Points>(
    `/api/v1/data_points?productID=${p.productID}&_page=1&_limit=10`,
  )
  assert.is(r.status, 200)
  assert.equal(r.body.meta, { count: 2, limit: 10, page: 1, next: null })
  assert.equal(
    r.body.items.map((x) => x.dataPointID),
    ['b1', 'a1'],
  )
  assert.is(r.body.items[0]!.productName, p.productName)
  assert.is(r.body.items[0]!.productID, p.productID)
  assert.not.ok('createUser' in r.body.items[0]!)
  const like = await t.admin.get<Points>(
    `/api/v1/data_points?productID=${p.productID}&dataPointName_like=alp`,
  )
  assert.equal(
    like.body.items.map((x) => x.dataPointID),
    ['a1'],
  )
  const sorted = await t.admin.get<Points>(
    `/api/v1/data_points?productID=${p.productID}&_sort=dataPointID&_order=asc`,
  )
  assert.equal(
    sorted.body.items.map((x) => x.dataPointID),
    ['a1', 'b1'],
  )
})

list('productID of another tenant or unknown :: 200 empty page', async () => {
  const other = await t.newTenant()
  const theirs = await mkProduct(other)
  await mkPoint(other, theirs.id, 'secret')
  for (const productID of [theirs.productID, 'nope']) {
    const r = await t.admin.get(`/api/v1/data_points?productID=${productID}`)
    assert.is(r.status, 200)
    assert.equal(r.body, { items: [], meta: { count: 0, limit: 10, page: 1, next: null } })
  }
})

list('tenant isolation :: foreign ids 404 on detail, edit and delete; never listed', async () => {
  const other = await t.newTenant()
  const theirs = await mkProduct(other)
  const pt = await mkPoint(other, theirs.id, 'x1')
  assertError(await t.admin.get(`/api/v1/data_points/${pt.id}`), 404, 'DATA_NOT_FOUND', ['id'])
  assertError(
    await t.admin.put(`/api/v1/data_points/${pt.id}`, { detail: 'x' }),
    404,
    'DATA_NOT_FOUND',
    ['id'],
  )
  assertError(await t.admin.del(`/api/v1/data_points?ids=${pt.id}`), 404, 'DATA_NOT_FOUND', ['ids'])
  const all = await t.admin.get<Points>('/api/v1/data_points?_limit=1000')
  assert.not.ok(all.body.items.some((x) => x.id === pt.id))
  assert.is((await other.get(`/api/v1/data_points/${pt.id}`)).status, 200)
})

list.after(async () => t.close())

list.run()
