/**
 * The outbox is durable: an event whose delivery failed before a stop is delivered after a start on the same
 * DATA_DIR; and two service processes on one metadata database deliver each event once.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startService } from '../../../src/service.ts'
import { testConfig } from '../../_support/service.ts'
import { childAdmin } from '../../_support/child-service.ts'
import { mqttBody, newDevice, newProduct } from '../routes/devices-helpers.ts'
import { until } from '../../ingest/_mqtt.ts'
import { startReceiver } from './_receiver.ts'
import { withTwoNodes } from './_nodes.ts'
import { queueCommand } from './_commands.ts'

const test = suite('webhooks across restarts and nodes')

test('a restart with an undelivered event :: delivered once the service runs again', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'devicecloud-webhooks-'))
  const config = testConfig(dir)
  // a receiver that is down: its port refuses connections
  const probe = await startReceiver()
  const port = Number(new URL(probe.url).port)
  await probe.close()
  let svc = await startService(config)
  try {
    let c = await childAdmin(svc.url)
    const hook = (
      await c.post('/api/v1/webhooks', { url: `${probe.url}/r`, events: ['command.status'] })
    ).body
    const device = await newDevice(c, mqttBody((await newProduct(c)).productID))
    await queueCommand(c, device.deviceID)
    const failed = await until(
      async () => (await c.get(`/api/v1/webhooks/${hook.id}/deliveries`)).body.items[0],
      (d) => d?.attempts === 1,
    )
    assert.equal([failed.status, failed.responseCode], ['pending', null])
    await svc.close()

    const rx = await startReceiver(port)
    try {
      // 11 s later (the first retry is due after 10 s)
      svc = await startService(config, { now: () => Date.now() + 11_000 })
      c = await childAdmin(svc.url)
      await until(
        async () => rx.got.length,
        (n) => n > 0,
        5000,
      )
      const d = await until(
        async () => (await c.get(`/api/v1/webhooks/${hook.id}/deliveries`)).body.items[0],
        (x) => x?.status === 'succeeded',
      )
      assert.equal([d.status, d.attempts, d.responseCode], ['succeeded', 2, 200])
      assert.is(rx.got.length, 1)
      assert.is(rx.got[0]!.headers['x-devicecloud-delivery'], String(d.eventID))
    } finally {
      await rx.close()
    }
  } finally {
    await svc.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('two nodes on one metadata database :: each event delivered once', async () => {
  const rx = await startReceiver()
  rx.delayMs = 200 // a slow receiver: both nodes' loops have deliveries under way at once
  try {
    await withTwoNodes('devicecloud-webhook-nodes-', {}, async ({ a, b }) => {
      const onA = await childAdmin(a.url)
      const onB = await childAdmin(b.url)
      assert.is(
        (await onA.post('/api/v1/webhooks', { url: rx.url, events: ['command.status'] })).status,
        201,
      )
      const device = await newDevice(onA, mqttBody((await newProduct(onA)).productID))
      const N = 30
      await Promise.all(
        Array.from({ length: N }, (_, i) => queueCommand(i % 2 ? onB : onA, device.deviceID)),
      )
      await until(
        async () => rx.got.length,
        (n) => n >= N,
        10_000,
      )
      await new Promise((r) => setTimeout(r, 1500))
      const ids = rx.got.map((g) => g.headers['x-devicecloud-delivery'])
      assert.is(ids.length, N, `${ids.length} deliveries for ${N} events`)
      assert.is(new Set(ids).size, N)
    })
  } finally {
    await rx.close()
  }
})

test.run()
