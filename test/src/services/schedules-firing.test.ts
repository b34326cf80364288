/**
 * Schedules firing on the real service: once at a wall time (real clock), every interval and at cron matches
 * (an injected clock), a due time missed while the service was stopped (once at start-up), a blocked device
 * (its command `unsent`) and a group. Firings are seen as commands in the control logs with `scheduleID` set.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client, testConfig, type TestService } from '../../_support/service.ts'
import { childAdmin } from '../../_support/child-service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import { mqttBody, newDevice, newProduct, uniq } from '../routes/devices-helpers.ts'
import { formatTime, parseTime } from '../../../src/kernel/time.ts'
import { startService, type Service } from '../../../src/service.ts'
import { openDb } from '../../../store/libsql/db.ts'
import type { Group } from '../../../src/schemas/groups.ts'
import type { ControlLog, GroupControlLog } from '../../../src/schemas/logs.ts'
import type { Product } from '../../../src/schemas/products.ts'
import type { DeviceSchedule, GroupSchedule } from '../../../src/schemas/schedules.ts'
import type { Page, Wire } from '../../_support/wire.ts'

const TZ = 'Asia/Shanghai'
const PATH = '/api/v1/device_schedule_publish'
const MINUTE = 60_000

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

type Schedule = Wire<typeof DeviceSchedule>

/** Polls `read` until `done` holds of its answer (or `ms` passed); answers the last answer. */
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 4000): Promise<T> {
  const end = Date.now() + ms
  let v = await read()
  while (!done(v) && Date.now() < end) {
    await sleep(100)
    v = await read()
  }
  return v
}

/** The control logs of a device, oldest first. */
async function logsOf(c: Client, deviceIntID: number) {
  const r = await c.get<Page<Wire<typeof ControlLog>>>(
    `/api/v1/devices/${deviceIntID}/control_logs?_limit=100&_sort=id&_order=asc`,
  )
  assert.is(r.status, 200, r.text)
  return r.body.items
}

/** Creates a device schedule (or, by `path`, a group schedule) and answers it as read back. */
async function schedule(c: Client, body: Record<string, unknown>, path = PATH) {
  const r = await c.post(path, { payload: 'tick', scheduleName: uniq('s'), ...body })
  assert.is(r.status, 201, r.text)
  return (await c.get<Schedule | Wire<typeof GroupSchedule>>(r.headers.get('location')!)).body
}

let t: TestService
let productID: string
const realTime = serviceSuite(
  'schedules firing on the real clock',
  async (svc) => {
    t = svc
    productID = (await newProduct(t.admin)).productID
  },
  { TIMEZONE: TZ },
)

realTime(
  'once, a few seconds ahead :: one command with scheduleID within 2 s of the due time',
  async () => {
    const d = await newDevice(t.admin, mqttBody(productID))
    const due = Math.ceil((Date.now() + 2500) / 1000) * 1000
    const s = await schedule(t.admin, {
      deviceID: d.deviceID,
      scheduleType: 1,
      crontabTime: formatTime(due, TZ),
    })
    assert.equal(await logsOf(t.admin, d.id), [])
    const logs = await until(
      () => logsOf(t.admin, d.id),
      (l) => l.length > 0,
      due - Date.now() + 3000,
    )
    const seenAt = Date.now()
    assert.is(logs.length, 1)
    assert.ok(seenAt - due < 2500, `fired ${seenAt - due} ms after its due time`)
    const log = logs[0]!
    assert.is(log.scheduleID, s.id)
    assert.is(log.payload, 'tick')
    assert.is(log.commandStatus, 'unsent')
    const after = await until(
      async () => (await t.admin.get<Schedule>(`${PATH}/${s.id}`)).body,
      (x) => x.lastTaskID !== null,
    )
    assert.equal(
      [after.nextRunAt, after.lastRunAt, after.lastTaskID, after.enable],
      [null, formatTime(due, TZ), log.taskID, 1],
    )
    await sleep(1200)
    assert.is((await logsOf(t.admin, d.id)).length, 1, 'fired once')
  },
)

realTime('a blocked device :: its firing is logged unsent', async () => {
  const d = await newDevice(t.admin, mqttBody(productID))
  assert.is((await t.admin.put(`/api/v1/devices/${d.id}`, { blocked: 1 })).status, 200)
  const due = Math.ceil((Date.now() + 1500) / 1000) * 1000
  const s = await schedule(t.admin, {
    deviceIntID: d.id,
    scheduleType: 1,
    crontabTime: formatTime(due, TZ),
  })
  const logs = await until(
    () => logsOf(t.admin, d.id),
    (l) => l.length > 0,
    due - Date.now() + 3000,
  )
  assert.is(logs.length, 1)
  assert.equal(
    [logs[0]!.scheduleID, logs[0]!.commandStatus, logs[0]!.publishStatus],
    [s.id, 'unsent', 0],
  )
})

let c: TestService
let fake = Date.now()
let cProduct: Wire<typeof Product>
const clocked = serviceSuite(
  'schedules firing on an injected clock',
  async (svc) => {
    c = svc
    cProduct = await newProduct(c.admin)
  },
  { TIMEZONE: TZ },
  { now: () => fake },
)

clocked(
  'every minute :: one firing per due time; a stretch missed fires once, the next due from now',
  async () => {
    fake = Math.floor(Date.now() / 1000) * 1000
    const d = await newDevice(c.admin, mqttBody(cProduct.productID))
    const s = await schedule(c.admin, {
      deviceID: d.deviceID,
      scheduleType: 2,
      IntervalMinute: '1',
    })
    const first = fake + MINUTE
    assert.is(s.nextRunAt, formatTime(first, TZ))
    await sleep(700)
    assert.equal(await logsOf(c.admin, d.id), [], 'nothing due yet')
    for (let n = 1; n <= 2; n++) {
      fake = first + (n - 1) * MINUTE
      const logs = await until(
        () => logsOf(c.admin, d.id),
        (l) => l.length >= n,
      )
      assert.is(logs.length, n)
      assert.is(logs[n - 1]!.scheduleID, s.id)
    }
    fake = first + MINUTE + 10 * MINUTE + 5000
    const logs = await until(
      () => logsOf(c.admin, d.id),
      (l) => l.length >= 3,
    )
    await sleep(1200)
    assert.is((await logsOf(c.admin, d.id)).length, 3, 'ten missed minutes fire once')
    const after = (await c.admin.get<Schedule>(`${PATH}/${s.id}`)).body
    assert.is(after.lastRunAt, formatTime(first + 2 * MINUTE, TZ))
    assert.is(after.nextRunAt, formatTime(fake + MINUTE, TZ))
    assert.is(after.lastTaskID, logs[2]!.taskID)
  },
)

clocked('cron in TIMEZONE :: fires at its match, then waits for the next one', async () => {
  fake = Date.UTC(2031, 0, 1, 0, 58, 30) // 08:58:30 in Shanghai
  const d = await newDevice(c.admin, mqttBody(cProduct.productID))
  const s = await schedule(c.admin, { deviceID: d.deviceID, scheduleType: 3, cron: '0 9 * * *' })
  assert.is(s.nextRunAt, '2031-01-01 09:00:00')
  fake = Date.UTC(2031, 0, 1, 0, 59, 59)
  await sleep(700)
  assert.equal(await logsOf(c.admin, d.id), [])
  fake = Date.UTC(2031, 0, 1, 1, 0, 0)
  const logs = await until(
    () => logsOf(c.admin, d.id),
    (l) => l.length > 0,
  )
  assert.is(logs[0]!.scheduleID, s.id)
  fake += 5 * MINUTE
  await sleep(1200)
  assert.is((await logsOf(c.admin, d.id)).length, 1)
  const after = (await c.admin.get<Schedule>(`${PATH}/${s.id}`)).body
  assert.equal([after.lastRunAt, after.nextRunAt], ['2031-01-01 09:00:00', '2031-01-02 09:00:00'])
})

clocked('a disabled schedule :: does not fire; enabled again, it is due from now', async () => {
  fake = Date.UTC(2032, 0, 1)
  const d = await newDevice(c.admin, mqttBody(cProduct.productID))
  const s = await schedule(c.admin, {
    deviceID: d.deviceID,
    scheduleType: 2,
    IntervalMinute: 1,
    enable: 0,
  })
  assert.is(s.nextRunAt, null)
  fake += 5 * MINUTE
  await sleep(1200)
  assert.equal(await logsOf(c.admin, d.id), [])
  const on = await c.admin.put<Schedule>(`${PATH}/${s.id}`, { ...s, enable: 1 })
  assert.is(on.body.nextRunAt, formatTime(fake + MINUTE, TZ))
})

clocked('a group :: the group command and its members carry scheduleID', async () => {
  fake = Date.UTC(2033, 0, 1)
  const d = await newDevice(c.admin, mqttBody(cProduct.productID))
  const g = (
    await c.admin.post<Wire<typeof Group>>('/api/v1/groups', {
      productID: cProduct.productID,
      groupName: uniq('G'),
    })
  ).body
  assert.is((await c.admin.post(`/api/v1/groups/${g.id}/devices`, { ids: [d.id] })).status, 201)
  const s = await schedule(
    c.admin,
    { groupID: g.groupID, scheduleType: 2, IntervalMinute: 1 },
    '/api/v1/group_schedule_publish',
  )
  fake += MINUTE
  const groupLogs = await until(
    async () =>
      (await c.admin.get<Page<Wire<typeof GroupControlLog>>>(`/api/v1/groups/${g.id}/control_logs`))
        .body.items,
    (l) => l.length > 0,
  )
  assert.is(groupLogs.length, 1)
  assert.is(groupLogs[0]!.scheduleID, s.id)
  const member = await until(
    () => logsOf(c.admin, d.id),
    (l) => l.length > 0,
  )
  assert.is(member[0]!.scheduleID, s.id)
  const after = await until(
    async () =>
      (await c.admin.get<Wire<typeof GroupSchedule>>(`/api/v1/group_schedule_publish/${s.id}`))
        .body,
    (x) => x.lastTaskID !== null,
  )
  assert.is(after.lastTaskID, groupLogs[0]!.taskID)
})

const restart = suite('schedules across a restart')

restart('a due time missed while stopped :: fires once at start-up', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'devicecloud-sched-'))
  const config = testConfig(dir, { TIMEZONE: TZ })
  let svc: Service | undefined
  try {
    svc = await startService(config)
    let admin = await childAdmin(svc.url)
    const d = await newDevice(admin, mqttBody((await newProduct(admin)).productID))
    const s = await schedule(admin, { deviceID: d.deviceID, scheduleType: 2, IntervalMinute: 1 })
    await svc.close()
    svc = undefined

    // stopped for an hour: sixty due times passed
    const db = await openDb({ url: config.DATABASE_URL })
    await db.run('UPDATE schedules SET next_run_at = ? WHERE id = ?', [
      Date.now() - 60 * MINUTE,
      s.id,
    ])
    void db.close()

    svc = await startService(config)
    admin = new Client(svc.url, admin.authorization)
    const logs = await until(
      () => logsOf(admin, d.id),
      (l) => l.length > 0,
      2500,
    )
    assert.is(logs.length, 1)
    assert.is(logs[0]!.scheduleID, s.id)
    await sleep(1500)
    assert.is((await logsOf(admin, d.id)).length, 1, 'once, not once per missed minute')
    const after = (await admin.get<Schedule>(`${PATH}/${s.id}`)).body
    const next = parseTime(after.nextRunAt!, TZ)!
    assert.ok(Math.abs(next - (Date.now() + MINUTE)) < 5000, `next ${after.nextRunAt}`)
  } finally {
    await svc?.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

realTime.run()
clocked.run()
restart.run()
