/**
 * Group publish over the real embedded broker: one command per member with its own lifecycle, a group control
 * log, and a task whose progress and result follow the members' outcomes.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { MqttClient } from 'mqtt'
import type { GroupPublishAnswer } from '../../../src/schemas/commands.ts'
import type { ControlLog, GroupControlLog } from '../../../src/schemas/logs.ts'
import type { TaskStatus } from '../../../src/schemas/tasks.ts'
import type { GroupCounts } from '../../../store/meta/commands.ts'
import { Client, startTestService, type TestService } from '../../_support/service.ts'
import type { ErrorBody, Page, Wire } from '../../_support/wire.ts'
import { connectDevice, end, sleep, until } from '../../ingest/_mqtt.ts'
import { kitDevices, kits, variants, type DeviceRecord } from '../routes/_variant.ts'
import { assertRefusal } from '../../_support/asserts.ts'

/** What they read of a group record, the same in both variants. */
interface GroupRef {
  id: number
  groupID: string
}

/** A command as a member gets it on `inbox`; `D`: the payload the test sent. */
interface Request<D = unknown> {
  data_type: string
  task_id: string
  data: D
}

/** A group publish's task: once settled, its result counts the members. */
type GroupTask = Wire<typeof TaskStatus> & { result: GroupCounts | null }
type Answer = Wire<typeof GroupPublishAnswer>
type Log = Wire<typeof ControlLog>
type GroupLog = Wire<typeof GroupControlLog>

for (const v of variants) {
  const k = kits[v]
  const test = suite(`group publish (Variant ${v})`)
  let t: TestService
  let c: Client
  const clients: MqttClient[] = []

  test.before(async () => {
    t = await startTestService({ ...k.env, COMMAND_TIMEOUT: '2' })
    c = t.admin
  })
  test.after(async () => {
    for (const m of clients) end(m)
    await t.close()
  })

  const devices = (n: number) => kitDevices(k, c, n)

  /** The group of a publish: Variant A also takes its record id, Variant B only its groupID. */
  const target = (g: { id: number; groupID: string }) =>
    k.v === 'A' ? { groupIntID: g.id } : { groupID: g.groupID }

  /** A product with `n` devices in one group. */
  async function groupOf(n: number) {
    const { product, devices: ds } = await devices(n)
    const g = await c.post<GroupRef>(
      '/api/v1/groups',
      k.groupBody(product.productID, { groupName: `g-${Date.now()}-${n}` }),
    )
    assert.is(g.status, 201, g.text)
    const add = await c.post(`/api/v1/groups/${g.body.id}/devices`, {
      ids: ds.map((d) => d.id),
    })
    assert.is(add.status, 201, add.text)
    return { group: g.body, ds, product }
  }

  async function online<D = unknown>(d: DeviceRecord) {
    const m = await connectDevice(t, d)
    clients.push(m)
    const got: Array<Request<D>> = []
    m.on('message', (_topic, payload) => got.push(JSON.parse(payload.toString()) as Request<D>))
    return { m, got }
  }

  const taskOf = async (statusUrl: string) => (await c.get<GroupTask>(`/api/v1${statusUrl}`)).body
  const settled = (statusUrl: string, ms = 6000) =>
    until(
      () => taskOf(statusUrl),
      (task) => task.status === 3 || task.status === 4,
      ms,
    )

  test('needAck 1 :: a command per member; offline members unsent; task result counts them', async () => {
    const { group, ds } = await groupOf(4)
    const a = await online<{ go: number }>(ds[0]!)
    const b = await online<{ go: number }>(ds[1]!)
    const blocked = await c.put(`/api/v1/devices/${ds[3]!.id}`, { blocked: 1 })
    assert.is(blocked.status, 200, blocked.text)
    await sleep(150)
    const r = await c.post<Answer>('/api/v1/group_publish', {
      groupID: group.groupID,
      payload: '{"go":1}',
    })
    assert.is(r.status, 201, r.text)
    assert.equal(Object.keys(r.body).sort(), ['statusUrl', 'taskID'])
    assert.is(r.body.statusUrl, `/task_status/${r.body.taskID}`)
    const task = await settled(r.body.statusUrl)
    assert.is(task.status, 3, JSON.stringify(task))
    assert.is(task.progress, 100)
    assert.equal(task.result, { total: 4, delivered: 2, succeeded: 0, failed: 2, pending: 0 })
    assert.is(task.message, '4 of 4 members settled: partial')
    for (const x of [a, b]) {
      assert.is(x.got.length, 1)
      assert.is(x.got[0]!.data.go, 1)
    }
    const own = (await c.get<Page<GroupLog>>(`/api/v1/groups/${group.id}/control_logs`)).body.items
    assert.is(own.length, 1)
    assert.equal(
      [own[0]!.taskID, own[0]!.payload, own[0]!.commandStatus, own[0]!.commandStatusLabel],
      [r.body.taskID, '{"go":1}', 'partial', '部分成功'],
    )
    assert.is(own[0]!.statusReason, null)
    const members = (
      await c.get<Page<Log>>(`/api/v1/device_control_logs?parentTaskID=${r.body.taskID}`)
    ).body.items
    const reasons = new Map(members.map((l) => [l.deviceID, [l.commandStatus, l.statusReason]]))
    assert.equal(reasons.get(ds[2]!.deviceID), ['unsent', 'device offline, no ttl'])
    assert.equal(reasons.get(ds[3]!.deviceID), ['unsent', 'device blocked'])
    assert.equal(reasons.get(ds[0]!.deviceID), ['delivered', null])
    const delivered = (await c.get<Page<Log>>(`/api/v1/devices/${ds[0]!.id}/control_logs`)).body
      .items
    assert.equal(
      delivered.map((l) => l.commandStatus),
      ['delivered'],
    )
  })

  test('every member answers :: group succeeded with deliveredAt, message current, members carry parentTaskID', async () => {
    const { group, ds } = await groupOf(3)
    const ms: Array<Awaited<ReturnType<typeof online>>> = []
    for (const d of ds) ms.push(await online(d))
    await sleep(150)
    const r = await c.post<Answer>('/api/v1/group_publish', {
      groupID: group.groupID,
      payload: 'a',
    })
    assert.is(r.status, 201, r.text)
    await until(
      () => Promise.resolve(ms.every((x) => x.got.length === 1)),
      (ok) => ok,
    )
    // two answer 200, the third 500: then the group is partial; here all three answer 200
    for (const x of ms) {
      const answer = { data_type: 'response', result: { task_id: x.got[0]!.task_id, code: 200 } }
      x.m.publish('telemetry', JSON.stringify(answer), { qos: 1 })
    }
    const task = await settled(r.body.statusUrl)
    assert.is(task.status, 3)
    assert.equal(task.result, { total: 3, delivered: 3, succeeded: 3, failed: 0, pending: 0 })
    assert.is(task.message, '3 of 3 members settled: succeeded')
    const own = (await until(
      async () =>
        (await c.get<Page<GroupLog>>(`/api/v1/groups/${group.id}/control_logs`)).body.items[0],
      (l) => l?.commandStatus === 'succeeded',
    ))!
    assert.is(own.commandStatus, 'succeeded')
    assert.ok(own.deliveredAt, JSON.stringify(own))
    assert.ok(own.sentAt, JSON.stringify(own))
    const members = (
      await c.get<Page<Log>>(`/api/v1/device_control_logs?parentTaskID=${r.body.taskID}`)
    ).body.items
    assert.equal(
      members.map((l) => [l.parentTaskID, l.commandStatus]),
      [0, 1, 2].map(() => [r.body.taskID, 'succeeded']),
    )
    const others = (await c.get(`/api/v1/device_control_logs?parentTaskID=nope`)).body.items
    assert.equal(others, [])
  })

  test('members fail or answer :: failed when none succeeded, partial otherwise', async () => {
    const { group, ds } = await groupOf(2)
    const ms = [await online(ds[0]!), await online(ds[1]!)]
    await sleep(150)
    const run = async (codes: number[]) => {
      const r = await c.post<Answer>('/api/v1/group_publish', {
        groupID: group.groupID,
        payload: 'b',
      })
      await until(
        () => Promise.resolve(ms.every((x) => x.got.some((g) => g.task_id))),
        (ok) => ok,
      )
      codes.forEach((code, i) => {
        const m = ms[i]!
        const task_id = m.got[m.got.length - 1]!.task_id
        const answer = { data_type: 'response', result: { task_id, code } }
        m.m.publish('telemetry', JSON.stringify(answer), { qos: 1 })
      })
      await settled(r.body.statusUrl)
      const own = await until(
        async () =>
          (
            await c.get<Page<GroupLog>>(
              `/api/v1/groups/${group.id}/control_logs?taskID=${r.body.taskID}`,
            )
          ).body.items[0],
        // a missing log or status is not queued nor sent either
        (l) => !['queued', 'sent'].includes(l?.commandStatus ?? ''),
      )
      for (const m of ms) m.got.length = 0
      return own!.commandStatus
    }
    assert.is(await run([500, 404]), 'failed')
    assert.is(await run([200, 500]), 'partial')
  })

  test('needAck 1 with ttl :: the task waits for the offline member, done when it connects', async () => {
    const { group, ds } = await groupOf(2)
    await online(ds[0]!)
    await sleep(150)
    const r = await c.post<Answer>('/api/v1/group_publish', {
      ...target(group),
      payload: 'later',
      ttl: 60,
    })
    assert.is(r.status, 201, r.text)
    const running = await until(
      () => taskOf(r.body.statusUrl),
      (task) => task.result?.delivered === 1,
    )
    assert.is(running.status, 2)
    assert.equal(running.result, { total: 2, delivered: 1, succeeded: 0, failed: 0, pending: 1 })
    const late = await online(ds[1]!)
    const task = await settled(r.body.statusUrl)
    assert.equal(task.result, { total: 2, delivered: 2, succeeded: 0, failed: 0, pending: 0 })
    assert.is(late.got[0]?.data, 'later')
  })

  test('ratePerSecond :: members are paced', async () => {
    const { group, ds } = await groupOf(5)
    const times: number[] = []
    for (const d of ds) (await online(d)).m.on('message', () => times.push(Date.now()))
    await sleep(150)
    const r = await c.post<Answer>('/api/v1/group_publish', {
      groupID: group.groupID,
      payload: 'p',
      ratePerSecond: 5,
    })
    await settled(r.body.statusUrl)
    assert.is(times.length, 5)
    const spread = Math.max(...times) - Math.min(...times)
    assert.ok(spread >= 600, `5 members at 5/s arrived within ${spread} ms`)
  })

  test('bad input :: 404 unknown or foreign group, 422 missing payload/group, viewers 403', async () => {
    const { group } = await groupOf(1)
    assert.is(
      (await c.post('/api/v1/group_publish', { groupID: 'nope', payload: 'x' })).status,
      404,
    )
    const other = await t.newTenant()
    assert.is(
      (await other.post('/api/v1/group_publish', { ...target(group), payload: 'x' })).status,
      404,
    )
    const bad = await c.post<ErrorBody & { errors: Record<string, string> }>(
      '/api/v1/group_publish',
      { needAck: 2, ratePerSecond: 0 },
    )
    assertRefusal(bad, 422, ['groupID', 'needAck', 'payload', 'ratePerSecond'])
    const viewer = await t.userWithRole('viewer')
    assert.is(
      (await viewer.post('/api/v1/group_publish', { groupID: group.groupID, payload: 'x' })).status,
      403,
    )
  })

  test('an empty group :: the task is done at once with zero counts', async () => {
    const { product } = await devices(0)
    const g = await c.post<GroupRef>(
      '/api/v1/groups',
      k.groupBody(product.productID, { groupName: `empty-${Date.now()}` }),
    )
    const r = await c.post<Answer>('/api/v1/group_publish', {
      groupID: g.body.groupID,
      payload: 'x',
    })
    const task = await settled(r.body.statusUrl)
    assert.equal(task.result, { total: 0, delivered: 0, succeeded: 0, failed: 0, pending: 0 })
  })

  test.run()
}
