/**
 * Commands survive a crash: the service runs in a child process, is killed with SIGKILL in the middle of a paced
 * group publish, and restarted on the same data directory. No command stays `sent` past its timeout, queued ones
 * still wait for their devices, the group's task follows its members to the end, and no member is lost.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mqtt, { type MqttClient } from 'mqtt'
import { ADMIN_EMAIL, ADMIN_PASSWORD, Client } from '../../_support/service.ts'
import { startChildService, type ChildService } from '../../_support/child-service.ts'
import { mqttBody, newDevice, newProduct, type NewDevice } from '../routes/devices-helpers.ts'
import { sleep, until } from '../../ingest/_mqtt.ts'
import type { Session } from '../../../src/schemas/accounts.ts'
import type { GroupPublishAnswer } from '../../../src/schemas/commands.ts'
import type { Group } from '../../../src/schemas/groups.ts'
import type { ControlLog } from '../../../src/schemas/logs.ts'
import type { TaskStatus } from '../../../src/schemas/tasks.ts'
import type { GroupCounts } from '../../../store/meta/commands.ts'
import type { Page, Wire } from '../../_support/wire.ts'

const test = suite('commands: kill -9 in the middle of a group publish')

type Child = ChildService<{ url: string; mqttPort: number }>
/** A group publish's task: once done, its result counts the members. */
type GroupTask = Wire<typeof TaskStatus> & { result: GroupCounts | null }
type Log = Wire<typeof ControlLog>
const startChild = (dir: string) =>
  startChildService('test/ingest/_service-child.ts', { DATA_DIR: dir, COMMAND_TIMEOUT: '2' })

async function adminOf(url: string) {
  const login = await new Client(url).post<Wire<typeof Session>>('/api/v1/login', {
    email: ADMIN_EMAIL,
    password: ADMIN_PASSWORD,
  })
  assert.is(login.status, 201, login.text)
  return new Client(url, `Bearer ${login.body.token}`)
}

/** Connects devices; counts the commands each receives by taskID. */
async function connectAll(port: number, ds: NewDevice[], seen: Map<string, number>) {
  const clients: MqttClient[] = []
  for (const d of ds) {
    const m = mqtt.connect(`mqtt://127.0.0.1:${port}`, {
      clientId: d.deviceID,
      username: d.deviceUsername,
      password: d.token,
      protocolVersion: 4,
      reconnectPeriod: 0,
    })
    m.on('message', (_t, payload) => {
      const { task_id } = JSON.parse(payload.toString())
      seen.set(task_id, (seen.get(task_id) ?? 0) + 1)
    })
    m.on('error', () => {})
    await new Promise<void>((resolve, reject) => {
      m.once('connect', () => resolve())
      m.once('error', reject)
    })
    clients.push(m)
  }
  return clients
}

test('SIGKILL mid-publish, restart :: nothing stays sent, queued ones wait, the task completes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'devicecloud-cmd-kill9-'))
  let a: Child | undefined
  let b: Child | undefined
  const clients: MqttClient[] = []
  try {
    a = await startChild(dir)
    let admin = await adminOf(a.url)
    const product = await newProduct(admin)
    const ds: NewDevice[] = []
    for (let i = 0; i < 40; i++) ds.push(await newDevice(admin, mqttBody(product.productID)))
    const g = await admin.post<Wire<typeof Group>>('/api/v1/groups', {
      productID: product.productID,
      groupName: 'all',
    })
    await admin.post(`/api/v1/groups/${g.body.id}/devices`, { ids: ds.map((d) => d.id) })
    const onlineNow = ds.slice(0, 30)
    const offline = ds.slice(30)
    const seen = new Map<string, number>()
    clients.push(...(await connectAll(a.mqttPort, onlineNow, seen)))
    await sleep(300)
    const r = await admin.post<Wire<typeof GroupPublishAnswer>>('/api/v1/group_publish', {
      groupIntID: g.body.id,
      payload: 'go',
      ttl: 600,
      ratePerSecond: 20,
    })
    assert.is(r.status, 201, r.text)
    await sleep(600) // about a dozen members sent, the rest still paced
    a.child.kill('SIGKILL')
    await new Promise((ok) => (a!.child.exitCode !== null ? ok(null) : a!.child.once('exit', ok)))
    for (const m of clients.splice(0)) m.end(true)
    const before = seen.size
    assert.ok(before > 0 && before < 30, `${before} members received before the kill`)

    b = await startChild(dir)
    admin = await adminOf(b.url)
    clients.push(...(await connectAll(b.mqttPort, onlineNow, seen)))
    const logsOf = async () => {
      const items: Log[] = []
      for (let page = 1; page <= 2; page++)
        items.push(
          ...(await admin.get<Page<Log>>(`/api/v1/device_control_logs?_limit=100&_page=${page}`))
            .body.items,
        )
      return items
    }
    // the timeout (2 s) passes: nothing is left `sent`; the connected members all settle
    const settled = await until(
      logsOf,
      (items) =>
        items.length === 40 &&
        items
          .filter((l) => onlineNow.some((d) => d.deviceID === l.deviceID))
          .every((l) => ['delivered', 'timed_out'].includes(l.commandStatus!)),
      12_000,
    )
    const statuses = (list: Log[]) => list.map((l) => l.commandStatus)
    assert.not.ok(statuses(settled).includes('sent'), JSON.stringify(statuses(settled)))
    const forOffline = settled.filter((l) => offline.some((d) => d.deviceID === l.deviceID))
    assert.equal(statuses(forOffline), Array(10).fill('queued'))
    const task = (await admin.get<GroupTask>(`/api/v1${r.body.statusUrl}`)).body
    assert.is(task.status, 2, 'the group task is still running, not failed by the restart')
    // every connected member got the command (at least once), the offline ones nothing yet
    for (const l of settled.filter((x) => x.commandStatus === 'delivered'))
      assert.ok(seen.get(l.taskID!)! >= 1)
    // the offline members connect: their queued commands go out, and the task completes
    clients.push(...(await connectAll(b.mqttPort, offline, seen)))
    const done = await until(
      async () => (await admin.get<GroupTask>(`/api/v1${r.body.statusUrl}`)).body,
      (x) => x.status === 3,
      8000,
    )
    assert.is(done.status, 3, JSON.stringify(done.result))
    const counts = done.result!
    assert.is(counts.total, 40)
    assert.is(counts.pending, 0)
    assert.is(counts.delivered + counts.failed, 40)
    assert.ok(counts.delivered >= 30, JSON.stringify(done.result))
  } finally {
    for (const m of clients) m.end(true)
    a?.child.kill('SIGKILL')
    b?.child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
})

test.run()
