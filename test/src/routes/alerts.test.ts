import * as assert from 'uvu/assert'
import type { Client, TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { CurrentAlert, HistoryAlert } from '../../../src/schemas/alerts.ts'
import { insertDevice, tenantOf } from '../../_support/fixtures.ts'
import type { AlertInput, AlertRepository } from '../../../store/types.ts'
import { assertBadIds } from '../../_support/asserts.ts'

const at = (minutes: number) => Date.UTC(2024, 2, 1, 10, 0, 0) + minutes * 60_000
const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/
const enc = encodeURIComponent
/** An alert record's fields up to its ack, in order (a history alert's endTime follows). */
const ALERT_KEYS = [
  'id',
  'alertName',
  'alertContent',
  'alertSeverity',
  'alertSeverityLabel',
  'alertTimes',
  'alertDetail',
  'deviceID',
  'deviceName',
  'startTime',
  'ruleID',
  'ackAt',
  'ackUser',
]

let t: TestService
let alerts: AlertRepository
let tenantA: string
let devInt: number
let viewer: Client

const hot = (over: Partial<AlertInput> = {}): AlertInput => ({
  tenantID: tenantA,
  alertName: 'Overheat',
  alertContent: 'temp > 80',
  alertSeverity: 1,
  alertDetail: { temp: 85 },
  deviceIntID: devInt,
  deviceID: 'H1',
  deviceName: 'heater-1',
  time: at(0),
  ...over,
})

const current = async (q = '', c: Client = t.admin) =>
  (await c.get<Page<Wire<typeof CurrentAlert>>>(`/api/v1/current_alerts${q}`)).body
const history = async (q = '', c: Client = t.admin) =>
  (await c.get<Page<Wire<typeof HistoryAlert>>>(`/api/v1/history_alerts${q}`)).body

const s = serviceSuite('current and history alerts', async (svc) => {
  t = svc
  alerts = t.svc.deps.meta.alerts
  tenantA = await tenantOf(t)
  const product = (
    await t.admin.post('/api/v1/products', { productName: 'Heaters', cloudProtocol: 1 })
  ).body
  devInt = await insertDevice(t, tenantA, product.id, { deviceName: 'heater-1', deviceID: 'H1' })
  viewer = await t.userWithRole('viewer')
})

s('raise then list :: exact record, zh label, alertDetail object, startTime', async () => {
  const [id] = await alerts.raise([hot()])
  const r = await t.admin.get('/api/v1/current_alerts')
  assert.is(r.status, 200)
  assert.equal(r.body.meta, { count: 1, limit: 10, page: 1, next: null })
  const { createAt, ...rest } = r.body.items[0]
  assert.match(createAt, TIME)
  assert.equal(rest, {
    id,
    alertName: 'Overheat',
    alertContent: 'temp > 80',
    alertSeverity: 1,
    alertSeverityLabel: '紧急',
    alertTimes: 1,
    alertDetail: { temp: 85 },
    deviceID: 'H1',
    deviceName: 'heater-1',
    startTime: '2024-03-01 10:00:00',
    ruleID: null,
    ackAt: null,
    ackUser: null,
    updateAt: null,
  })
  assert.equal(Object.keys(r.body.items[0]), [...ALERT_KEYS, 'createAt', 'updateAt'])
})

s(
  'raise again :: same open alert counted (alertTimes), latest detail; other device or name opens a new one',
  async () => {
    const first = (await current('?alertName=Overheat')).items[0]!
    const ids = await alerts.raise([
      hot({ alertDetail: { temp: 90 }, time: at(1) }),
      hot({ alertDetail: { temp: 95 }, time: at(2) }),
    ])
    assert.equal(ids, [first.id, first.id])
    const again = (await current('?alertName=Overheat&deviceID=H1')).items[0]!
    assert.is(again.alertTimes, 3)
    assert.equal(again.alertDetail, { temp: 95 })
    assert.is(again.startTime, '2024-03-01 10:00:00')
    assert.match(again.updateAt!, TIME)
    await alerts.raise([
      hot({ deviceIntID: null, deviceID: 'H2', deviceName: 'heater-2' }),
      hot({ alertName: 'Low battery', alertSeverity: 4, alertDetail: { battery: 5 } }),
      { tenantID: tenantA, alertName: 'Broker down', alertSeverity: 2 },
      { tenantID: tenantA, alertName: 'Broker down', alertSeverity: 2 },
    ])
    const all = await current('?_limit=100')
    assert.is(all.meta.count, 4)
    const broker = all.items.find((a) => a.alertName === 'Broker down')!
    assert.equal(
      [broker.alertTimes, broker.deviceID, broker.alertDetail, broker.alertContent],
      [2, null, null, null],
    )
  },
)

s(
  'filters and labels :: alertName_like, deviceID, deviceName_like, alertSeverity, English',
  async () => {
    const en = t.admin.english()
    assert.equal(
      (await current('?alertSeverity=4', en)).items.map((a) => a.alertSeverityLabel),
      ['Warning'],
    )
    assert.is((await current('?alertName_like=HEAT')).meta.count, 2)
    assert.is((await current('?deviceID=H2')).meta.count, 1)
    assert.is((await current('?deviceName_like=heater-1')).meta.count, 2)
    assert.is((await current('?alertSeverity_in=1,2')).meta.count, 3)
    assert.is(
      (await current(`?alertName_like=${enc("'; DELETE FROM current_alerts; --")}`)).meta.count,
      0,
    )
    const bad = await t.admin.get('/api/v1/current_alerts?alertSeverity=urgent')
    assert.is(bad.status, 400)
    assert.is(bad.body.errorCode, 'PARAMETER_INVALID')
    assert.ok(bad.body.errors.alertSeverity)
  },
)

s('time range and sorting :: on createAt; bad startTime 400', async () => {
  assert.is((await current(`?startTime=${enc('2000-01-01 00:00:00')}`)).meta.count, 4)
  assert.is((await current(`?endTime=${enc('2000-01-01 00:00:00')}`)).meta.count, 0)
  const sorted = await current('?_sort=alertTimes&_order=desc')
  assert.equal(
    sorted.items.map((a) => a.alertTimes),
    [3, 2, 1, 1],
  )
  const bad = await t.admin.get(`/api/v1/current_alerts?startTime=${enc('01/03/2024 10:00')}`)
  assert.is(bad.status, 400)
  assert.equal(Object.keys(bad.body.errors), ['startTime'])
})

s('viewer :: may read, DELETE is 403 PERMISSION_DENIED and changes nothing', async () => {
  const list = await current('', viewer)
  assert.is(list.meta.count, 4)
  const id = list.items[0]!.id
  for (const path of [`/api/v1/current_alerts?ids=${id}`, `/api/v1/history_alerts?ids=${id}`]) {
    const r = await viewer.del(path)
    assert.is(r.status, 403, path)
    assert.is(r.body.errorCode, 'PERMISSION_DENIED')
  }
  assert.is((await current()).meta.count, 4)
  assert.is((await history('', viewer)).meta.count, 0)
})

s('clear with an unknown id :: 404 errors.ids, nothing moved; bad ids 400', async () => {
  const id = (await current()).items[0]!.id
  const r = await t.admin.del(`/api/v1/current_alerts?ids=${id},987654`)
  assert.is(r.status, 404)
  assert.equal(r.body, {
    errorCode: 'DATA_NOT_FOUND',
    message: r.body.message,
    errors: { ids: 'not found' },
  })
  assert.is((await current()).meta.count, 4)
  assert.is((await history()).meta.count, 0)
  const bad = await t.admin.del('/api/v1/current_alerts?ids=1,x')
  assertBadIds(bad)
})

s('clear :: 204, moved to history with endTime, same id and count; gone from current', async () => {
  const hotOne = (await current('?alertName=Overheat&deviceID=H1')).items[0]!
  const battery = (await current('?alertName=Low%20battery')).items[0]!
  const r = await t.admin.del(`/api/v1/current_alerts?ids=${hotOne.id},${battery.id}`)
  assert.is(r.status, 204)
  assert.is(r.text, '')
  assert.is((await current()).meta.count, 2)
  const h = await t.admin.english().get<Page<Wire<typeof HistoryAlert>>>('/api/v1/history_alerts')
  assert.is(h.status, 200)
  assert.is(h.body.meta.count, 2)
  const moved = h.body.items.find((a) => a.id === hotOne.id)!
  const { endTime, updateAt, ...rest } = moved
  assert.match(endTime!, TIME)
  assert.match(updateAt!, TIME)
  const { updateAt: _before, ...unchanged } = hotOne
  assert.equal(rest, { ...unchanged, alertSeverityLabel: 'Urgent' })
  assert.equal(Object.keys(moved), [...ALERT_KEYS, 'endTime', 'createAt', 'updateAt'])
  assert.is((await t.admin.del(`/api/v1/current_alerts?ids=${hotOne.id}`)).status, 404)
})

s('raised after clearing :: a new current alert with alertTimes 1', async () => {
  const [id] = await alerts.raise([hot({ alertDetail: { temp: 99 } })])
  const r = (await current('?alertName=Overheat&deviceID=H1')).items[0]!
  assert.equal([r.id, r.alertTimes, r.alertDetail], [id, 1, { temp: 99 }])
  assert.ok((await history('?alertName=Overheat')).items.every((a) => a.id !== id))
})

s('history filters :: endTime sortable, alertSeverity, time range', async () => {
  assert.is((await history('?alertSeverity=4')).meta.count, 1)
  assert.is((await history('?_sort=endTime&_order=asc')).meta.count, 2)
  assert.is((await history(`?endTime=${enc('2000-01-01 00:00:00')}`)).meta.count, 0)
})

s(
  'tenant isolation :: B sees no alerts, cannot clear or delete A alerts (404), A keeps them',
  async () => {
    const b = await t.newTenant()
    assert.equal(await current('', b), {
      items: [],
      meta: { count: 0, limit: 10, page: 1, next: null },
    })
    assert.is((await history('', b)).meta.count, 0)
    const a = (await current()).items[0]!.id
    const hA = (await history()).items[0]!.id
    const r1 = await b.del(`/api/v1/current_alerts?ids=${a}`)
    assert.is(r1.status, 404)
    assert.is(r1.body.errorCode, 'DATA_NOT_FOUND')
    assert.is((await b.del(`/api/v1/history_alerts?ids=${hA}`)).status, 404)
    await alerts.raise([
      { tenantID: b.tenantID, alertName: 'Overheat', alertSeverity: 1, deviceID: 'H1' },
    ])
    assert.is((await current('', b)).meta.count, 1)
    assert.is((await current('?alertName=Overheat&deviceID=H1')).items[0]!.alertTimes, 1)
    assert.is((await current()).meta.count, 3)
    assert.is((await history()).meta.count, 2)
  },
)

s('delete history :: 204 all or nothing, unknown 404', async () => {
  const ids = (await history()).items.map((a) => a.id)
  const unknown = await t.admin.del(`/api/v1/history_alerts?ids=${ids[0]},999999`)
  assert.is(unknown.status, 404)
  assert.is((await history()).meta.count, 2)
  const r = await t.admin.del(`/api/v1/history_alerts?ids=${ids.join(',')}`)
  assert.is(r.status, 204)
  assert.is(r.text, '')
  assert.is((await history()).meta.count, 0)
})

s('wrong method :: 405 METHOD_NOT_ALLOWED', async () => {
  const r = await t.admin.post('/api/v1/current_alerts', {})
  assert.is(r.status, 405)
  assert.is(r.body.errorCode, 'METHOD_NOT_ALLOWED')
})

s.run()
