/**
 * The record types of store/fields/accounts.ts, tasks.ts, alerts.ts, schedules.ts, ingest.ts and logs.ts
 * (`RecordOf`) are compile-time claims: repositories do not parse rows. These cases read real records through the
 * ports and check each holds exactly its table's fields, of the types the table declares (as
 * test/store/record-tables.test.ts does for the other tables).
 */
import * as assert from 'uvu/assert'
import { all, holds, recordsSuite } from './_records.ts'
import { scheduleInput } from '../_support/fixtures.ts'
import {
  APPLICATION_KEY_TABLE,
  APPLICATION_TABLE,
  USER_CREDENTIALS_TABLE,
  USER_TABLE,
} from '../../store/fields/accounts.ts'
import { TASK_STATUS_TABLE, TASK_TABLE } from '../../store/fields/tasks.ts'
import { CURRENT_ALERT_TABLE, HISTORY_ALERT_TABLE } from '../../store/fields/alerts.ts'
import { SCHEDULE_TABLE } from '../../store/fields/schedules.ts'
import { INGEST_DEVICE_TABLE, MODEL_POINT_TABLE } from '../../store/fields/ingest.ts'
import { DEVICE_TABLE, type DeviceFields } from '../../store/fields/devices.ts'
import { emptyValues } from '../../store/fields/table.ts'
import { CONNECT_LOG_TABLE, CONTROL_LOG_TABLE, EVENT_TABLE } from '../../store/fields/logs.ts'

const alertCtx = { at: 1_700_000_000_000, severityLabels: { 1: 'urgent' } }
const { records, ctx } = recordsSuite(
  'typed records (accounts, tasks, alerts, schedules, ingest, logs)',
)

records(
  'users :: list, get, create, update and the sign-in reads answer the table record',
  async () => {
    const a = ctx.meta.accounts
    const adminID = await a.createTenant(
      { tenantID: 'T1', tenantName: 't1' },
      { username: 'root', email: 'root@x.io', passwordHash: 'h0' },
    )
    const created = await a.createUser('T1', {
      username: 'u1',
      email: 'u1@x.io',
      passwordHash: 'h1',
      role: 'viewer',
    })
    const updated = await a.updateUser('T1', created.id, { role: 'user' })
    assert.is(updated.role, 'user')
    holds(USER_TABLE, [created, updated, await a.getUser('T1', created.id)])
    holds(USER_TABLE, (await a.listUsers('T1', all)).items)
    const signIn = [await a.userByEmail('u1@x.io'), await a.userById(adminID), await a.firstAdmin()]
    assert.is(signIn[2]?.id, adminID)
    holds(USER_CREDENTIALS_TABLE, signIn)
  },
)

records(
  'applications :: list, get, create, update and byAppID answer the table record',
  async () => {
    const a = ctx.meta.accounts
    const created = await a.createApplication('T1', {
      appName: 'a1',
      appID: 'A1',
      tokenHash: 'th',
      role: 'user',
      expiredAt: null,
      userIntID: null,
    })
    const updated = await a.updateApplication('T1', created.id, { expiredAt: 1_800_000_000_000 })
    assert.is(updated.expiredAt, 1_800_000_000_000)
    holds(APPLICATION_TABLE, [created, updated, await a.getApplication('T1', created.id)])
    holds(APPLICATION_TABLE, (await a.listApplications('T1', all)).items)
    const key = await a.applicationByAppID('A1')
    assert.is(key?.tokenHash, 'th')
    holds(APPLICATION_KEY_TABLE, [key])
  },
)

records('tasks :: get and list answer the table record, before and after the result', async () => {
  const t = ctx.meta.tasks
  const taskID = await t.create('T1', null, 'export')
  const waiting = await t.get('T1', taskID)
  assert.is(waiting.result, null)
  await t.finish(taskID, '{"n":1}')
  const done = await t.get('T1', taskID)
  assert.is(done.result, '{"n":1}')
  holds(TASK_STATUS_TABLE, [waiting, done])
  holds(TASK_TABLE, (await t.list('T1', all)).items)
})

records('alerts :: current, ack and history answer the table record', async () => {
  const al = ctx.meta.alerts
  const [id] = await al.raise([
    { tenantID: 'T1', alertName: 'hot', alertSeverity: 1, alertDetail: { t: 90 }, deviceID: 'd1' },
  ])
  const { alert } = await al.ack('T1', id!, 'root', alertCtx)
  assert.is(alert.ackUser, 'root')
  holds(CURRENT_ALERT_TABLE, [alert, ...(await al.current('T1', all)).items])
  await al.clear('T1', [id!], alertCtx)
  holds(HISTORY_ALERT_TABLE, (await al.history('T1', all)).items)
})

records('schedules :: create, get, list and due answer the table record', async () => {
  const s = ctx.meta.schedules
  const created = await s.create('T1', 'device', null, scheduleInput(1000, { scheduleName: 's1' }))
  holds(SCHEDULE_TABLE, [created, await s.get('T1', 'device', created.id)])
  holds(SCHEDULE_TABLE, (await s.list('T1', 'device', all)).items)
  holds(SCHEDULE_TABLE, await s.due(2000, 10))
})

records('ingest :: devices and product models answer the table record', async () => {
  const product = await ctx.meta.products.create('T1', null, {
    productName: 'p1',
    cloudProtocol: 1,
  })
  await ctx.meta.dataPoints.create('T1', null, product.id, {
    dataPointID: 'temp',
    dataPointName: 'Temperature',
    pointDataType: 1,
    dataTransType: 1,
  })
  const device = await ctx.meta.devices.create('T1', null, {
    ...(emptyValues(DEVICE_TABLE) as DeviceFields),
    productIntID: product.id,
    deviceID: 'dev-1',
    deviceUsername: 'user-1',
    token: 'tok-1',
    deviceName: 'dev 1',
  })
  const i = ctx.meta.ingest
  holds(INGEST_DEVICE_TABLE, [
    await i.device('id', device.id),
    await i.deviceByDeviceID('dev-1'),
    ...(await i.devicesByUsername('user-1')),
  ])
  const model = await i.productModel(product.id)
  holds(MODEL_POINT_TABLE, model.points)
  const one = await i.deviceWithPoints('T1', 'dev-1')
  const many = await i.devicesWithPoints('T1', ['dev-1'])
  assert.equal(many.get('dev-1'), one)
  holds(MODEL_POINT_TABLE, one!.points)
})

records('logs :: connection logs, events and control logs answer the table record', async () => {
  const device = await ctx.meta.ingest.deviceByDeviceID('dev-1')
  const at = 1_700_000_000_000
  const l = ctx.meta.logs
  await l.addConnectLogs([
    { tenantID: 'T1', deviceIntID: device!.id, deviceID: 'dev-1', connectStatus: 1, msgTime: at },
  ])
  await l.addEvents([
    {
      tenantID: 'T1',
      deviceIntID: device!.id,
      deviceID: 'dev-1',
      productIntID: device!.productIntID,
      topic: 'telemetry',
      payload: '{}',
      msgTime: at,
    },
  ])
  await l.addControlLogs([
    {
      tenantID: 'T1',
      deviceIntID: device!.id,
      deviceID: 'dev-1',
      topic: 'command',
      payload: '{}',
      publishStatus: 1,
      msgTime: at,
    },
  ])
  holds(CONNECT_LOG_TABLE, [
    ...(await l.connectLogs('T1', all)).items,
    ...(await l.deviceConnectLogs('T1', device!.id, all)).items,
  ])
  holds(EVENT_TABLE, [
    ...(await l.events('T1', all)).items,
    ...(await l.deviceEvents('T1', device!.id, all)).items,
  ])
  holds(CONTROL_LOG_TABLE, [
    ...(await l.controlLogs('T1', all)).items,
    ...(await l.deviceControlLogs('T1', device!.id, all)).items,
  ])
})

records.run()
