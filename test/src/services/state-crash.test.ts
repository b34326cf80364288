/**
 * Device state across kill -9: a desired patch answered 200, a report answered with its PUBACK and a group patch
 * answered 202 survive a SIGKILL of the service right after the answer; the group's job goes on from its last page
 * once the service is back, and every member ends patched.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import mqtt from 'mqtt'
import { randomId } from '../../../src/kernel/secrets.ts'
import { openDb } from '../../../store/libsql/db.ts'
import { childAdmin, killChild } from '../../_support/child-service.ts'
import { waitTask } from '../../_support/service.ts'
import { until } from '../../ingest/_mqtt.ts'
import { crashScene, groupOfDevices, startChild } from './_crash.ts'
import type { Doc } from './_state.ts'

const test = suite('device state across kill -9')

test('a 200 patch and a PUBACKed report :: both there after a SIGKILL right after the answer', () =>
  crashScene('state-crash-', async (s) => {
    s.a = await startChild(s.dir)
    const admin = await childAdmin(s.a.url)
    const { ds } = await groupOfDevices(admin, 2)
    const [d1, d2] = ds
    const patched = await admin.patch<Doc>(`/api/v1/devices/${d1!.id}/state`, {
      desired: { level: 7 },
    })
    assert.is(patched.status, 200)
    const device = await mqtt.connectAsync(`mqtt://127.0.0.1:${s.a.mqttPort}`, {
      clientId: d2!.deviceID,
      username: d2!.deviceUsername,
      password: d2!.token,
      reconnectPeriod: 0,
    })
    s.clients.push(device)
    await device.publishAsync('state/reported', JSON.stringify({ level: 3, fw: 'a1' }), { qos: 1 })
    await killChild(s.a) // right after the PUBACK
    s.b = await startChild(s.dir)
    const again = await childAdmin(s.b.url)
    const doc1 = (await again.get<Doc>(`/api/v1/devices/${d1!.id}/state`)).body
    assert.equal([doc1.desired, doc1.desiredVersion], [{ level: 7 }, 1])
    const doc2 = (await again.get<Doc>(`/api/v1/devices/${d2!.id}/state`)).body
    assert.equal([doc2.reported, doc2.reportedVersion], [{ level: 3, fw: 'a1' }, 1])
    const events = await again.get(`/api/v1/devices/${d1!.id}`)
    assert.is(events.body.stateDelta, 1)
  }))

test('a 202 group patch of 1,200 devices :: killed at once, resumed on restart, every member patched once', () =>
  crashScene('state-crash-group-', async (s) => {
    s.a = await startChild(s.dir)
    const admin = await childAdmin(s.a.url)
    const { ds, g } = await groupOfDevices(admin, 1)
    // 1,199 more members, written straight into the database (the API would take a while)
    s.db = await openDb({ url: `file:${s.dir}/devicecloud.db` })
    const ref = await s.db.one('SELECT tenant_id, product_int_id FROM devices WHERE id = ?', [
      ds[0]!.id,
    ])
    const now = Date.now()
    await s.db.batch(
      Array.from({ length: 1199 }, (_, i) => ({
        sql: `INSERT INTO devices (tenant_id, kind, product_int_id, device_id, device_name, device_username, token,
            auth_type, device_type, up_link_system, create_at) VALUES (?, 'device', ?, ?, ?, ?, ?, 1, 1, 1, ?)`,
        args: [
          ref!.tenant_id as string,
          ref!.product_int_id as number,
          `bulk-${i}`,
          `bulk-${i}`,
          randomId(20),
          randomId(20),
          now,
        ],
      })),
    )
    await s.db.run(
      `INSERT INTO group_devices (group_int_id, device_int_id, create_at)
        SELECT ?, id, ? FROM devices WHERE device_id LIKE 'bulk-%'`,
      [g.id, now],
    )
    const r = await admin.patch(`/api/v1/groups/${g.id}/state`, { desired: { mode: 'night' } })
    assert.is(r.status, 202, r.text)
    await killChild(s.a)
    const done = await s.db.one('SELECT count(*) AS n FROM device_states')
    s.b = await startChild(s.dir)
    const again = await childAdmin(s.b.url)
    const task = await until(
      async () => (await again.get(`/api/v1${r.body.statusUrl}`)).body,
      (x) => x.status >= 3,
      30_000,
      200,
    )
    assert.is(task.status, 3, JSON.stringify(task))
    assert.is(task.result.total, 1200)
    assert.is(task.result.changed + task.result.unchanged, 1200, JSON.stringify(task.result))
    assert.is(task.result.failed, 0)
    const patched = await s.db.one(
      `SELECT count(*) AS n FROM device_states WHERE json_extract(desired, '$.mode') = 'night'
        AND desired_version = 1`,
    )
    assert.is(Number(patched!.n), 1200, `every member once (${String(done!.n)} before the restart)`)
    const again2 = await again.patch(`/api/v1/groups/${g.id}/state`, { desired: { mode: 'night' } })
    const task2 = await waitTask(again, again2.body.statusUrl)
    assert.equal(task2.result, { total: 1200, changed: 0, unchanged: 1200, failed: 0 })
  }))

test.run()
