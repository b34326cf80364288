import * as assert from 'uvu/assert'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { DataPoint } from '../../../src/schemas/data-points.ts'
import type { MetricListItem } from '../../../src/schemas/metrics.ts'
import { assertError, mkPoint, mkProduct, mkStream, TIME } from './_product-model.ts'
import { restOf } from '../../_support/asserts.ts'

let t: TestService
let p: { id: number; productID: string; productName: string }
let temp: Wire<typeof DataPoint>
let hum: Wire<typeof DataPoint>
let dashed: Wire<typeof DataPoint>

const metrics = serviceSuite('metrics', async (svc) => {
  t = svc
  p = await mkProduct(t.admin)
  temp = await mkPoint(t.admin, p.id, 'temp', { dataPointName: 'Temperature' })
  hum = await mkPoint(t.admin, p.id, 'hum', { dataPointName: 'Humidity' })
  dashed = await mkPoint(t.admin, p.id, 't-1', { dataPointName: 'Dashed' })
})

let seq = 0
const name = () => `metric ${++seq}`

metrics('formula without metricType :: 201 record without labels, type 1, defaults', async () => {
  const r = await t.admin.post('/api/v1/metrics', {
    metricName: 'Fahrenheit',
    dataPointIntID: temp.id,
    expressions: 'temp * 1.8 + 32',
    expressionsLabel: 'F',
    chartType: 1,
    remark: 'r',
  })
  assert.is(r.status, 201, r.text)
  assert.equal(restOf(r.body), {
    metricName: 'Fahrenheit',
    metricType: 1,
    dataPointIntID: temp.id,
    dataPointName: 'Temperature',
    aggregateType: null,
    aggregateData: 2,
    aggregateInterval: null,
    chartType: 1,
    expressions: 'temp * 1.8 + 32',
    expressionsLabel: 'F',
    isShow: 1,
    productID: p.productID,
    productName: p.productName,
    productItemIntID: null,
    remark: 'r',
    dataStreamIntID: null,
    createUser: 'admin',
    updateAt: null,
  })
})

metrics('detail :: all four labels, zh and en', async () => {
  const c = await t.admin.post('/api/v1/metrics', {
    metricName: name(),
    dataPointIntID: hum.id,
    aggregateType: 3,
    aggregateData: 1,
    expressions: 'value / 100',
    chartType: 2,
    isShow: 0,
  })
  assert.is(c.status, 201, c.text)
  assert.is(c.body.metricType, 1)
  const r = await t.admin.get(`/api/v1/metrics/${c.body.id}`)
  assert.is(r.status, 200)
  assert.equal(
    [
      r.body.metricTypeLabel,
      r.body.aggregateTypeLabel,
      r.body.aggregateDataLabel,
      r.body.chartTypeLabel,
      r.body.isShow,
    ],
    ['公式指标', '平均值', '公式值', '柱状图', 0],
  )
  const en = await t.admin.english().get(`/api/v1/metrics/${c.body.id}`)
  assert.equal(
    [
      en.body.metricTypeLabel,
      en.body.aggregateTypeLabel,
      en.body.aggregateDataLabel,
      en.body.chartTypeLabel,
    ],
    ['Formula metric', 'Average', 'Formula value', 'Bar chart'],
  )
})

metrics('aggregate without metricType :: 201 type 2', async () => {
  const r = await t.admin.post('/api/v1/metrics', {
    metricName: name(),
    dataPointIntID: temp.id,
    aggregateType: 1,
  })
  assert.is(r.status, 201, r.text)
  assert.equal(
    [r.body.metricType, r.body.aggregateType, r.body.aggregateData, r.body.expressions],
    [2, 1, 2, null],
  )
})

metrics(
  'formula rules :: type 1 without expressions, type 2 without aggregateType, aggregateData 1 without formula',
  async () => {
    assertError(
      await t.admin.post('/api/v1/metrics', {
        metricName: name(),
        dataPointIntID: temp.id,
        metricType: 1,
      }),
      422,
      'FORM_INVALID',
      ['expressions'],
    )
    assertError(
      await t.admin.post('/api/v1/metrics', { metricName: name(), dataPointIntID: temp.id }),
      422,
      'FORM_INVALID',
      ['aggregateType'],
    )
    assertError(
      await t.admin.post('/api/v1/metrics', {
        metricName: name(),
        dataPointIntID: temp.id,
        metricType: 2,
        aggregateData: 1,
      }),
      422,
      'FORM_INVALID',
      ['aggregateType', 'expressions'],
    )
    assertError(
      await t.admin.post('/api/v1/metrics', {
        metricName: name(),
        dataPointIntID: temp.id,
        metricType: 2,
        expressions: 'nope',
        aggregateType: 1,
      }),
      422,
      'FORM_INVALID',
      ['expressions'],
    )
  },
)

metrics('empty body and wrong types :: 422 naming every field', async () => {
  assertError(await t.admin.post('/api/v1/metrics', {}), 422, 'FORM_INVALID', [
    'metricName',
    'dataPointIntID',
  ])
  const r = await t.admin.post('/api/v1/metrics', {
    metricName: 'x',
    dataPointIntID: 'a',
    metricType: 3,
    aggregateType: 5,
    aggregateData: 3,
    chartType: 3,
    isShow: 2,
    expressions: 5,
  })
  assertError(r, 422, 'FORM_INVALID', [
    'dataPointIntID',
    'metricType',
    'aggregateType',
    'aggregateData',
    'chartType',
    'isShow',
    'expressions',
  ])
})

metrics(
  'aggregateInterval :: a window like 5m, 1h, 1d or 1mo, on an aggregate metric only',
  async () => {
    for (const bad of ['5', '0m', '1s', '1w', '15 m', 'abc', 7, '99999h'])
      assertError(
        await t.admin.post('/api/v1/metrics', {
          metricName: name(),
          dataPointIntID: temp.id,
          metricType: 2,
          aggregateType: 3,
          aggregateInterval: bad,
        }),
        422,
        'FORM_INVALID',
        ['aggregateInterval'],
      )
    const formula = await t.admin.post('/api/v1/metrics', {
      metricName: name(),
      dataPointIntID: temp.id,
      expressions: 'value * 2',
      aggregateInterval: '5m',
    })
    assertError(formula, 422, 'FORM_INVALID', ['aggregateInterval'])
    assert.match(formula.body.errors.aggregateInterval, /only an aggregate metric/)
    const ok = await t.admin.post('/api/v1/metrics', {
      metricName: name(),
      dataPointIntID: temp.id,
      metricType: 2,
      aggregateType: 3,
      aggregateInterval: '15m',
    })
    assert.is(ok.status, 201, ok.text)
    assert.is(ok.body.aggregateInterval, '15m')
    const edited = await t.admin.put(`/api/v1/metrics/${ok.body.id}`, { aggregateInterval: '1mo' })
    assert.is(edited.body.aggregateInterval, '1mo')
    const cleared = await t.admin.put(`/api/v1/metrics/${ok.body.id}`, { aggregateInterval: null })
    assert.is(cleared.body.aggregateInterval, null)
    assert.is((await t.admin.get(`/api/v1/metrics/${ok.body.id}`)).body.aggregateInterval, null)
  },
)

metrics('formula syntax error :: 422 errors.expressions with the parser message', async () => {
  const r = await t.admin.post('/api/v1/metrics', {
    metricName: name(),
    dataPointIntID: temp.id,
    expressions: 'temp *',
  })
  assertError(r, 422, 'FORM_INVALID', ['expressions'])
  assert.match(r.body.errors.expressions, /Unexpected end of expression/)
})

metrics('unknown symbols :: 422 errors.expressions naming them', async () => {
  const r = await t.admin.post('/api/v1/metrics', {
    metricName: name(),
    dataPointIntID: temp.id,
    expressions: 'temp + pressure * foo',
  })
  assertError(r, 422, 'FORM_INVALID', ['expressions'])
  assert.match(r.body.errors.expressions, /pressure, foo/)
  const dp = await t.admin.post('/api/v1/metrics', {
    metricName: name(),
    dataPointIntID: temp.id,
    expressions: 'dp("t-2") + 1',
  })
  assert.match(dp.body.errors.expressions, /t-2/)
})

metrics('hostile formulas :: 422 errors.expressions, nothing stored', async () => {
  const hostile = [
    'import({}, {})',
    "createUnit('x')",
    'evaluate("1")',
    'f(x) = x',
    'a = 1',
    '[1,2]',
    '{}',
    'temp.constructor',
    'cos.constructor("return process")',
    'parse("1")',
    'temp; hum',
  ]
  // each attempt under a name of its own: none of them may be in the product's metrics afterwards
  const tried: string[] = []
  for (const expressions of hostile) {
    const metricName = name()
    tried.push(metricName)
    const r = await t.admin.post('/api/v1/metrics', {
      metricName,
      dataPointIntID: temp.id,
      expressions,
    })
    assertError(r, 422, 'FORM_INVALID', ['expressions'])
  }
  const all = await t.admin.get<Page<Wire<typeof MetricListItem>>>(
    `/api/v1/metrics?productID=${p.productID}&_limit=1000`,
  )
  assert.ok(all.body.items.length > 0, 'the product has the metrics made before')
  assert.not.ok(all.body.items.some((m) => tried.includes(m.metricName)))
})

metrics('dp() for ids with a dash and value for the own point :: 201', async () => {
  const r = await t.admin.post('/api/v1/metrics', {
    metricName: name(),
    dataPointIntID: dashed.id,
    expressions: 'dp("t-1") + hum + value',
  })
  assert.is(r.status, 201, r.text)
})

metrics('points of another product in a formula :: 422 (their ids are unknown here)', async () => {
  const q = await mkProduct(t.admin)
  await mkPoint(t.admin, q.id, 'elsewhere')
  const r = await t.admin.post('/api/v1/metrics', {
    metricName: name(),
    dataPointIntID: temp.id,
    expressions: 'elsewhere * 2',
  })
  assertError(r, 422, 'FORM_INVALID', ['expressions'])
})

metrics('unknown or foreign dataPointIntID :: 404 errors.dataPointIntID', async () => {
  assertError(
    await t.admin.post('/api/v1/metrics', {
      metricName: name(),
      dataPointIntID: 987654,
      aggregateType: 1,
    }),
    404,
    'DATA_NOT_FOUND',
    ['dataPointIntID'],
  )
  const other = await t.newTenant()
  const op = await mkProduct(other)
  const theirs = await mkPoint(other, op.id, 'temp')
  assertError(
    await t.admin.post('/api/v1/metrics', {
      metricName: name(),
      dataPointIntID: theirs.id,
      aggregateType: 1,
    }),
    404,
    'DATA_NOT_FOUND',
    ['dataPointIntID'],
  )
})

metrics('taken name in the product :: 400 DATA_EXISTED errors.metricName', async () => {
  await t.admin.post('/api/v1/metrics', {
    metricName: 'Same',
    dataPointIntID: temp.id,
    aggregateType: 1,
  })
  const r = await t.admin.post('/api/v1/metrics', {
    metricName: 'Same',
    dataPointIntID: hum.id,
    aggregateType: 2,
  })
  assertError(r, 400, 'DATA_EXISTED', ['metricName'])
})

metrics('stream on create or edit :: must be of the same product (422), known (404)', async () => {
  const q = await mkProduct(t.admin)
  const qs = await mkStream(t.admin, q.productID, [])
  const ps = await mkStream(t.admin, p.productID, [])
  const bad = await t.admin.post('/api/v1/metrics', {
    metricName: name(),
    dataPointIntID: temp.id,
    aggregateType: 1,
    dataStreamIntID: qs.id,
  })
  assertError(bad, 422, 'FORM_INVALID', ['dataStreamIntID'])
  const c = await t.admin.post('/api/v1/metrics', {
    metricName: name(),
    dataPointIntID: temp.id,
    aggregateType: 1,
  })
  assertError(
    await t.admin.put(`/api/v1/metrics/${c.body.id}`, { dataStreamIntID: 987654 }),
    404,
    'DATA_NOT_FOUND',
    ['dataStreamIntID'],
  )
  assertError(
    await t.admin.put(`/api/v1/metrics/${c.body.id}`, { dataStreamIntID: qs.id }),
    422,
    'FORM_INVALID',
    ['dataStreamIntID'],
  )
  const ok = await t.admin.put(`/api/v1/metrics/${c.body.id}`, { dataStreamIntID: ps.id })
  assert.is(ok.status, 200, ok.text)
  assert.is(ok.body.dataStreamIntID, ps.id)
})

metrics(
  'edit :: 200 record without labels, detail sent back accepted, formula rechecked',
  async () => {
    const c = await t.admin.post('/api/v1/metrics', {
      metricName: name(),
      dataPointIntID: temp.id,
      expressions: 'temp + 1',
    })
    const detail = (await t.admin.get(`/api/v1/metrics/${c.body.id}`)).body
    const r = await t.admin.put(`/api/v1/metrics/${c.body.id}`, {
      ...detail,
      expressions: 'max(temp, hum)',
      expressionsLabel: 'max',
    })
    assert.is(r.status, 200, r.text)
    assert.is(r.body.expressions, 'max(temp, hum)')
    assert.not.ok('metricTypeLabel' in r.body)
    assert.match(r.body.updateAt, TIME)
    assertError(
      await t.admin.put(`/api/v1/metrics/${c.body.id}`, { expressions: 'x.y' }),
      422,
      'FORM_INVALID',
      ['expressions'],
    )
    assertError(
      await t.admin.put(`/api/v1/metrics/${c.body.id}`, { expressions: null }),
      422,
      'FORM_INVALID',
      ['expressions'],
    )
    // the formula now reads hum: hum cannot be deleted
    const del = await t.admin.del(`/api/v1/data_points?ids=${hum.id}`)
    assertError(del, 400, 'REFERENCED_ERROR', ['ids'])
  },
)

metrics('edit dataPointIntID :: same product fine, another product 422, unknown 404', async () => {
  const c = await t.admin.post('/api/v1/metrics', {
    metricName: name(),
    dataPointIntID: temp.id,
    aggregateType: 1,
  })
  const q = await mkProduct(t.admin)
  const qp = await mkPoint(t.admin, q.id, 'qq')
  assertError(
    await t.admin.put(`/api/v1/metrics/${c.body.id}`, { dataPointIntID: qp.id }),
    422,
    'FORM_INVALID',
    ['dataPointIntID'],
  )
  assertError(
    await t.admin.put(`/api/v1/metrics/${c.body.id}`, { dataPointIntID: 987654 }),
    404,
    'DATA_NOT_FOUND',
    ['dataPointIntID'],
  )
  const ok = await t.admin.put(`/api/v1/metrics/${c.body.id}`, { dataPointIntID: hum.id })
  assert.is(ok.status, 200)
  assert.is(ok.body.dataPointName, 'Humidity')
  assertError(await t.admin.put('/api/v1/metrics/987654', { remark: 'x' }), 404, 'DATA_NOT_FOUND', [
    'id',
  ])
})

metrics('list :: list form with the product, filters, foreign productID empty', async () => {
  const q = await mkProduct(t.admin)
  const qp = await mkPoint(t.admin, q.id, 'lp', { dataPointName: 'LP' })
  await t.admin.post('/api/v1/metrics', {
    metricName: 'Listed A',
    dataPointIntID: qp.id,
    aggregateType: 1,
  })
  await t.admin.post('/api/v1/metrics', {
    metricName: 'Listed B',
    dataPointIntID: qp.id,
    expressions: 'lp * 2',
  })
  const r = await t.admin.get(`/api/v1/metrics?productID=${q.productID}`)
  assert.equal(r.body.meta, { count: 2, limit: 10, page: 1, next: null })
  const { id, ...item } = r.body.items[0]
  assert.type(id, 'number')
  assert.equal(item, {
    metricName: 'Listed B',
    metricType: 1,
    metricTypeLabel: '公式指标',
    dataPointName: 'LP',
    productID: q.productID,
    productName: q.productName,
  })
  assert.is(
    (await t.admin.get(`/api/v1/metrics?productID=${q.productID}&metricType=2`)).body.items[0]
      .metricName,
    'Listed A',
  )
  assert.is((await t.admin.get(`/api/v1/metrics?metricName_like=listed b`)).body.meta.count, 1)
  const other = await t.newTenant()
  assert.equal((await other.get(`/api/v1/metrics?productID=${q.productID}`)).body.items, [])
  assert.equal((await t.admin.get('/api/v1/metrics?productID=nope')).body.meta.count, 0)
})

metrics('delete :: 204 all or none; then the formula points are free', async () => {
  const q = await mkProduct(t.admin)
  const a = await mkPoint(t.admin, q.id, 'da')
  const b = await mkPoint(t.admin, q.id, 'db')
  const m = await t.admin.post('/api/v1/metrics', {
    metricName: name(),
    dataPointIntID: a.id,
    expressions: 'db + 1',
  })
  assertError(await t.admin.del(`/api/v1/metrics?ids=${m.body.id},987654`), 404, 'DATA_NOT_FOUND', [
    'ids',
  ])
  const r = await t.admin.del(`/api/v1/metrics?ids=${m.body.id}`)
  assert.is(r.status, 204)
  assert.is(r.text, '')
  assertError(await t.admin.get(`/api/v1/metrics/${m.body.id}`), 404, 'DATA_NOT_FOUND', ['id'])
  assert.is((await t.admin.del(`/api/v1/data_points?ids=${a.id},${b.id}`)).status, 204)
})

metrics('tenant isolation and viewer :: 404 foreign ids, never listed; viewer 403', async () => {
  const other = await t.newTenant()
  const op = await mkProduct(other)
  const opt = await mkPoint(other, op.id, 'x')
  const theirs = await other.post('/api/v1/metrics', {
    metricName: 'theirs',
    dataPointIntID: opt.id,
    aggregateType: 1,
  })
  const id = theirs.body.id
  assertError(await t.admin.get(`/api/v1/metrics/${id}`), 404, 'DATA_NOT_FOUND', ['id'])
  assertError(await t.admin.put(`/api/v1/metrics/${id}`, { remark: 'x' }), 404, 'DATA_NOT_FOUND', [
    'id',
  ])
  assertError(await t.admin.del(`/api/v1/metrics?ids=${id}`), 404, 'DATA_NOT_FOUND', ['ids'])
  assert.not.ok(
    (
      await t.admin.get<Page<Wire<typeof MetricListItem>>>('/api/v1/metrics?_limit=1000')
    ).body.items.some((m) => m.id === id),
  )
  const viewer = await t.userWithRole('viewer')
  assertError(
    await viewer.post('/api/v1/metrics', {
      metricName: name(),
      dataPointIntID: temp.id,
      aggregateType: 1,
    }),
    403,
    'PERMISSION_DENIED',
    ['role'],
  )
  assert.is((await viewer.get('/api/v1/metrics')).status, 200)
})

metrics('SQL-looking name :: stored verbatim', async () => {
  const n = "m'); DROP TABLE metrics; --"
  const r = await t.admin.post('/api/v1/metrics', {
    metricName: n,
    dataPointIntID: temp.id,
    aggregateType: 4,
    remark: n,
  })
  assert.is(r.status, 201)
  assert.is((await t.admin.get(`/api/v1/metrics/${r.body.id}`)).body.metricName, n)
})

metrics.run()
