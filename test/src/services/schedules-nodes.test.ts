/**
 * Two service processes on one metadata database fire each due time of a schedule once: both run the firing
 * loop over the same rows, on a shared clock running 30 times faster than the real one (a minute in two
 * seconds). Whether their turns overlap is up to timing here; schedules-claim.test.ts races two nodes' turns
 * deterministically.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { ADMIN_EMAIL, ADMIN_PASSWORD, Client } from '../../_support/service.ts'
import { mqttBody, newDevice, newProduct } from '../routes/devices-helpers.ts'
import { openDb } from '../../../store/libsql/db.ts'
import { withTwoNodes } from './_nodes.ts'

const MINUTE = 60_000
const SPEED = 30
const SCHEDULES = 10

const nodes = suite('schedules on two nodes')

nodes('an interval schedule on two nodes :: each due time fired once, none skipped', () =>
  withTwoNodes('devicecloud-nodes-', { CLOCK_SPEED: String(SPEED), TIMEZONE: 'UTC' }, async (n) => {
    const { a, b } = n
    const login = await new Client(a.url).post('/api/v1/login', {
      email: ADMIN_EMAIL,
      password: ADMIN_PASSWORD,
    })
    assert.is(login.status, 201, login.text)
    const onA = new Client(a.url, `Bearer ${login.body.token}`)
    const onB = new Client(b.url, `Bearer ${login.body.token}`)
    // an offline device: every firing is one `unsent` command in its control logs; several schedules due
    // at about the same times, so that both nodes find the same rows due
    const device = await newDevice(onA, mqttBody((await newProduct(onA)).productID))
    const ids: number[] = []
    for (let i = 0; i < SCHEDULES; i++) {
      const r = await (i % 2 ? onB : onA).post('/api/v1/device_schedule_publish', {
        deviceID: device.deviceID,
        payload: `tick ${i}`,
        scheduleName: `every minute ${i}`,
        scheduleType: 2,
        IntervalMinute: 1,
      })
      assert.is(r.status, 201, r.text)
      ids.push(Number(r.headers.get('location')!.split('/').pop()))
    }
    // the first due times to the millisecond (the wire shows whole seconds)
    const db = (n.db = await openDb({ url: n.databaseUrl }))
    const first = new Map(
      (await db.all('SELECT id, next_run_at AS t FROM schedules')).map((r) => [
        Number(r.id),
        Number(r.t),
      ]),
    )
    // at least 5 due times of each (about 10 s)
    const end = Date.now() + 30_000
    const behind = async () =>
      (
        await db.all(
          'SELECT id FROM schedules WHERE last_run_at IS NULL OR last_run_at < ? + 4 * 60000 - 1',
          [Math.max(...first.values())],
        )
      ).length
    while ((await behind()) > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 200))
    // a node stopping finishes the firing it has claimed
    await n.stop()

    for (const id of ids) {
      const row = await db.one('SELECT last_run_at AS last FROM schedules WHERE id = ?', [id])
      const logs = await db.all(
        'SELECT task_id AS taskID, command_status AS status FROM control_logs WHERE schedule_id = ?',
        [id],
      )
      const fired = (Number(row!.last) - first.get(id)!) / MINUTE + 1
      assert.ok(fired >= 5, `schedule ${id}: ${fired} due times fired`)
      assert.ok(Number.isInteger(fired), `schedule ${id}: due times a minute apart`)
      assert.is(
        logs.length,
        fired,
        `schedule ${id}: ${logs.length} commands for ${fired} due times`,
      )
      assert.is(new Set(logs.map((l) => l.taskID)).size, logs.length)
      assert.ok(logs.every((l) => l.status === 'unsent'))
    }
  }),
)

nodes.run()
