import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestService, type Client, type TestService } from '../../_support/service.ts'
import { tenantOf } from '../../_support/fixtures.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { TaskListItem, TaskStatus } from '../../../src/schemas/tasks.ts'
import {
  createTaskRunner,
  publicMessage,
  TaskFailure,
  type TaskRunner,
} from '../../../src/tasks.ts'
import { INTERRUPTED } from '../../../store/types.ts'

const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/
type Tasks = Page<Wire<typeof TaskListItem>>
let t: TestService
let tenant: string
let runner: TaskRunner
const logged: Array<[string, unknown]> = []

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Polls the statusUrl over HTTP until `done` holds (or 5 s pass). */
async function poll(
  client: Client,
  statusUrl: string,
  done: (body: Wire<typeof TaskStatus>) => boolean,
) {
  for (let i = 0; i < 250; i++) {
    const r = await client.get<Wire<typeof TaskStatus>>(`/api/v1${statusUrl}`)
    if (r.status !== 200 || done(r.body)) return r
    await sleep(20)
  }
  throw new Error(`task at ${statusUrl} never got there`)
}

const tasks = suite('task status')
tasks.before(async () => {
  t = await startTestService()
  tenant = await tenantOf(t)
  runner = createTaskRunner(t.svc.deps.meta.tasks, { onError: (id, e) => logged.push([id, e]) })
})
tasks.after(async () => {
  await runner.idle()
  await t.close()
})

tasks(
  'runner end to end :: waiting/running with progress, then 3 done with the result',
  async () => {
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const started = await runner.start(tenant, null, 'devices_export', async (report) => {
      await report(49.6, 'half way')
      await gate
      await report(90)
      return { success: 3, failed: 0, errors: [] }
    })
    assert.match(started.taskID, /^[0-9a-f-]{36}$/)
    assert.is(started.statusUrl, `/task_status/${started.taskID}`)
    const mid = await poll(t.admin, started.statusUrl, (b) => b.progress === 50)
    assert.equal(mid.body, {
      taskID: started.taskID,
      status: 2,
      statusLabel: '执行中',
      progress: 50,
      message: 'half way',
      result: null,
    })
    release()
    const done = await poll(t.admin.english(), started.statusUrl, (b) => b.status >= 3)
    assert.is(done.status, 200)
    assert.equal(done.body, {
      taskID: started.taskID,
      status: 3,
      statusLabel: 'Done',
      progress: 100,
      message: 'half way',
      result: { success: 3, failed: 0, errors: [] },
    })
  },
)

tasks('failing work :: 4 failed with the message, one line, no stack', async () => {
  const started = await runner.start(tenant, null, 'devices_import', async (report) => {
    await report(10)
    throw new Error('row 3: deviceName taken\n    at secret (/app/src/x.ts:1:1)')
  })
  const r = await poll(t.admin, started.statusUrl, (b) => b.status >= 3)
  assert.equal(r.body, {
    taskID: started.taskID,
    status: 4,
    statusLabel: '失败',
    progress: 10,
    message: 'row 3: deviceName taken',
    result: null,
  })
  assert.ok(logged.some(([id, e]) => id === started.taskID && /secret/.test((e as Error).message)))
})

tasks(
  'odd outcomes :: undefined result is null, thrown non-errors and bad results fail cleanly',
  async () => {
    const none = await runner.start(tenant, null, 'noop', async () => undefined)
    const str = await runner.start(tenant, null, 'str', async () => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- what a task that throws a string looks like
      throw 'plain string'
    })
    const big = await runner.start(tenant, null, 'bigint', async () => ({ n: 1n }))
    await runner.idle()
    const get = async (s: { statusUrl: string }) =>
      (await t.admin.get(`/api/v1${s.statusUrl}`)).body
    assert.equal(await get(none), {
      taskID: none.taskID,
      status: 3,
      statusLabel: '已完成',
      progress: 100,
      message: null,
      result: null,
    })
    assert.is((await get(str)).message, 'plain string')
    assert.is((await get(big)).status, 4)
    assert.not.match((await get(big)).message, /\n/)
  },
)

tasks(
  'publicMessage :: driver errors hidden, TaskFailure and plain errors shown by first line',
  () => {
    const driver = Object.assign(
      new Error('SQLITE_CONSTRAINT: UNIQUE constraint failed: devices.device_id'),
      { code: 'SQLITE_CONSTRAINT' },
    )
    assert.is(publicMessage(driver), 'internal error')
    assert.is(publicMessage(new TaskFailure('row 2: bad productID')), 'row 2: bad productID')
    assert.is(publicMessage(new Error('a\nb')), 'a')
    assert.is(publicMessage(new Error('')), 'the task failed')
    assert.is(publicMessage(undefined), 'the task failed')
    assert.is(publicMessage('x'.repeat(600)).length, 500)
  },
)

tasks(
  'tenant isolation :: foreign and unknown taskID 404 DATA_NOT_FOUND errors.taskID, never listed',
  async () => {
    const other = await t.newTenant()
    const mine = await runner.start(tenant, null, 'mine', async () => 1)
    const theirs = await runner.start(other.tenantID, null, 'theirs', async () => 2)
    await runner.idle()
    const r = await other.get(`/api/v1${mine.statusUrl}`)
    assert.is(r.status, 404)
    assert.equal(r.body, {
      errorCode: 'DATA_NOT_FOUND',
      message: r.body.message,
      errors: { taskID: 'not found' },
    })
    assert.is((await other.get(`/api/v1${theirs.statusUrl}`)).body.result, 2)
    assert.is((await t.admin.get(`/api/v1${theirs.statusUrl}`)).status, 404)
    assert.is((await t.admin.get("/api/v1/task_status/x' OR '1'='1")).status, 404)
    const list = await other.get<Tasks>('/api/v1/task_status')
    assert.equal(
      list.body.items.map((x) => x.taskID),
      [theirs.taskID],
    )
  },
)

tasks('list :: the tenant tasks newest first, filters, viewer may read', async () => {
  const a = await runner.start(tenant, null, 'list_a', async () => 'a')
  const b = await runner.start(tenant, null, 'list_b', async () => {
    throw new Error('nope')
  })
  await runner.idle()
  const viewer = await t.userWithRole('viewer')
  const r = await viewer.get<Tasks>('/api/v1/task_status?taskName_like=list_')
  assert.is(r.status, 200)
  assert.equal(r.body.meta, { count: 2, limit: 10, page: 1, next: null })
  assert.equal(
    r.body.items.map((x) => x.taskID),
    [b.taskID, a.taskID],
  )
  const item = r.body.items[1]!
  assert.equal(Object.keys(item), [
    'taskID',
    'status',
    'statusLabel',
    'progress',
    'message',
    'taskName',
    'createAt',
    'updateAt',
  ])
  assert.match(item.createAt!, TIME)
  assert.match(item.updateAt!, TIME)
  const failed = await t.admin.get<Tasks>('/api/v1/task_status?status=4&taskName_like=list_')
  assert.equal(
    failed.body.items.map((x) => x.taskID),
    [b.taskID],
  )
  assert.is((await viewer.get(`/api/v1${a.statusUrl}`)).status, 200)
  assert.is((await t.admin.get('/api/v1/task_status?status=x')).status, 400)
  assert.is((await t.anon.get(`/api/v1${a.statusUrl}`)).status, 401)
  assert.is((await t.admin.post(`/api/v1${a.statusUrl}`, {})).status, 405)
})

tasks('store failures :: told to onError, never an unhandled rejection', async () => {
  const unhandled: unknown[] = []
  const onUnhandled = (e: unknown) => unhandled.push(e)
  process.on('unhandledRejection', onUnhandled)
  const seen: unknown[] = []
  const down = () => Promise.reject(new Error('store down'))
  const store = {
    create: async () => 'fake-task',
    markRunning: down,
    report: down,
    finish: down,
    fail: down,
  }
  const fake = createTaskRunner(store, {
    onError: (_id, e) => {
      seen.push(e)
      throw new Error('logger broken too')
    },
  })
  const started = await fake.start('t', null, 'x', async () => 1)
  assert.is(started.statusUrl, '/task_status/fake-task')
  await fake.idle()
  await sleep(10)
  process.off('unhandledRejection', onUnhandled)
  assert.is(fake.running, 0)
  assert.is(seen.length, 2)
  assert.equal(unhandled, [])
})

tasks(
  'failInterruptedTasks :: waiting and running become 4 failed, finished ones stay',
  async () => {
    const repo = t.svc.deps.meta.tasks
    const waiting = await repo.create(tenant, null, 'crash_waiting')
    assert.equal((await t.admin.english().get(`/api/v1/task_status/${waiting}`)).body, {
      taskID: waiting,
      status: 1,
      statusLabel: 'Waiting',
      progress: 0,
      message: null,
      result: null,
    })
    const running = await repo.create(tenant, null, 'crash_running')
    await repo.markRunning(running)
    await repo.report(running, 40, 'busy')
    const done = await repo.create(tenant, null, 'crash_done')
    await repo.finish(done, '{"ok":true}')
    const failed = await repo.create(tenant, null, 'crash_failed')
    await repo.fail(failed, 'own reason')
    assert.ok((await repo.failInterruptedTasks()) >= 2)
    const get = async (id: string) => (await t.admin.get(`/api/v1/task_status/${id}`)).body
    assert.equal(await get(waiting), {
      taskID: waiting,
      status: 4,
      statusLabel: '失败',
      progress: 0,
      message: INTERRUPTED,
      result: null,
    })
    assert.equal(await get(running), {
      taskID: running,
      status: 4,
      statusLabel: '失败',
      progress: 40,
      message: INTERRUPTED,
      result: null,
    })
    assert.equal(await get(done), {
      taskID: done,
      status: 3,
      statusLabel: '已完成',
      progress: 100,
      message: null,
      result: { ok: true },
    })
    assert.is((await get(failed)).message, 'own reason')
    assert.is(await repo.failInterruptedTasks(), 0)
    // a finished task is not moved again
    await repo.report(done, 5, 'late')
    assert.is((await get(done)).progress, 100)
  },
)

tasks.run()
