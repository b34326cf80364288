/**
 * Device state with two service processes on one metadata database, each with its embedded broker: a patch made on
 * one node reaches a device connected to the other within a second; writers on both nodes never repeat a version;
 * two patches based on the same version, one per node: one 200, one 409; a group patch runs once.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import mqtt, { type MqttClient } from 'mqtt'
import { childAdmin, killChild, type ChildService } from '../../_support/child-service.ts'
import { waitTask } from '../../_support/service.ts'
import { groupOfDevices, startChild } from './_crash.ts'
import { deltaWhere, stateInbox, type Doc } from './_state.ts'

const test = suite('device state on two nodes')

type Node = ChildService<{ url: string; mqttPort: number }>

test('two nodes :: pushes across nodes, unique versions, one 409 of two racing writers, one job run', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'state-nodes-'))
  const DATABASE_URL = `file:${join(dir, 'meta.db')}`
  const nodes: Node[] = []
  const clients: MqttClient[] = []
  try {
    nodes.push(await startChild(join(dir, 'a'), { DATABASE_URL }))
    nodes.push(await startChild(join(dir, 'b'), { DATABASE_URL }))
    const [a, b] = [await childAdmin(nodes[0]!.url), await childAdmin(nodes[1]!.url)]
    const { ds, g } = await groupOfDevices(a, 2)
    const [d1, d2] = ds as [(typeof ds)[0], (typeof ds)[0]]
    // d1 connects to node b
    const m = await mqtt.connectAsync(`mqtt://127.0.0.1:${nodes[1]!.mqttPort}`, {
      clientId: d1.deviceID,
      username: d1.deviceUsername,
      password: d1.token,
      reconnectPeriod: 0,
    })
    clients.push(m)
    const inbox = stateInbox(m)
    await m.subscribeAsync('state/delta', { qos: 1 })
    const sent = Date.now()
    const r = await a.patch<Doc>(`/api/v1/devices/${d1.id}/state`, { desired: { color: 'red' } })
    assert.is(r.status, 200, r.text)
    const got = await deltaWhere(inbox, (x) => x.desiredVersion === r.body.desiredVersion, 2000)
    assert.ok(got, 'the delta of a change made on the other node')
    assert.ok(got.at - sent <= 1000, `${got.at - sent} ms`)

    // 15 writers on each node at once: 30 versions, none repeated
    const writes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 ? a : b).patch<Doc>(`/api/v1/devices/${d2.id}/state`, { desired: { [`k${i}`]: i } }),
      ),
    )
    assert.ok(writes.every((w) => w.status === 200))
    assert.is(new Set(writes.map((w) => w.body.version)).size, 30)
    const doc = (await b.get<Doc>(`/api/v1/devices/${d2.id}/state`)).body
    assert.is(doc.version, 30)
    assert.is(Object.keys(doc.desired).length, 30)

    // one patch per node, both based on the same desiredVersion
    const race = await Promise.all(
      [a, b].map((n, i) =>
        n.patch(`/api/v1/devices/${d2.id}/state`, {
          desired: { race: i },
          version: doc.desiredVersion,
        }),
      ),
    )
    assert.equal(race.map((x) => x.status).sort(), [200, 409])

    // a group patch through node a: one job, run once whichever node claims it
    const job = await a.patch(`/api/v1/groups/${g.id}/state`, { desired: { color: 'blue' } })
    assert.is(job.status, 202, job.text)
    const task = await waitTask(b, job.body.statusUrl)
    assert.equal(task.result, { total: 2, changed: 2, unchanged: 0, failed: 0 })
    assert.ok(await deltaWhere(inbox, (x) => x.delta.color === 'blue', 2000))
  } finally {
    for (const c of clients) c.end(true)
    for (const n of nodes) await killChild(n)
    rmSync(dir, { recursive: true, force: true })
  }
})

test.run()
