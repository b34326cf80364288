import { join } from 'node:path'
import * as assert from 'uvu/assert'
import { childJson } from '../../bench/_support/runner.ts'
import type { TestService } from '../_support/service.ts'
import { serviceSuite } from '../_support/suite.ts'
import { mqttUrl } from '../ingest/_mqtt.ts'
import { loadDevices } from './_load-devices.ts'

let t: TestService
const test = serviceSuite('bench: the device state load generator', (svc) => (t = svc))

/** The figures _support/state-load.ts prints that the test reads. */
interface Figures {
  devices: number
  probe: { baseline: { sent: number; acked: number; p99: number }; during: { acked: number } }
  patch: { received: number; allMs: number }
  reconnect: { received: number; allMs: number }
}

test('12 devices in a group :: every one gets both deltas (connected, then after coming back); the probe is acked', async () => {
  const { devices, entries } = await loadDevices(t, 12)
  const g = await t.admin.post('/api/v1/groups', {
    productID: devices[0]!.productID,
    groupName: `bench-${Date.now()}`,
  })
  await t.admin.post(`/api/v1/groups/${g.body.id}/devices`, { ids: devices.map((d) => d.id) })
  const token = t.admin.authorization!.slice('Bearer '.length)
  const r = await childJson<Figures>(
    join(import.meta.dirname, '../../bench/_support/state-load.ts'),
    JSON.stringify({
      mqtt: mqttUrl(t),
      api: t.url,
      token,
      groupIntID: g.body.id,
      devices: entries.map(({ clientId, username, password }) => ({
        clientId,
        username,
        password,
      })),
      probe: { devices: 4, rate: 100, topic: 'telemetry', payload: '{"p0":1.5}' },
      probeSeconds: 1,
    }),
  )
  assert.is(r.devices, 12)
  assert.is(r.patch.received, 12)
  assert.is(r.reconnect.received, 12)
  assert.ok(r.patch.allMs > 0 && r.reconnect.allMs > 0)
  assert.ok(r.probe.baseline.sent >= 80, `sent ${r.probe.baseline.sent}`)
  assert.is(r.probe.baseline.acked, r.probe.baseline.sent, 'every probe message acknowledged')
  assert.ok(r.probe.during.acked > 0)
  for (const d of devices) {
    const doc = (await t.admin.get(`/api/v1/devices/${d.id}/state`)).body
    assert.equal([doc.desired, doc.desiredVersion], [{ phase: 2 }, 2])
  }
})

test.run()
