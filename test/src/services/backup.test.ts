/**
 * Backups while ingest runs (src/services/backup.ts, store/index.ts backupStores): the copy opens, and holds every
 * value and event acknowledged before it started; who may take one; `npm run backup` beside a running service.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { MqttClient } from 'mqtt'
import { startTestService, waitTask, type TestService } from '../../_support/service.ts'
import { mkPoint, mkProduct, mkStream } from '../routes/_product-model.ts'
import { mqttBody, newDevice } from '../routes/devices-helpers.ts'
import { connectDevice, end } from '../../ingest/_mqtt.ts'
import { LibsqlTelemetryStore } from '../../../store/tsdb/store.ts'
import { openDb } from '../../../store/libsql/db.ts'

const test = suite('backups')
let t: TestService
const root = join(import.meta.dirname, '..', '..', '..')

test.before(async () => {
  t = await startTestService({ INGEST_LINGER_MS: '2' })
})
test.after(async () => t?.close())

interface Acked {
  deviceID: string
  time: number
  value: number
  /** When the PUBACK arrived (performance.now()). */
  at: number
}

/** Publishes QoS 1 uplinks of `x` (4 in flight) until `stop()`; every acknowledged one is in `acked`. */
function publisher(client: MqttClient, topic: string, deviceID: string, acked: Acked[]) {
  let running = true
  let n = 0
  const base = Date.now() - 3_600_000
  const done: Promise<void>[] = []
  const one = () =>
    new Promise<void>((resolve) => {
      const loop = () => {
        if (!running) return resolve()
        const i = n++
        const time = base + i
        client.publish(
          topic,
          JSON.stringify({ data_type: 'event', data: { x: { time, value: i } } }),
          { qos: 1 },
          (err) => {
            if (!err) acked.push({ deviceID, time, value: i, at: performance.now() })
            loop()
          },
        )
      }
      loop()
    })
  for (let k = 0; k < 4; k++) done.push(one())
  return async () => {
    running = false
    await Promise.all(done)
  }
}

test('a backup while devices publish :: the copy opens and holds every value and event acknowledged before it began', async () => {
  const c = t.admin
  const product = await mkProduct(c)
  const x = await mkPoint(c, product.id, 'x')
  await mkStream(c, product.productID, [x.id], { topic: 'telemetry' })
  const devices = await Promise.all([1, 2, 3].map(() => newDevice(c, mqttBody(product.productID))))
  const acked: Acked[] = []
  const clients: MqttClient[] = []
  const stops: Array<() => Promise<void>> = []
  for (const d of devices) {
    const m = await connectDevice(t, d)
    clients.push(m)
    const topic = `/mqtt/${t.svc.firstAdmin?.tenantID ?? (await tenantOf(d.id))}/${product.productID}/${d.deviceID}/telemetry`
    stops.push(publisher(m, topic, d.deviceID, acked))
  }
  await new Promise((r) => setTimeout(r, 500))
  const began = performance.now()
  const r = await c.post('/api/v1/admin/backup')
  assert.is(r.status, 202, r.text)
  assert.match(r.body.statusUrl, /^\/task_status\//)
  const task = await waitTask(c, r.body.statusUrl)
  await new Promise((res) => setTimeout(res, 200)) // ingest went on during the copy
  for (const stop of stops) await stop()
  for (const m of clients) end(m)
  assert.is(task.status, 3, JSON.stringify(task))
  const result = typeof task.result === 'string' ? JSON.parse(task.result) : task.result
  assert.match(result.path, /backups\/\d{8}-\d{6}/)
  assert.equal(result.files.map((f: { name: string }) => f.name).sort(), [
    'devicecloud.db',
    'telemetry.db',
  ])
  const before = acked.filter((a) => a.at < began)
  assert.ok(before.length > 20, `uplinks acknowledged before the backup: ${before.length}`)
  assert.ok(acked.length > before.length, 'uplinks were acknowledged during the backup')

  // the copy: every value acknowledged before the backup began, with its time and value
  const copy = await LibsqlTelemetryStore.open({
    url: `file:${join(result.path, 'telemetry.db')}`,
    flushIntervalMs: 0,
  })
  const meta = await openDb({ url: `file:${join(result.path, 'devicecloud.db')}` })
  try {
    for (const d of devices) {
      const mine = before.filter((a) => a.deviceID === d.deviceID)
      const tenantID = await tenantOf(d.id)
      const got = (
        await copy.readRaw({
          tenantID,
          deviceID: d.deviceID,
          dataPointIDs: ['x'],
          start: 0,
          end: Date.now(),
        })
      ).get('x')!
      const stored = new Map(got.time.map((tm, i) => [tm, got.value[i]]))
      for (const a of mine) assert.is(stored.get(a.time), a.value, `${d.deviceID} value ${a.value}`)
      const events = await meta.one('SELECT count(*) AS n FROM events WHERE device_id = ?', [
        d.deviceID,
      ])
      assert.ok(
        Number(events!.n) >= mine.length,
        'every acknowledged uplink is an event in the copy',
      )
    }
    const users = await meta.one('SELECT count(*) AS n FROM users')
    assert.ok(Number(users!.n) >= 1, 'the metadata copy holds the accounts')
  } finally {
    await copy.close()
    await meta.close()
  }
})

async function tenantOf(deviceIntID: number): Promise<string> {
  const row = await t.db.one('SELECT tenant_id FROM devices WHERE id = ?', [deviceIntID])
  return String(row!.tenant_id)
}

test("who may take a backup :: admins of the service's own tenant; other tenants' admins and users get 403", async () => {
  const other = await t.newTenant()
  const foreign = await other.post('/api/v1/admin/backup')
  assert.is(foreign.status, 403, foreign.text)
  assert.is(foreign.body.errorCode, 'PERMISSION_DENIED')
  const user = await t.userWithRole('user')
  const denied = await user.post('/api/v1/admin/backup')
  assert.is(denied.status, 403, denied.text)
  assert.is((await t.anon.post('/api/v1/admin/backup')).status, 401)
})

test('npm run backup beside the running service :: writes both files; a directory that is not empty is refused', () => {
  const dir = join(t.dir, 'cli-copy')
  const env = { ...process.env, DATA_DIR: t.dir, LOG_LEVEL: 'error' }
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/backup.ts', dir], {
    cwd: root,
    env,
    encoding: 'utf8',
  })
  assert.is(run.status, 0, run.stderr)
  assert.match(run.stdout, /backup written to/)
  assert.ok(existsSync(join(dir, 'devicecloud.db')))
  assert.ok(existsSync(join(dir, 'telemetry.db')))
  const full = join(t.dir, 'not-empty')
  mkdirSync(full)
  writeFileSync(join(full, 'x'), 'x')
  const refused = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/backup.ts', full], {
    cwd: root,
    env,
    encoding: 'utf8',
  })
  assert.is(refused.status, 1)
  assert.match(refused.stderr, /not empty/)
})

test.run()
