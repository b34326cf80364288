import * as assert from 'uvu/assert'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import { assertError, mkPoint, mkProduct, mkStream, TIME } from './_product-model.ts'

let t: TestService

const edit = serviceSuite('data points: edit and delete', (svc) => (t = svc))

edit('whole record sent back with a change :: 200, updateAt set', async () => {
  const p = await mkProduct(t.admin)
  const pt = await mkPoint(t.admin, p.id, 'e1', { unitName: 'C' })
  const r = await t.admin.put(`/api/v1/data_points/${pt.id}`, {
    ...pt,
    dataPointName: 'Edited',
    upperLimit: '12',
  })
  assert.is(r.status, 200, r.text)
  assert.is(r.body.dataPointName, 'Edited')
  assert.is(r.body.upperLimit, 12)
  assert.is(r.body.unitName, 'C')
  assert.match(r.body.updateAt, TIME)
  assert.is(r.body.createAt, pt.createAt)
})

edit('type change leaving numeric fields :: 422 naming them; clearing them :: 200', async () => {
  const p = await mkProduct(t.admin)
  const pt = await mkPoint(t.admin, p.id, 'e2', { unitName: 'C', dataStep: 1 })
  const r = await t.admin.put(`/api/v1/data_points/${pt.id}`, { pointDataType: 3 })
  assertError(r, 422, 'FORM_INVALID', ['unitName', 'dataStep'])
  const ok = await t.admin.put(`/api/v1/data_points/${pt.id}`, {
    pointDataType: 3,
    unitName: null,
    dataStep: null,
  })
  assert.is(ok.status, 200, ok.text)
  assert.is(ok.body.pointDataTypeLabel, '字符串')
  assert.is(ok.body.unitName, null)
})

edit('limits checked against the stored values :: 422 errors.lowerLimit', async () => {
  const p = await mkProduct(t.admin)
  const pt = await mkPoint(t.admin, p.id, 'e3', { upperLimit: 10 })
  assertError(
    await t.admin.put(`/api/v1/data_points/${pt.id}`, { lowerLimit: 11 }),
    422,
    'FORM_INVALID',
    ['lowerLimit'],
  )
})

edit('another productIntID :: 422 errors.productIntID; unknown id :: 404', async () => {
  const p = await mkProduct(t.admin)
  const q = await mkProduct(t.admin)
  const pt = await mkPoint(t.admin, p.id, 'e4')
  assertError(
    await t.admin.put(`/api/v1/data_points/${pt.id}`, { productIntID: q.id }),
    422,
    'FORM_INVALID',
    ['productIntID'],
  )
  assertError(
    await t.admin.put('/api/v1/data_points/999999', { detail: 'x' }),
    404,
    'DATA_NOT_FOUND',
    ['id'],
  )
})

edit('dataPointID or name taken in the product :: 400 DATA_EXISTED', async () => {
  const p = await mkProduct(t.admin)
  await mkPoint(t.admin, p.id, 'e5', { dataPointName: 'Five' })
  const pt = await mkPoint(t.admin, p.id, 'e6')
  assertError(
    await t.admin.put(`/api/v1/data_points/${pt.id}`, { dataPointID: 'e5' }),
    400,
    'DATA_EXISTED',
    ['dataPointID'],
  )
  assertError(
    await t.admin.put(`/api/v1/data_points/${pt.id}`, { dataPointName: 'Five' }),
    400,
    'DATA_EXISTED',
    ['dataPointName'],
  )
})

edit(
  'dataPointID read by a formula metric :: 422 errors.dataPointID; name change fine',
  async () => {
    const p = await mkProduct(t.admin)
    const a = await mkPoint(t.admin, p.id, 'fa')
    const b = await mkPoint(t.admin, p.id, 'fb')
    const m = await t.admin.post('/api/v1/metrics', {
      metricName: 'M',
      dataPointIntID: a.id,
      expressions: 'value + fb',
    })
    assert.is(m.status, 201, m.text)
    assertError(
      await t.admin.put(`/api/v1/data_points/${b.id}`, { dataPointID: 'fb2' }),
      422,
      'FORM_INVALID',
      ['dataPointID'],
    )
    assert.is(
      (await t.admin.put(`/api/v1/data_points/${b.id}`, { dataPointName: 'renamed' })).status,
      200,
    )
  },
)

edit(
  'delete :: 204 empty body, then 404; bad ids 400; unknown id 404 deletes nothing',
  async () => {
    const p = await mkProduct(t.admin)
    const a = await mkPoint(t.admin, p.id, 'd1')
    const b = await mkPoint(t.admin, p.id, 'd2')
    const partial = await t.admin.del(`/api/v1/data_points?ids=${b.id},987654`)
    assertError(partial, 404, 'DATA_NOT_FOUND', ['ids'])
    assert.is((await t.admin.get(`/api/v1/data_points/${b.id}`)).status, 200)
    const r = await t.admin.del(`/api/v1/data_points?ids=${a.id},${b.id}`)
    assert.is(r.status, 204)
    assert.is(r.text, '')
    assert.is((await t.admin.get(`/api/v1/data_points/${a.id}`)).status, 404)
    assertError(await t.admin.del('/api/v1/data_points?ids=x'), 400, 'PARAMETER_INVALID', ['ids'])
  },
)

edit(
  'point in a stream, metric, resource or template :: 400 REFERENCED_ERROR naming the use; all or none',
  async () => {
    const p = await mkProduct(t.admin)
    const free = await mkPoint(t.admin, p.id, 'r0')
    const inStream = await mkPoint(t.admin, p.id, 'r1')
    const inMetric = await mkPoint(t.admin, p.id, 'r2')
    const inFormula = await mkPoint(t.admin, p.id, 'r3')
    const inResource = await mkPoint(t.admin, p.id, 'r4')
    const inTemplate = await mkPoint(t.admin, p.id, 'r5')
    const s = await mkStream(t.admin, p.productID, [inStream.id])
    const m = await t.admin.post('/api/v1/metrics', {
      metricName: 'm1',
      dataPointIntID: inMetric.id,
      expressions: 'value * r3',
    })
    assert.is(m.status, 201, m.text)
    const res = await t.admin.post('/api/v1/product_resources', {
      codeValue: 'c',
      productIntID: p.id,
      dataPointIntID: inResource.id,
    })
    assert.is(res.status, 201, res.text)
    const tpl = await t.admin.post('/api/v1/app_templates', {
      templateName: 'T',
      templateType: 1,
      productID: p.productID,
      dataPointIntID: inTemplate.id,
    })
    assert.is(tpl.status, 201, tpl.text)
    const uses: Array<[{ id: number }, RegExp]> = [
      [inStream, /dataStreams/],
      [inMetric, /metrics/],
      [inFormula, /metrics/],
      [inResource, /productResources/],
      [inTemplate, /appTemplates/],
    ]
    for (const [pt, why] of uses) {
      const r = await t.admin.del(`/api/v1/data_points?ids=${free.id},${pt.id}`)
      assertError(r, 400, 'REFERENCED_ERROR', ['ids'])
      assert.match(r.body.errors.ids, why)
    }
    assert.is((await t.admin.get(`/api/v1/data_points/${free.id}`)).status, 200)
    // once the users are gone the points can go
    assert.is((await t.admin.del(`/api/v1/data_streams?ids=${s.id}`)).status, 204)
    assert.is((await t.admin.del(`/api/v1/metrics?ids=${m.body.id}`)).status, 204)
    assert.is((await t.admin.del(`/api/v1/product_resources?ids=${res.body.id}`)).status, 204)
    assert.is((await t.admin.del(`/api/v1/app_templates?ids=${tpl.body.id}`)).status, 204)
    const all = [free, ...uses.map(([pt]) => pt)].map((x) => x.id).join(',')
    assert.is((await t.admin.del(`/api/v1/data_points?ids=${all}`)).status, 204)
  },
)

edit.run()
