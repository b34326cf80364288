/**
 * An alert's event survives a crash: the service runs in a child process, two devices open two alerts, and the
 * service is killed with SIGKILL as soon as the alerts are committed. Their alert.raised events were committed with
 * them: after a restart on the same data directory they are in the outbox, each with one delivery to the webhook.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ADMIN_EMAIL, ADMIN_PASSWORD, Client } from '../../_support/service.ts'
import { startChildService, type ChildService } from '../../_support/child-service.ts'
import { openDb, type Db } from '../../../store/libsql/db.ts'
import { sleep } from '../../ingest/_mqtt.ts'
import { alertWorld, ruleBody } from '../routes/_alerts.ts'
import { basic } from '../routes/_ingest.ts'
import { startReceiver, type Receiver } from './_receiver.ts'

const test = suite('alerts: kill -9 right after opening')

type Child = ChildService<{ url: string; mqttPort: number }>
const startChild = (dir: string) =>
  startChildService('test/ingest/_service-child.ts', { DATA_DIR: dir })

async function adminOf(url: string) {
  const login = await new Client(url).post('/api/v1/login', {
    email: ADMIN_EMAIL,
    password: ADMIN_PASSWORD,
  })
  assert.is(login.status, 201, login.text)
  return new Client(url, `Bearer ${login.body.token}`)
}

const stop = async (c: Child | undefined) => {
  if (!c || c.child.exitCode !== null || c.child.signalCode !== null) return
  const exited = new Promise((ok) => c.child.once('exit', ok))
  c.child.kill('SIGKILL')
  await exited
}

test('SIGKILL once the alerts are committed, restart :: each alert.raised in the outbox with its delivery', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'devicecloud-alert-kill9-'))
  let a: Child | undefined
  let b: Child | undefined
  let db: Db | undefined
  let rx: Receiver | undefined
  try {
    rx = await startReceiver()
    a = await startChild(dir)
    const admin = await adminOf(a.url)
    const hook = await admin.post('/api/v1/webhooks', {
      url: `${rx.url}/all`,
      events: ['alert.raised', 'alert.cleared', 'alert.acked'],
    })
    assert.is(hook.status, 201, hook.text)
    const w = await alertWorld(admin, 2)
    const rule = await admin.post('/api/v1/alert_rules', ruleBody(w, { condition: 'temp > 80' }))
    assert.is(rule.status, 201, rule.text)
    db = await openDb({ url: `file:${dir}/devicecloud.db` })
    const open = () =>
      db!.all('SELECT id FROM current_alerts WHERE rule_id = ? ORDER BY id', [rule.body.id])
    await Promise.all(
      w.devices.map(async (d) => {
        const r = await new Client(a!.url, basic(d)).call(
          'POST',
          '/api/v1/ingest',
          JSON.stringify({ topic: 'telemetry', payload: { temp: 95 } }),
          { 'content-type': 'application/json' },
        )
        assert.is(r.status, 202, r.text)
      }),
    )
    for (let i = 0; i < 2000 && (await open()).length < 2; i++) await sleep(2)
    await stop(a)
    const ids = (await open()).map((r) => Number(r.id))
    assert.is(ids.length, 2, 'both alerts committed before the kill')
    b = await startChild(dir)
    const outbox = await db.all(
      "SELECT data FROM outbox_events WHERE type = 'alert.raised' ORDER BY id",
    )
    assert.equal(
      outbox.map((r) => JSON.parse(String(r.data)).alertID),
      ids,
    )
    // each with its pending delivery to the webhook (sent once the killed node's claim has run out)
    const deliveries = await db.all(
      `SELECT d.webhook_id AS hook, json_extract(e.data, '$.alertID') AS alertID
       FROM webhook_deliveries d JOIN outbox_events e ON e.id = d.event_id ORDER BY d.id`,
    )
    assert.equal(
      deliveries.map((r) => [Number(r.hook), Number(r.alertID)]),
      ids.map((id) => [hook.body.id, id]),
    )
  } finally {
    await stop(a)
    await stop(b)
    void db?.close()
    await rx?.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('a rule disabled but its alerts left open by a stop :: the restart closes them, one alert.cleared each', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'devicecloud-alert-orphan-'))
  let a: Child | undefined
  let b: Child | undefined
  let db: Db | undefined
  try {
    a = await startChild(dir)
    const admin = await adminOf(a.url)
    const w = await alertWorld(admin, 2)
    const off = await admin.post('/api/v1/alert_rules', ruleBody(w, { condition: 'temp > 80' }))
    const on = await admin.post(
      '/api/v1/alert_rules',
      ruleBody(w, { ruleName: 'still on', condition: 'temp > 50' }),
    )
    assert.is(off.status, 201, off.text)
    assert.is(on.status, 201, on.text)
    db = await openDb({ url: `file:${dir}/devicecloud.db` })
    const r = await new Client(a.url, basic(w.devices[0])).call(
      'POST',
      '/api/v1/ingest',
      JSON.stringify({ topic: 'telemetry', payload: { temp: 95 } }),
      { 'content-type': 'application/json' },
    )
    assert.is(r.status, 202, r.text)
    const openOf = (rule: number) =>
      db!.all('SELECT id FROM current_alerts WHERE rule_id = ?', [rule])
    for (let i = 0; i < 2000 && (await openOf(on.body.id)).length < 1; i++) await sleep(2)
    for (let i = 0; i < 2000 && (await openOf(off.body.id)).length < 1; i++) await sleep(2)
    await stop(a)
    // the stop fell between the rule's change and the closing of its alerts
    await db.run('UPDATE alert_rules SET enable = 0 WHERE id = ?', [off.body.id])
    const [orphan] = await openOf(off.body.id)
    assert.ok(orphan, 'the alert of the disabled rule is still open')
    b = await startChild(dir)
    for (let i = 0; i < 2000 && (await openOf(off.body.id)).length; i++) await sleep(5)
    assert.is((await openOf(off.body.id)).length, 0, 'closed at start-up')
    assert.is((await openOf(on.body.id)).length, 1, 'the enabled rule keeps its alert')
    const cleared = await db.all(
      "SELECT data FROM outbox_events WHERE type = 'alert.cleared' ORDER BY id",
    )
    assert.equal(
      cleared.map((x) => [JSON.parse(String(x.data)).alertID, JSON.parse(String(x.data)).reason]),
      [[Number(orphan.id), 'rule']],
    )
    const history = await db.one('SELECT end_time FROM history_alerts WHERE id = ?', [
      Number(orphan.id),
    ])
    assert.ok(history && Number(history.end_time) > 0)
  } finally {
    await stop(a)
    await stop(b)
    void db?.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test.run()
