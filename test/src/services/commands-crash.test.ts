/**
 * A change and its event commit together, and a crash loses no command: the service runs in a child process, is
 * killed with SIGKILL, and its data directory is read (SQL) or restarted. Every stored command has the outbox
 * events of its states (with a delivery per subscribed webhook); members left `sent` without their PUBACK go back
 * to `queued` within their ttl and are sent again, and devices left online get their device.offline event; a group command whose members were not written yet gets them
 * written after the restart.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { childAdmin, killChild } from '../../_support/child-service.ts'
import { openDb, type Db } from '../../../store/libsql/db.ts'
import { mqttBody, newDevice, newProduct, type NewDevice } from '../routes/devices-helpers.ts'
import { sleep, until } from '../../ingest/_mqtt.ts'
import type { GroupPublishAnswer } from '../../../src/schemas/commands.ts'
import type { ControlLog } from '../../../src/schemas/logs.ts'
import type { TaskStatus } from '../../../src/schemas/tasks.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import { connectAll, crashScene, groupOfDevices, startChild } from './_crash.ts'

const test = suite('commands: kill -9 and restart')

/** The service with COMMAND_TIMEOUT `timeout` (seconds). */
const start = (dir: string, timeout = '2') => startChild(dir, { COMMAND_TIMEOUT: timeout })

/** The command.status events stored per taskID: statuses in order, and each event's delivery count. */
async function commandEvents(db: Db) {
  const rows = await db.all(
    `SELECT json_extract(e.data, '$.taskID') AS taskID, json_extract(e.data, '$.commandStatus') AS s,
       (SELECT count(*) FROM webhook_deliveries d WHERE d.event_id = e.id) AS n
     FROM outbox_events e WHERE e.type = 'command.status' ORDER BY e.id`,
  )
  const byTask = new Map<string, string[]>()
  for (const r of rows)
    byTask.set(String(r.taskID), [...(byTask.get(String(r.taskID)) ?? []), String(r.s)])
  return { byTask, deliveries: rows.map((r) => Number(r.n)) }
}

test('SIGKILL right after device publishes :: every stored command has its events, a delivery per webhook', () =>
  crashScene('devicecloud-outbox-kill9-', async (s) => {
    s.a = await start(s.dir)
    const admin = await childAdmin(s.a.url)
    const product = await newProduct(admin)
    const ds: NewDevice[] = []
    for (let i = 0; i < 6; i++) ds.push(await newDevice(admin, mqttBody(product.productID)))
    for (const path of ['one', 'two']) {
      const events = ['command.status', 'device.online']
      const hook = await admin.post('/api/v1/webhooks', {
        url: `http://127.0.0.1:9/${path}`,
        events,
      })
      assert.is(hook.status, 201, hook.text)
    }
    s.clients.push(...(await connectAll(s.a.mqttPort, ds.slice(0, 3), new Map())))
    await sleep(300)
    let answered = 0
    const posts = Array.from({ length: 300 }, (_, i) =>
      admin
        .post('/api/v1/device_publish', {
          deviceID: ds[i % 6]!.deviceID,
          payload: `p${i}`,
          ttl: 60,
        })
        .then(
          () => answered++,
          () => {},
        ),
    )
    await until(
      () => Promise.resolve(answered),
      (n) => n >= 30,
      15_000,
    )
    await killChild(s.a)
    await Promise.allSettled(posts)
    for (const m of s.clients.splice(0)) m.end(true)

    s.db = await openDb({ url: `file:${s.dir}/devicecloud.db` })
    const commands = await s.db.all(
      `SELECT task_id AS taskID, command_status AS s FROM control_logs WHERE device_int_id IS NOT NULL`,
    )
    assert.ok(commands.length >= 30, `${commands.length} commands stored`)
    const { byTask, deliveries } = await commandEvents(s.db)
    // each command: the event of its creation (queued or sent) and the event of the state it is in
    const missing = commands.filter((c) => {
      const seen = byTask.get(String(c.taskID)) ?? []
      return !['queued', 'sent'].includes(seen[0]!) || !seen.includes(String(c.s))
    })
    assert.equal(missing, [], `${missing.length} of ${commands.length} commands lack their events`)
    assert.is(byTask.size, commands.length, 'no event of a command that was not stored')
    assert.ok(
      deliveries.every((n) => n === 2),
      'each event has one delivery per webhook',
    )
    const online = await s.db.all(
      `SELECT e.device_id AS deviceID, (SELECT count(*) FROM webhook_deliveries d WHERE d.event_id = e.id) AS n
       FROM outbox_events e WHERE e.type = 'device.online' ORDER BY e.id`,
    )
    assert.equal(
      online.map((r) => [r.deviceID, r.n]),
      ds.slice(0, 3).map((d) => [d.deviceID, 2]),
    )
  }))

test('SIGKILL while members wait for their PUBACK :: re-queued within their ttl, sent again after restart', () =>
  crashScene('devicecloud-requeue-kill9-', async (s) => {
    s.a = await start(s.dir, '8')
    let admin = await childAdmin(s.a.url)
    const { ds, g } = await groupOfDevices(admin, 12)
    const first = new Map<string, number>()
    // ten members connected but never acknowledging; two offline
    s.clients.push(...(await connectAll(s.a.mqttPort, ds.slice(0, 10), first, false)))
    await sleep(300)
    const r = await admin.post<Wire<typeof GroupPublishAnswer>>('/api/v1/group_publish', {
      groupIntID: g.id,
      payload: 'go',
      ttl: 600,
    })
    assert.is(r.status, 201, r.text)
    await until(
      () => Promise.resolve(first.size),
      (n) => n === 10,
      6000,
    )
    assert.is(first.size, 10)
    await killChild(s.a)
    for (const m of s.clients.splice(0)) m.end(true)

    s.b = await start(s.dir, '8')
    admin = await childAdmin(s.b.url)
    const again = new Map<string, number>()
    s.clients.push(...(await connectAll(s.b.mqttPort, ds, again)))
    const logs = await until(
      async () =>
        (
          await admin.get<Page<Wire<typeof ControlLog>>>(
            `/api/v1/device_control_logs?parentTaskID=${r.body.taskID}&_limit=50`,
          )
        ).body.items,
      (items) => items.length === 12 && items.every((l) => l.commandStatus === 'delivered'),
      12_000,
    )
    assert.equal(
      logs.map((l) => l.commandStatus),
      Array(12).fill('delivered'),
    )
    // every member got it after the restart: the ten sent before the crash once more
    assert.is(again.size, 12)
    for (const taskID of first.keys()) assert.ok(again.get(taskID)! >= 1, taskID)
    s.db = await openDb({ url: `file:${s.dir}/devicecloud.db` })
    const { byTask } = await commandEvents(s.db)
    for (const taskID of first.keys())
      assert.equal(byTask.get(taskID), ['queued', 'sent', 'queued', 'sent', 'delivered'], taskID)
    // the devices the crash left online are marked offline at start-up, with their events
    const connections = await s.db.all(
      `SELECT device_id AS deviceID, type FROM outbox_events WHERE type IN ('device.online', 'device.offline')
       ORDER BY id`,
    )
    const of = (d: NewDevice) =>
      connections.filter((e) => e.deviceID === d.deviceID).map((e) => e.type)
    for (const d of ds.slice(0, 10))
      assert.equal(of(d), ['device.online', 'device.offline', 'device.online'], d.deviceID)
    for (const d of ds.slice(10)) assert.equal(of(d), ['device.online'], d.deviceID)
  }))

test('a group command stopped before its members were written :: written after the restart, all delivered', () =>
  crashScene('devicecloud-fanout-kill9-', async (s) => {
    s.a = await start(s.dir)
    let admin = await childAdmin(s.a.url)
    const { ds, g } = await groupOfDevices(admin, 5)
    await killChild(s.a)
    // the state a crash leaves between storing the group's command (and its task) and its members
    s.db = await openDb({ url: `file:${s.dir}/devicecloud.db` })
    const tenant = String((await s.db.one('SELECT tenant_id AS t FROM devices LIMIT 1'))!.t)
    const now = Date.now()
    const taskID = 'crash-before-members'
    await s.db.batch([
      {
        sql: `INSERT INTO tasks (tenant_id, task_id, task_name, status, progress, create_at)
          VALUES (?, ?, 'group_publish', 2, 0, ?)`,
        args: [tenant, taskID, now],
      },
      {
        sql: `INSERT INTO control_logs (tenant_id, group_int_id, group_id, group_name, task_id, topic, payload,
            publish_status, msg_time, create_at, command_status, qos, timeout_ms, expires_at, need_ack)
          VALUES (?, ?, ?, 'all', ?, 'inbox', 'late', 1, ?, ?, 'queued', 1, 2000, ?, 1)`,
        args: [tenant, g.id, g.groupID, taskID, now, now, now + 600_000],
      },
    ])
    void s.db.close()
    s.db = undefined

    s.b = await start(s.dir)
    admin = await childAdmin(s.b.url)
    const seen = new Map<string, number>()
    s.clients.push(...(await connectAll(s.b.mqttPort, ds, seen)))
    const task = await until(
      async () => (await admin.get<Wire<typeof TaskStatus>>(`/api/v1/task_status/${taskID}`)).body,
      (x) => x.status === 3,
      12_000,
    )
    assert.equal(task.result, { total: 5, delivered: 5, succeeded: 0, failed: 0, pending: 0 })
    assert.is(task.message, '5 of 5 members settled: succeeded')
    assert.is(seen.size, 5)
    const members = (
      await admin.get<Page<Wire<typeof ControlLog>>>(
        `/api/v1/device_control_logs?parentTaskID=${taskID}`,
      )
    ).body.items
    assert.equal(
      members.map((l) => [l.payload, l.commandStatus]),
      Array(5).fill(['late', 'delivered']),
    )
  }))

test.run()
