/**
 * An alert's event survives a crash: the service runs in a child process, two devices open two alerts, and the
 * service is killed with SIGKILL as soon as the alerts are committed. Their alert.raised events were committed with
 * them: after a restart on the same data directory they are in the outbox, each with one delivery to the webhook.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Client } from '../../_support/service.ts'
import { childAdmin, killChild } from '../../_support/child-service.ts'
import { openDb } from '../../../store/libsql/db.ts'
import { sleep } from '../../ingest/_mqtt.ts'
import { alertWorld, ruleBody } from '../routes/_alerts.ts'
import { basic, ingestTelemetry } from '../routes/_ingest.ts'
import { startReceiver } from './_receiver.ts'
import { crashScene, startChild } from './_crash.ts'

const test = suite('alerts: kill -9 right after opening')

test('SIGKILL once the alerts are committed, restart :: each alert.raised in the outbox with its delivery', async () => {
  const rx = await startReceiver()
  try {
    await crashScene('devicecloud-alert-kill9-', async (s) => {
      const a = (s.a = await startChild(s.dir))
      const admin = await childAdmin(a.url)
      const hook = await admin.post('/api/v1/webhooks', {
        url: `${rx.url}/all`,
        events: ['alert.raised', 'alert.cleared', 'alert.acked'],
      })
      assert.is(hook.status, 201, hook.text)
      const w = await alertWorld(admin, 2)
      const rule = await admin.post('/api/v1/alert_rules', ruleBody(w, { condition: 'temp > 80' }))
      assert.is(rule.status, 201, rule.text)
      const db = (s.db = await openDb({ url: `file:${s.dir}/devicecloud.db` }))
      const open = () =>
        db.all('SELECT id FROM current_alerts WHERE rule_id = ? ORDER BY id', [rule.body.id])
      await Promise.all(
        w.devices.map(async (d) => {
          const r = await ingestTelemetry(new Client(a.url, basic(d)), { temp: 95 })
          assert.is(r.status, 202, r.text)
        }),
      )
      for (let i = 0; i < 2000 && (await open()).length < 2; i++) await sleep(2)
      await killChild(a)
      const ids = (await open()).map((r) => Number(r.id))
      assert.is(ids.length, 2, 'both alerts committed before the kill')
      s.b = await startChild(s.dir)
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
    })
  } finally {
    await rx.close()
  }
})

test('a rule disabled but its alerts left open by a stop :: the restart closes them, one alert.cleared each', () =>
  crashScene('devicecloud-alert-orphan-', async (s) => {
    s.a = await startChild(s.dir)
    const admin = await childAdmin(s.a.url)
    const w = await alertWorld(admin, 2)
    const off = await admin.post('/api/v1/alert_rules', ruleBody(w, { condition: 'temp > 80' }))
    const on = await admin.post(
      '/api/v1/alert_rules',
      ruleBody(w, { ruleName: 'still on', condition: 'temp > 50' }),
    )
    assert.is(off.status, 201, off.text)
    assert.is(on.status, 201, on.text)
    const db = (s.db = await openDb({ url: `file:${s.dir}/devicecloud.db` }))
    const r = await ingestTelemetry(new Client(s.a.url, basic(w.devices[0])), { temp: 95 })
    assert.is(r.status, 202, r.text)
    const openOf = (rule: number) =>
      db.all('SELECT id FROM current_alerts WHERE rule_id = ?', [rule])
    for (let i = 0; i < 2000 && (await openOf(on.body.id)).length < 1; i++) await sleep(2)
    for (let i = 0; i < 2000 && (await openOf(off.body.id)).length < 1; i++) await sleep(2)
    await killChild(s.a)
    // the stop fell between the rule's change and the closing of its alerts
    await db.run('UPDATE alert_rules SET enable = 0 WHERE id = ?', [off.body.id])
    const [orphan] = await openOf(off.body.id)
    assert.ok(orphan, 'the alert of the disabled rule is still open')
    s.b = await startChild(s.dir)
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
  }))

test.run()
