/**
 * Two service processes on one metadata database fire each due time of a schedule once: both run the firing
 * loop over the same rows, on a shared clock running 30 times faster than the real one (a minute in two
 * seconds). Whether their turns overlap is up to timing here; schedules-claim.test.ts races two nodes' turns
 * deterministically.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ADMIN_EMAIL, ADMIN_PASSWORD, Client } from '../../_support/service.ts'
import { startChildService } from '../../_support/child-service.ts'
import { mqttBody, newDevice, newProduct } from '../routes/devices-helpers.ts'
import { openDb, type Db } from '../../../store/libsql/db.ts'

const MINUTE = 60_000
const SPEED = 30
const SCHEDULES = 10

/** Starts a node in a child process; resolves with its URL once it listens. */
const startNode = (env: Record<string, string>) =>
  startChildService<{ url: string }>('test/src/services/_schedule-child.ts', env)

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode) return Promise.resolve()
  return new Promise((resolve) => {
    const hard = setTimeout(() => child.kill('SIGKILL'), 5000)
    child.once('exit', () => {
      clearTimeout(hard)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

const nodes = suite('schedules on two nodes')

nodes('an interval schedule on two nodes :: each due time fired once, none skipped', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'devicecloud-nodes-'))
  const shared = {
    DATABASE_URL: `file:${join(dir, 'meta.db')}`,
    CLOCK_BASE: String(Date.now()),
    CLOCK_SPEED: String(SPEED),
    TIMEZONE: 'UTC',
  }
  const children: ChildProcess[] = []
  let db: Db | undefined
  try {
    // one after the other: the first creates the schema and the admin
    const a = await startNode({ ...shared, DATA_DIR: join(dir, 'a') })
    children.push(a.child)
    const b = await startNode({ ...shared, DATA_DIR: join(dir, 'b') })
    children.push(b.child)
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
    db = await openDb({ url: shared.DATABASE_URL })
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
        await db!.all(
          'SELECT id FROM schedules WHERE last_run_at IS NULL OR last_run_at < ? + 4 * 60000 - 1',
          [Math.max(...first.values())],
        )
      ).length
    while ((await behind()) > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 200))
    // a node stopping finishes the firing it has claimed
    await Promise.all(children.map(stop))

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
  } finally {
    await Promise.all(children.map(stop))
    void db?.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

nodes.run()
