import * as assert from 'uvu/assert'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { DataStreamListItem } from '../../../src/schemas/data-streams.ts'
import { assertError, mkPoint, mkProduct, mkStream, TIME } from './_product-model.ts'

type Streams = Page<Wire<typeof DataStreamListItem>>

let t: TestService

const streams = serviceSuite('data streams', (svc) => (t = svc))

const body = (productID: string, extra: object = {}) => ({
  productID,
  streamName: 'Report',
  streamType: 1,
  streamDataType: 1,
  topic: 'data/report',
  ...extra,
})

streams('create :: 201 detail with point ids and names, labels, product joined', async () => {
  const p = await mkProduct(t.admin)
  const a = await mkPoint(t.admin, p.id, 'temp', { dataPointName: 'Temperature' })
  const b = await mkPoint(t.admin, p.id, 'hum', { dataPointName: 'Humidity' })
  const r = await t.admin.post(
    '/api/v1/data_streams',
    body(p.productID, { dataPoints: [b.id, a.id, a.id], detail: 'd' }),
  )
  assert.is(r.status, 201, r.text)
  const { id, createAt, userIntID, ...rest } = r.body
  assert.type(id, 'number')
  assert.type(userIntID, 'number')
  assert.match(createAt, TIME)
  assert.equal(rest, {
    productID: p.productID,
    productName: p.productName,
    streamName: 'Report',
    streamType: 1,
    streamTypeLabel: '设备数据上报',
    streamDataType: 1,
    streamDataTypeLabel: 'JSON',
    topic: 'data/report',
    dataPoints: [a.id, b.id],
    dataPointNames: ['Temperature', 'Humidity'],
    detail: 'd',
    updateAt: null,
  })
  const en = await t.admin.english().get(`/api/v1/data_streams/${id}`)
  assert.is(en.body.streamDataTypeLabel, 'JSON')
  assert.is(en.body.streamTypeLabel, 'Device data report')
})

streams('by productIntID, no points, gateway type :: 201 with empty arrays', async () => {
  const p = await mkProduct(t.admin)
  const r = await t.admin.post('/api/v1/data_streams', {
    ...body(''),
    productID: undefined,
    productIntID: String(p.id),
    streamType: 3,
    streamDataType: 2,
  })
  assert.is(r.status, 201, r.text)
  assert.equal([r.body.dataPoints, r.body.dataPointNames, r.body.productID], [[], [], p.productID])
  assert.is(r.body.streamDataTypeLabel, '二进制')
})

streams(
  'empty body :: 422 naming every required field; no product :: 422 errors.productID',
  async () => {
    assertError(await t.admin.post('/api/v1/data_streams', {}), 422, 'FORM_INVALID', [
      'streamName',
      'streamType',
      'streamDataType',
      'topic',
    ])
    const { productID: _, ...noProduct } = body('x')
    assertError(await t.admin.post('/api/v1/data_streams', noProduct), 422, 'FORM_INVALID', [
      'productID',
    ])
    const r = await t.admin.post(
      '/api/v1/data_streams',
      body('x', { streamType: 5, streamDataType: 3, dataPoints: 'a' }),
    )
    assertError(r, 422, 'FORM_INVALID', ['streamType', 'streamDataType', 'dataPoints'])
  },
)

streams('bad topics :: 422 errors.topic', async () => {
  const p = await mkProduct(t.admin)
  for (const topic of ['a/+/b', 'a/#', '/abs', '', 'x'.repeat(201), 'a\u0000b', 5]) {
    assertError(
      await t.admin.post('/api/v1/data_streams', body(p.productID, { topic })),
      422,
      'FORM_INVALID',
      ['topic'],
    )
  }
})

streams('unknown or foreign product :: 404 errors.productID / errors.productIntID', async () => {
  const other = await t.newTenant()
  const theirs = await mkProduct(other)
  assertError(await t.admin.post('/api/v1/data_streams', body('nope')), 404, 'DATA_NOT_FOUND', [
    'productID',
  ])
  assertError(
    await t.admin.post('/api/v1/data_streams', body(theirs.productID)),
    404,
    'DATA_NOT_FOUND',
    ['productID'],
  )
  const { productID: _, ...rest } = body('x')
  assertError(
    await t.admin.post('/api/v1/data_streams', { ...rest, productIntID: theirs.id }),
    404,
    'DATA_NOT_FOUND',
    ['productIntID'],
  )
})

streams(
  'points of another product :: 422 errors.dataPoints; unknown or foreign ids :: 404 errors.dataPoints',
  async () => {
    const p = await mkProduct(t.admin)
    const q = await mkProduct(t.admin)
    const mine = await mkPoint(t.admin, p.id, 'm1')
    const elsewhere = await mkPoint(t.admin, q.id, 'q1')
    const r = await t.admin.post(
      '/api/v1/data_streams',
      body(p.productID, { dataPoints: [mine.id, elsewhere.id] }),
    )
    assertError(r, 422, 'FORM_INVALID', ['dataPoints'])
    assert.match(r.body.errors.dataPoints, new RegExp(String(elsewhere.id)))
    const other = await t.newTenant()
    const op = await mkProduct(other)
    const foreign = await mkPoint(other, op.id, 'f1')
    const nf = await t.admin.post(
      '/api/v1/data_streams',
      body(p.productID, { dataPoints: [foreign.id, 987654] }),
    )
    assertError(nf, 404, 'DATA_NOT_FOUND', ['dataPoints'])
    assert.match(nf.body.errors.dataPoints, new RegExp(`${foreign.id}, 987654`))
    assert.is(
      (await t.admin.get(`/api/v1/data_streams?productID=${p.productID}`)).body.meta.count,
      0,
    )
  },
)

streams(
  'taken topic or name in the product :: 400 DATA_EXISTED; same topic in another product fine',
  async () => {
    const p = await mkProduct(t.admin)
    const q = await mkProduct(t.admin)
    await t.admin.post(
      '/api/v1/data_streams',
      body(p.productID, { topic: 't/1', streamName: 'one' }),
    )
    assertError(
      await t.admin.post(
        '/api/v1/data_streams',
        body(p.productID, { topic: 't/1', streamName: 'two' }),
      ),
      400,
      'DATA_EXISTED',
      ['topic'],
    )
    assertError(
      await t.admin.post(
        '/api/v1/data_streams',
        body(p.productID, { topic: 't/2', streamName: 'one' }),
      ),
      400,
      'DATA_EXISTED',
      ['streamName'],
    )
    assert.is(
      (
        await t.admin.post(
          '/api/v1/data_streams',
          body(q.productID, { topic: 't/1', streamName: 'one' }),
        )
      ).status,
      201,
    )
  },
)

streams(
  'list :: list form, filters by productID, streamName, topic, streamType; foreign productID empty',
  async () => {
    const p = await mkProduct(t.admin)
    await mkStream(t.admin, p.productID, [], { streamName: 'Up', topic: 'up/x', streamType: 1 })
    await mkStream(t.admin, p.productID, [], { streamName: 'Down', topic: 'down/x', streamType: 2 })
    const r = await t.admin.get<Streams>(`/api/v1/data_streams?productID=${p.productID}`)
    assert.equal(r.body.meta, { count: 2, limit: 10, page: 1, next: null })
    assert.equal(Object.keys(r.body.items[0]!), [
      'id',
      'productID',
      'productName',
      'streamName',
      'streamType',
      'streamTypeLabel',
      'streamDataType',
      'streamDataTypeLabel',
      'topic',
    ])
    assert.equal(
      r.body.items.map((s) => s.streamName),
      ['Down', 'Up'],
    )
    const q = `productID=${p.productID}`
    assert.equal(
      (await t.admin.get<Streams>(`/api/v1/data_streams?${q}&streamName_like=u`)).body.items.map(
        (s) => s.streamName,
      ),
      ['Up'],
    )
    assert.equal(
      (await t.admin.get<Streams>(`/api/v1/data_streams?${q}&topic=down/x`)).body.items.map(
        (s) => s.streamName,
      ),
      ['Down'],
    )
    assert.equal((await t.admin.get(`/api/v1/data_streams?${q}&streamType=2`)).body.meta.count, 1)
    const other = await t.newTenant()
    assert.equal((await other.get(`/api/v1/data_streams?${q}`)).body, {
      items: [],
      meta: { count: 0, limit: 10, page: 1, next: null },
    })
  },
)

streams('edit :: 200, record sent back, points replaced', async () => {
  const p = await mkProduct(t.admin)
  const a = await mkPoint(t.admin, p.id, 'ea')
  const b = await mkPoint(t.admin, p.id, 'eb')
  const s = await mkStream(t.admin, p.productID, [a.id])
  const r = await t.admin.put(`/api/v1/data_streams/${s.id}`, {
    ...s,
    streamName: 'Renamed',
    dataPoints: [b.id],
  })
  assert.is(r.status, 200, r.text)
  assert.is(r.body.streamName, 'Renamed')
  assert.equal(r.body.dataPoints, [b.id])
  assert.match(r.body.updateAt, TIME)
  const keep = await t.admin.put(`/api/v1/data_streams/${s.id}`, { detail: 'only detail' })
  assert.equal(keep.body.dataPoints, [b.id])
  assert.is(keep.body.topic, s.topic)
  // a to-be-deleted point is no longer linked
  assert.is((await t.admin.del(`/api/v1/data_points?ids=${a.id}`)).status, 204)
})

streams(
  'edit rules :: other product 422, bad points 422/404, taken topic 400, unknown id 404',
  async () => {
    const p = await mkProduct(t.admin)
    const q = await mkProduct(t.admin)
    const qp = await mkPoint(t.admin, q.id, 'qp')
    const s = await mkStream(t.admin, p.productID, [])
    const s2 = await mkStream(t.admin, p.productID, [])
    assertError(
      await t.admin.put(`/api/v1/data_streams/${s.id}`, { productID: q.productID }),
      422,
      'FORM_INVALID',
      ['productID'],
    )
    assertError(
      await t.admin.put(`/api/v1/data_streams/${s.id}`, { dataPoints: [qp.id] }),
      422,
      'FORM_INVALID',
      ['dataPoints'],
    )
    assertError(
      await t.admin.put(`/api/v1/data_streams/${s.id}`, { dataPoints: [987654] }),
      404,
      'DATA_NOT_FOUND',
      ['dataPoints'],
    )
    assertError(
      await t.admin.put(`/api/v1/data_streams/${s.id}`, { topic: s2.topic }),
      400,
      'DATA_EXISTED',
      ['topic'],
    )
    assertError(
      await t.admin.put(`/api/v1/data_streams/${s.id}`, { topic: 'a/#' }),
      422,
      'FORM_INVALID',
      ['topic'],
    )
    assertError(
      await t.admin.put('/api/v1/data_streams/987654', { detail: 'x' }),
      404,
      'DATA_NOT_FOUND',
      ['id'],
    )
  },
)

streams('delete :: 204 with links; refused while a template or metric references it', async () => {
  const p = await mkProduct(t.admin)
  const a = await mkPoint(t.admin, p.id, 'da')
  const s1 = await mkStream(t.admin, p.productID, [a.id])
  const s2 = await mkStream(t.admin, p.productID, [])
  const s3 = await mkStream(t.admin, p.productID, [])
  const tpl = await t.admin.post('/api/v1/app_templates', {
    templateName: 'T',
    templateType: 1,
    productID: p.productID,
    dataStreamIntID: s2.id,
  })
  assert.is(tpl.status, 201, tpl.text)
  const m = await t.admin.post('/api/v1/metrics', {
    metricName: 'm',
    dataPointIntID: a.id,
    aggregateType: 1,
    dataStreamIntID: s3.id,
  })
  assert.is(m.status, 201, m.text)
  const byTpl = await t.admin.del(`/api/v1/data_streams?ids=${s1.id},${s2.id}`)
  assertError(byTpl, 400, 'REFERENCED_ERROR', ['ids'])
  assert.match(byTpl.body.errors.ids, /appTemplates/)
  const byMetric = await t.admin.del(`/api/v1/data_streams?ids=${s3.id}`)
  assertError(byMetric, 400, 'REFERENCED_ERROR', ['ids'])
  assert.match(byMetric.body.errors.ids, /metrics/)
  assert.is((await t.admin.get(`/api/v1/data_streams/${s1.id}`)).status, 200)
  const ok = await t.admin.del(`/api/v1/data_streams?ids=${s1.id}`)
  assert.is(ok.status, 204)
  assert.is(ok.text, '')
  assertError(await t.admin.get(`/api/v1/data_streams/${s1.id}`), 404, 'DATA_NOT_FOUND', ['id'])
  assertError(await t.admin.del('/api/v1/data_streams?ids=987654'), 404, 'DATA_NOT_FOUND', ['ids'])
})

streams('tenant isolation and viewer :: 404 foreign ids; viewer 403 on writes', async () => {
  const other = await t.newTenant()
  const op = await mkProduct(other)
  const theirs = await mkStream(other, op.productID, [])
  assertError(await t.admin.get(`/api/v1/data_streams/${theirs.id}`), 404, 'DATA_NOT_FOUND', ['id'])
  assertError(
    await t.admin.put(`/api/v1/data_streams/${theirs.id}`, { detail: 'x' }),
    404,
    'DATA_NOT_FOUND',
    ['id'],
  )
  assertError(await t.admin.del(`/api/v1/data_streams?ids=${theirs.id}`), 404, 'DATA_NOT_FOUND', [
    'ids',
  ])
  assert.not.ok(
    (await t.admin.get<Streams>('/api/v1/data_streams?_limit=1000')).body.items.some(
      (s) => s.id === theirs.id,
    ),
  )
  const viewer = await t.userWithRole('viewer')
  const p = await mkProduct(t.admin)
  assertError(
    await viewer.post('/api/v1/data_streams', body(p.productID)),
    403,
    'PERMISSION_DENIED',
    ['role'],
  )
  assert.is((await viewer.get('/api/v1/data_streams')).status, 200)
})

streams('SQL-looking name and non-JSON body :: stored verbatim; 400 BAD_REQUEST', async () => {
  const p = await mkProduct(t.admin)
  const name = "s'; DELETE FROM data_streams; --"
  const r = await t.admin.post(
    '/api/v1/data_streams',
    body(p.productID, { streamName: name, topic: "a/'b" }),
  )
  assert.is(r.status, 201)
  assert.is((await t.admin.get(`/api/v1/data_streams/${r.body.id}`)).body.streamName, name)
  assertError(await t.admin.call('POST', '/api/v1/data_streams', 'nope'), 400, 'BAD_REQUEST', [
    'body',
  ])
})

streams.run()
