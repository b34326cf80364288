/**
 * Commands survive a crash: the service runs in a child process, is killed with SIGKILL in the middle of a paced
 * group publish, and restarted on the same data directory. No command stays `sent` past its timeout, queued ones
 * still wait for their devices, the group's task follows its members to the end, and no member is lost.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { childAdmin, killChild } from '../../_support/child-service.ts'
import { sleep, until } from '../../ingest/_mqtt.ts'
import type { GroupPublishAnswer } from '../../../src/schemas/commands.ts'
import type { ControlLog } from '../../../src/schemas/logs.ts'
import type { TaskStatus } from '../../../src/schemas/tasks.ts'
import type { GroupCounts } from '../../../store/meta/commands.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import { connectAll, crashScene, groupOfDevices, startChild } from './_crash.ts'

const test = suite('commands: kill -9 in the middle of a group publish')

/** A group publish's task: once done, its result counts the members. */
type GroupTask = Wire<typeof TaskStatus> & { result: GroupCounts | null }
type Log = Wire<typeof ControlLog>
const env = { COMMAND_TIMEOUT: '2' }

test('SIGKILL mid-publish, restart :: nothing stays sent, queued ones wait, the task completes', () =>
  crashScene('devicecloud-cmd-kill9-', async (s) => {
    s.a = await startChild(s.dir, env)
    let admin = await childAdmin(s.a.url)
    const { ds, g } = await groupOfDevices(admin, 40)
    const onlineNow = ds.slice(0, 30)
    const offline = ds.slice(30)
    const seen = new Map<string, number>()
    s.clients.push(...(await connectAll(s.a.mqttPort, onlineNow, seen)))
    await sleep(300)
    const r = await admin.post<Wire<typeof GroupPublishAnswer>>('/api/v1/group_publish', {
      groupIntID: g.id,
      payload: 'go',
      ttl: 600,
      ratePerSecond: 20,
    })
    assert.is(r.status, 201, r.text)
    await sleep(600) // about a dozen members sent, the rest still paced
    await killChild(s.a)
    for (const m of s.clients.splice(0)) m.end(true)
    const before = seen.size
    assert.ok(before > 0 && before < 30, `${before} members received before the kill`)

    s.b = await startChild(s.dir, env)
    admin = await childAdmin(s.b.url)
    s.clients.push(...(await connectAll(s.b.mqttPort, onlineNow, seen)))
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
    s.clients.push(...(await connectAll(s.b.mqttPort, offline, seen)))
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
  }))

test.run()
