import { join } from 'node:path'
import * as assert from 'uvu/assert'
import { childConversation } from '../../bench/_support/runner.ts'
import type { TestService } from '../_support/service.ts'
import { serviceSuite } from '../_support/suite.ts'
import { mqttUrl } from '../ingest/_mqtt.ts'
import { loadDevices } from './_load-devices.ts'

let t: TestService
const test = serviceSuite('bench: the device state load generator', (svc) => (t = svc))

/** The figures _support/state-load.ts answers that the test reads. */
interface Figures {
  received: number
  allMs: number
}

test('12 devices in a group :: every one gets both deltas (connected, then after coming back)', async () => {
  const { devices, entries } = await loadDevices(t, 12)
  const g = await t.admin.post('/api/v1/groups', {
    productID: devices[0]!.productID,
    groupName: `bench-${Date.now()}`,
  })
  await t.admin.post(`/api/v1/groups/${g.body.id}/devices`, { ids: devices.map((d) => d.id) })
  const token = t.admin.authorization!.slice('Bearer '.length)
  const load = childConversation(
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
    }),
  )
  const connected = await load.next<{ connectMs: number }>()
  assert.ok(connected.connectMs >= 0)
  const patched = await load.ask<Figures>('patch 1')
  assert.is(patched.received, 12)
  assert.ok(patched.allMs > 0)
  const back = await load.ask<Figures>('away 2')
  assert.is(back.received, 12)
  assert.ok(back.allMs > 0)
  await load.close()
  for (const d of devices) {
    const doc = (await t.admin.get(`/api/v1/devices/${d.id}/state`)).body
    assert.equal([doc.desired, doc.desiredVersion], [{ phase: 2 }, 2])
  }
})

test.run()
