import * as assert from 'uvu/assert'
import type { Client, TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import { alertWorld, clock, ruleBody, type AlertWorld, type Devices } from './_alerts.ts'
import { assertRefusal } from '../../_support/asserts.ts'

const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/

let t: TestService
let w: AlertWorld<Devices<1>>
let viewer: Client

const rules = serviceSuite(
  '/api/v1/alert_rules: CRUD',
  async (svc) => {
    t = svc
    w = await alertWorld(t.admin, 1)
    viewer = await t.userWithRole('viewer')
  },
  { INGEST_LINGER_MS: '2' },
  { now: clock.now },
)

rules('create :: 201 whole record with label and defaults', async () => {
  const r = await t.admin.post('/api/v1/alert_rules', {
    ...ruleBody(w, { ruleName: 'Hot' }),
    deviceIntIDs: [w.devices[0].id],
    alertContent: '{deviceName} is at {value:temp}',
  })
  assert.is(r.status, 201, r.text)
  const { id, createAt, ...rest } = r.body
  assert.ok(id > 0)
  assert.match(createAt, TIME)
  assert.equal(rest, {
    ruleName: 'Hot',
    productID: w.product.productID,
    productName: w.product.productName,
    deviceIntIDs: [w.devices[0].id],
    condition: 'temp > 80',
    alertSeverity: 1,
    alertSeverityLabel: '紧急',
    forSeconds: 0,
    clearCondition: null,
    clearForSeconds: 0,
    noDataSeconds: null,
    alertContent: '{deviceName} is at {value:temp}',
    enable: 1,
    createUser: 'admin',
    updateAt: null,
  })
  const detail = await t.admin.english().get(`/api/v1/alert_rules/${id}`)
  assert.is(detail.body.alertSeverityLabel, 'Urgent')
})

rules(
  'list, edit :: filters, partial edit keeps the rest; same name 400 DATA_EXISTED',
  async () => {
    const list = await t.admin.get('/api/v1/alert_rules?ruleName_like=ho')
    assert.is(list.body.meta.count, 1)
    const id = list.body.items[0].id
    const r = await t.admin.put(`/api/v1/alert_rules/${id}`, { forSeconds: 30, enable: 0 })
    assert.is(r.status, 200, r.text)
    assert.equal([r.body.forSeconds, r.body.enable, r.body.condition], [30, 0, 'temp > 80'])
    assert.match(r.body.updateAt, TIME)
    const dup = await t.admin.post('/api/v1/alert_rules', ruleBody(w, { ruleName: 'Hot' }))
    assert.is(dup.status, 400)
    assert.is(dup.body.errorCode, 'DATA_EXISTED')
    assert.equal(Object.keys(dup.body.errors), ['ruleName'])
  },
)

rules('hostile or unknown conditions :: 422 FORM_INVALID errors.condition', async () => {
  const bad = [
    'import("fs")',
    'evaluate("1")',
    'temp.constructor',
    'f(x) = 1',
    'x = 1',
    '[1, 2]',
    '{a: 1}',
    'pressure > 3',
    'temp > ',
    '1 > 0',
    'a' + ' or a'.repeat(300),
  ]
  for (const condition of bad) {
    const r = await t.admin.post('/api/v1/alert_rules', ruleBody(w, { condition }))
    assert.is(r.status, 422, condition)
    assert.is(r.body.errorCode, 'FORM_INVALID')
    assert.ok(r.body.errors.condition, condition)
  }
  const clear = await t.admin.post(
    '/api/v1/alert_rules',
    ruleBody(w, { clearCondition: 'cos.constructor' }),
  )
  assert.equal(Object.keys(clear.body.errors), ['clearCondition'])
})

rules(
  'missing and out-of-range fields :: 422 naming every field; unknown product 404',
  async () => {
    const r = await t.admin.post('/api/v1/alert_rules', {
      productID: w.product.productID,
      alertSeverity: 5,
      forSeconds: 86_401,
    })
    assertRefusal(r, 422, ['alertSeverity', 'forSeconds', 'ruleName'])
    const none = await t.admin.post('/api/v1/alert_rules', ruleBody(w, { condition: null }))
    assert.equal([none.status, Object.keys(none.body.errors)], [422, ['condition']])
    const both = await t.admin.post('/api/v1/alert_rules', ruleBody(w, { noDataSeconds: 10 }))
    assert.equal([both.status, Object.keys(both.body.errors)], [422, ['noDataSeconds']])
    const p = await t.admin.post('/api/v1/alert_rules', ruleBody(w, { productID: 'nope' }))
    assert.equal(
      [p.status, p.body.errorCode, Object.keys(p.body.errors)],
      [404, 'DATA_NOT_FOUND', ['productID']],
    )
  },
)

rules(
  'viewer and other tenant :: viewer reads, writes 403; other tenant sees nothing (404)',
  async () => {
    const list = await viewer.get('/api/v1/alert_rules')
    assert.is(list.status, 200)
    const id = list.body.items[0].id
    const w1 = await viewer.post('/api/v1/alert_rules', ruleBody(w))
    assert.equal([w1.status, w1.body.errorCode], [403, 'PERMISSION_DENIED'])
    const other = await t.newTenant()
    assert.is((await other.get('/api/v1/alert_rules')).body.meta.count, 0)
    assert.is((await other.get(`/api/v1/alert_rules/${id}`)).status, 404)
    assert.is((await other.put(`/api/v1/alert_rules/${id}`, { enable: 1 })).status, 404)
    assert.is((await other.del(`/api/v1/alert_rules?ids=${id}`)).status, 404)
    const foreign = await other.post('/api/v1/alert_rules', ruleBody(w))
    assert.equal([foreign.status, Object.keys(foreign.body.errors)], [404, ['productID']])
    assert.is((await other.get('/api/v1/current_alerts')).body.meta.count, 0)
  },
)

rules('delete :: 204, then 404', async () => {
  const r = await t.admin.post('/api/v1/alert_rules', ruleBody(w))
  assert.is((await t.admin.del(`/api/v1/alert_rules?ids=${r.body.id}`)).status, 204)
  assert.is((await t.admin.get(`/api/v1/alert_rules/${r.body.id}`)).status, 404)
})

rules.run()
