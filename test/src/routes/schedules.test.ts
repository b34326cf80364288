import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestService, type Client, type TestService } from '../../_support/service.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { Group } from '../../../src/schemas/groups.ts'
import type { Product } from '../../../src/schemas/products.ts'
import type { DeviceSchedule, GroupSchedule } from '../../../src/schemas/schedules.ts'
import { mqttBody, newDevice, newProduct, TIME, uniq, type NewDevice } from './devices-helpers.ts'
import { formatTime, parseTime } from '../../../src/kernel/time.ts'
import { assertRefusal } from '../../_support/asserts.ts'

const TZ = 'Asia/Shanghai'
const DEVICE_PATH = '/api/v1/device_schedule_publish'
const GROUP_PATH = '/api/v1/group_schedule_publish'
/** A schedule record's fields, in order, `target` naming its device or group. */
const scheduleKeys = (target: 'deviceID' | 'groupID') => [
  'id',
  'scheduleName',
  'scheduleType',
  'scheduleTypeLabel',
  'crontabTime',
  'IntervalMinute',
  'cron',
  target,
  'topic',
  'payload',
  'nextRunAt',
  'lastRunAt',
  'lastTaskID',
  'enable',
  'createAt',
  'updateAt',
]
let t: TestService
let product: Wire<typeof Product>
let device: NewDevice

/** A wire time `ms` from now in the service's zone (whole seconds, rounded up). */
const wireIn = (ms: number) => formatTime(Math.ceil((Date.now() + ms) / 1000) * 1000, TZ)!

/** Creates a schedule and answers the created record (read through its Location). */
async function create(path: string, body: Record<string, unknown>, client: Client = t.admin) {
  const r = await client.post(path, body)
  assert.is(r.status, 201, r.text)
  const detail = await client.get(r.headers.get('location')!)
  assert.is(detail.status, 200, detail.text)
  return detail.body
}

const interval = (extra: Record<string, unknown> = {}) => ({
  deviceID: device.deviceID,
  payload: 'hello',
  topic: 'inbox',
  scheduleName: uniq('every'),
  scheduleType: 2,
  IntervalMinute: '5',
  ...extra,
})

const crud = suite('device_schedule_publish')
crud.before(async () => {
  t = await startTestService({ TIMEZONE: TZ })
  product = await newProduct(t.admin)
  device = await newDevice(t.admin, mqttBody(product.productID))
})

crud('create once :: 201, empty body, Location; the record as stored', async () => {
  const at = wireIn(3600_000)
  const r = await t.admin.post(DEVICE_PATH, {
    deviceID: device.deviceID,
    deviceIntID: device.id,
    payload: '{"on":1}',
    topic: 'inbox',
    scheduleName: 'Morning',
    scheduleType: 1,
    crontabTime: at,
  })
  assert.is(r.status, 201, r.text)
  assert.is(r.text, '')
  const location = r.headers.get('location')!
  assert.match(location, /^\/api\/v1\/device_schedule_publish\/\d+$/)
  const id = Number(location.split('/').pop())
  const detail = await t.admin.get(location)
  assert.is(detail.status, 200)
  const { createAt, ...rest } = detail.body
  assert.match(createAt, TIME)
  assert.equal(rest, {
    id,
    scheduleName: 'Morning',
    scheduleType: 1,
    scheduleTypeLabel: '定时执行',
    crontabTime: at,
    IntervalMinute: null,
    cron: null,
    deviceID: device.deviceID,
    topic: 'inbox',
    payload: '{"on":1}',
    nextRunAt: at,
    lastRunAt: null,
    lastTaskID: null,
    enable: 1,
    updateAt: null,
  })
  assert.equal(Object.keys(detail.body), scheduleKeys('deviceID'))
  const en = await t.admin.english().get(location)
  assert.is(en.body.scheduleTypeLabel, 'Once at a time')
})

crud('interval as a numeric string or a number :: stored as minutes, due from now', async () => {
  const before = Date.now()
  const s = await create(DEVICE_PATH, interval())
  assert.is(s.IntervalMinute, 5)
  assert.is(s.crontabTime, null)
  const next = parseTime(s.nextRunAt, TZ)!
  assert.ok(next >= Math.floor((before + 300_000) / 1000) * 1000 && next <= Date.now() + 300_000)
  const n = await create(
    DEVICE_PATH,
    interval({ IntervalMinute: 525_600, deviceID: undefined, deviceIntID: device.id }),
  )
  assert.is(n.IntervalMinute, 525_600)
  assert.is(n.deviceID, device.deviceID)
})

crud('cron :: next match in TIMEZONE; fields other than the type’s are not kept', async () => {
  const s = await create(
    DEVICE_PATH,
    interval({ scheduleType: 3, cron: '30 9 * * *', crontabTime: wireIn(60_000) }),
  )
  assert.is(s.cron, '30 9 * * *')
  assert.is(s.IntervalMinute, null)
  assert.is(s.crontabTime, null)
  assert.match(s.nextRunAt, / 09:30:00$/)
  const next = parseTime(s.nextRunAt, TZ)!
  assert.ok(next > Date.now() && next <= Date.now() + 86_400_000)
})

crud('missing fields :: 422 naming each', async () => {
  const r = await t.admin.post(DEVICE_PATH, {})
  assertRefusal(r, 422, ['deviceID', 'payload', 'scheduleName', 'scheduleType'], 'FORM_INVALID')
})

crud('wrong types and ranges :: 422 naming every field', async () => {
  const r = await t.admin.post(DEVICE_PATH, {
    deviceID: device.deviceID,
    payload: 5,
    scheduleName: '',
    scheduleType: 9,
    crontabTime: 'tomorrow',
    IntervalMinute: 'abc',
    qos: 2,
    timeout: 0,
    ttl: -1,
    enable: 5,
    topic: 'a/+/b',
  })
  assertRefusal(r, 422, [
    'IntervalMinute',
    'crontabTime',
    'enable',
    'payload',
    'qos',
    'scheduleName',
    'scheduleType',
    'timeout',
    'topic',
    'ttl',
  ])
  for (const IntervalMinute of [0, 525_601, '1.5', 2.5]) {
    const x = await t.admin.post(DEVICE_PATH, interval({ IntervalMinute }))
    assert.is(x.status, 422, `IntervalMinute ${IntervalMinute}`)
    assert.equal(Object.keys(x.body.errors), ['IntervalMinute'])
  }
})

crud(
  'the field of each type missing :: 422 errors.crontabTime / IntervalMinute / cron',
  async () => {
    const cases: Array<[number, string]> = [
      [1, 'crontabTime'],
      [2, 'IntervalMinute'],
      [3, 'cron'],
    ]
    for (const [scheduleType, field] of cases) {
      const r = await t.admin.post(
        DEVICE_PATH,
        interval({ scheduleType, IntervalMinute: undefined }),
      )
      assert.is(r.status, 422, r.text)
      assert.equal(Object.keys(r.body.errors), [field])
      assert.match(r.body.errors[field], /required/)
    }
  },
)

crud('crontabTime now or past, or not a date :: 422 errors.crontabTime', async () => {
  for (const crontabTime of [wireIn(-60_000), '2020-01-01 00:00:00', '2031-02-30 10:00:00']) {
    const r = await t.admin.post(DEVICE_PATH, interval({ scheduleType: 1, crontabTime }))
    assert.is(r.status, 422, crontabTime)
    assert.equal(Object.keys(r.body.errors), ['crontabTime'])
  }
})

crud('bad cron :: 422 errors.cron naming the problem', async () => {
  const cases: Array<[string, RegExp]> = [
    ['* * *', /5 fields/],
    ['* * * * * *', /5 fields/],
    ['61 * * * *', /minute/i],
    ['* * * 13 *', /month/i],
    ['*/0 * * * *', /step/i],
    ['0 0 30 2 *', /never matches/],
    ['x y z w v', /illegal|invalid/i],
  ]
  for (const [cron, why] of cases) {
    const r = await t.admin.post(DEVICE_PATH, interval({ scheduleType: 3, cron }))
    assert.is(r.status, 422, cron)
    assert.equal(Object.keys(r.body.errors), ['cron'])
    assert.match(r.body.errors.cron, why)
  }
})

crud('unknown, foreign or mismatched device :: 404 errors.deviceID', async () => {
  const other = await t.newTenant()
  const theirs = await newDevice(other, mqttBody((await newProduct(other)).productID))
  const mine = await newDevice(t.admin, mqttBody(product.productID))
  for (const target of [
    { deviceID: 'nope-nope' },
    { deviceIntID: 999_999 },
    { deviceID: theirs.deviceID },
    { deviceIntID: theirs.id },
    { deviceID: device.deviceID, deviceIntID: mine.id },
  ]) {
    const r = await t.admin.post(DEVICE_PATH, { ...interval({ deviceID: undefined }), ...target })
    assert.is(r.status, 404, JSON.stringify(target))
    assert.equal(r.body, {
      errorCode: 'DATA_NOT_FOUND',
      message: r.body.message,
      errors: { deviceID: 'no such device' },
    })
  }
})

crud('list :: page envelope, newest first, scheduleName_like, scheduleType', async () => {
  const tag = uniq('needle')
  const a = await create(DEVICE_PATH, interval({ scheduleName: `${tag}-a` }))
  const b = await create(
    DEVICE_PATH,
    interval({ scheduleName: `${tag}-B`, scheduleType: 3, cron: '0 * * * *' }),
  )
  const r = await t.admin.get<Page<Wire<typeof DeviceSchedule>>>(
    `${DEVICE_PATH}?scheduleName_like=${tag.toUpperCase()}`,
  )
  assert.is(r.status, 200)
  assert.equal(r.body.meta, { count: 2, limit: 10, page: 1, next: null })
  assert.equal(
    r.body.items.map((s) => s.id),
    [b.id, a.id],
  )
  assert.equal(r.body.items[0], b)
  const typed = await t.admin.get<Page<Wire<typeof DeviceSchedule>>>(
    `${DEVICE_PATH}?scheduleName_like=${tag}&scheduleType=3`,
  )
  assert.equal(
    typed.body.items.map((s) => s.id),
    [b.id],
  )
  const bad = await t.admin.get(`${DEVICE_PATH}?_page=0`)
  assert.is(bad.status, 400)
  assert.is(bad.body.errorCode, 'PARAMETER_INVALID')
})

crud(
  'edit with the whole record as read :: 200, nextRunAt kept; timing changes recompute it',
  async () => {
    const s = await create(DEVICE_PATH, interval())
    const same = await t.admin.put(`${DEVICE_PATH}/${s.id}`, { ...s, scheduleName: 'renamed' })
    assert.is(same.status, 200, same.text)
    assert.is(same.body.scheduleName, 'renamed')
    assert.is(same.body.nextRunAt, s.nextRunAt)
    assert.match(same.body.updateAt, TIME)
    const longer = await t.admin.put(`${DEVICE_PATH}/${s.id}`, { IntervalMinute: 60 })
    assert.is(longer.body.IntervalMinute, 60)
    const next = parseTime(longer.body.nextRunAt, TZ)!
    assert.ok(Math.abs(next - (Date.now() + 3600_000)) < 5000, longer.body.nextRunAt)
    const off = await t.admin.put(`${DEVICE_PATH}/${s.id}`, { enable: 0 })
    assert.is(off.body.enable, 0)
    assert.is(off.body.nextRunAt, null)
    const once = await t.admin.put(`${DEVICE_PATH}/${s.id}`, {
      enable: 1,
      scheduleType: 1,
      crontabTime: wireIn(-1000),
    })
    assert.is(once.status, 422)
    assert.equal(Object.keys(once.body.errors), ['crontabTime'])
    const at = wireIn(7200_000)
    const ok = await t.admin.put(`${DEVICE_PATH}/${s.id}`, {
      enable: 1,
      scheduleType: 1,
      crontabTime: at,
    })
    assert.is(ok.status, 200, ok.text)
    assert.equal([ok.body.crontabTime, ok.body.nextRunAt, ok.body.IntervalMinute], [at, at, null])
    const bad = await t.admin.put(`${DEVICE_PATH}/${s.id}`, { scheduleType: 3, cron: '* *' })
    assert.is(bad.status, 422)
    assert.equal(Object.keys(bad.body.errors), ['cron'])
  },
)

crud('edit the target :: another device of the tenant; a foreign one 404', async () => {
  const s = await create(DEVICE_PATH, interval())
  const other = await newDevice(t.admin, mqttBody(product.productID))
  const r = await t.admin.put(`${DEVICE_PATH}/${s.id}`, { deviceIntID: other.id })
  assert.is(r.status, 200, r.text)
  assert.is(r.body.deviceID, other.deviceID)
  const no = await t.admin.put(`${DEVICE_PATH}/${s.id}`, { deviceID: 'nope-nope' })
  assert.is(no.status, 404)
  assert.equal(Object.keys(no.body.errors), ['deviceID'])
})

crud('delete :: 204 all; all or none with an unknown id; ids=abc 400', async () => {
  const a = await create(DEVICE_PATH, interval())
  const b = await create(DEVICE_PATH, interval())
  const partial = await t.admin.del(`${DEVICE_PATH}?ids=${a.id},999999`)
  assert.is(partial.status, 404)
  assert.equal(Object.keys(partial.body.errors), ['ids'])
  assert.is((await t.admin.get(`${DEVICE_PATH}/${a.id}`)).status, 200)
  const r = await t.admin.del(`${DEVICE_PATH}?ids=${a.id},${b.id}`)
  assert.is(r.status, 204)
  assert.is((await t.admin.get(`${DEVICE_PATH}/${a.id}`)).status, 404)
  assert.is((await t.admin.get(`${DEVICE_PATH}/${b.id}`)).status, 404)
  const bad = await t.admin.del(`${DEVICE_PATH}?ids=abc`)
  assert.is(bad.status, 400)
  assert.is(bad.body.errorCode, 'PARAMETER_INVALID')
})

crud('another tenant :: sees none; GET, PUT, DELETE of our id 404', async () => {
  const s = await create(DEVICE_PATH, interval())
  const other = await t.newTenant()
  const list = await other.get(DEVICE_PATH)
  assert.equal(list.body, { items: [], meta: { count: 0, limit: 10, page: 1, next: null } })
  assert.is((await other.get(`${DEVICE_PATH}/${s.id}`)).status, 404)
  assert.is((await other.put(`${DEVICE_PATH}/${s.id}`, { scheduleName: 'x' })).status, 404)
  const del = await other.del(`${DEVICE_PATH}?ids=${s.id}`)
  assert.is(del.status, 404)
  assert.is((await t.admin.get(`${DEVICE_PATH}/${s.id}`)).body.scheduleName, s.scheduleName)
})

crud('a device schedule id under the group path :: 404', async () => {
  const s = await create(DEVICE_PATH, interval())
  assert.is((await t.admin.get(`${GROUP_PATH}/${s.id}`)).status, 404)
  assert.is((await t.admin.del(`${GROUP_PATH}?ids=${s.id}`)).status, 404)
})

crud('viewer :: may list and read, not write (403)', async () => {
  const s = await create(DEVICE_PATH, interval())
  const viewer = await t.userWithRole('viewer')
  assert.is((await viewer.get(`${DEVICE_PATH}/${s.id}`)).status, 200)
  assert.is((await viewer.get(DEVICE_PATH)).status, 200)
  for (const r of [
    await viewer.post(DEVICE_PATH, interval()),
    await viewer.put(`${DEVICE_PATH}/${s.id}`, { scheduleName: 'x' }),
    await viewer.del(`${DEVICE_PATH}?ids=${s.id}`),
  ]) {
    assert.is(r.status, 403)
    assert.is(r.body.errorCode, 'PERMISSION_DENIED')
  }
})

crud('deleting the device :: deletes its schedules', async () => {
  const d = await newDevice(t.admin, mqttBody(product.productID))
  const s = await create(DEVICE_PATH, interval({ deviceID: d.deviceID }))
  assert.is((await t.admin.del(`/api/v1/devices?ids=${d.id}`)).status, 204)
  assert.is((await t.admin.get(`${DEVICE_PATH}/${s.id}`)).status, 404)
})

const groups = suite('group_schedule_publish')
let group: Wire<typeof Group>
groups.before(async () => {
  const r = await t.admin.post<Wire<typeof Group>>('/api/v1/groups', {
    productID: product.productID,
    groupName: uniq('G'),
  })
  assert.is(r.status, 201, r.text)
  group = r.body
})

groups('create by groupIntID :: 201 Location; the record names groupID', async () => {
  const s = await create(GROUP_PATH, {
    groupIntID: group.id,
    payload: 'all',
    scheduleName: 'Group every hour',
    scheduleType: 2,
    IntervalMinute: 60,
    needAck: 0,
  })
  assert.is(s.groupID, group.groupID)
  assert.not.ok('deviceID' in s)
  assert.equal(Object.keys(s), scheduleKeys('groupID'))
  const list = await t.admin.get<Page<Wire<typeof GroupSchedule>>>(
    `${GROUP_PATH}?groupID=${group.groupID}`,
  )
  assert.equal(
    list.body.items.map((x) => x.id),
    [s.id],
  )
  assert.is((await t.admin.get(`${DEVICE_PATH}/${s.id}`)).status, 404)
})

groups('unknown, foreign or missing group :: 404 errors.groupID, 422 without one', async () => {
  const other = await t.newTenant()
  const op = await newProduct(other)
  const theirs = (await other.post('/api/v1/groups', { productID: op.productID, groupName: 'x' }))
    .body
  const body = { payload: 'x', scheduleName: 'n', scheduleType: 2, IntervalMinute: 1 }
  for (const target of [{ groupID: 'nope' }, { groupIntID: 999_999 }, { groupIntID: theirs.id }]) {
    const r = await t.admin.post(GROUP_PATH, { ...body, ...target })
    assert.is(r.status, 404, JSON.stringify(target))
    assert.equal(r.body.errors, { groupID: 'no such group' })
  }
  const none = await t.admin.post(GROUP_PATH, body)
  assert.is(none.status, 422)
  assert.equal(Object.keys(none.body.errors), ['groupID'])
})

groups('deleting the group :: deletes its schedules', async () => {
  const g = (
    await t.admin.post('/api/v1/groups', { productID: product.productID, groupName: uniq('G') })
  ).body
  const s = await create(GROUP_PATH, {
    groupID: g.groupID,
    payload: 'x',
    scheduleName: 'n',
    scheduleType: 3,
    cron: '0 0 * * *',
  })
  assert.is((await t.admin.del(`/api/v1/groups?ids=${g.id}`)).status, 204)
  assert.is((await t.admin.get(`${GROUP_PATH}/${s.id}`)).status, 404)
})

groups.after(async () => t.close())

crud.run()
groups.run()
