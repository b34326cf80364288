/**
 * Firmware rollouts with two service processes on one metadata database and one firmware volume, each with its
 * embedded broker: a rollout made on node a, whose engine runs there, notifies devices connected to node b (through
 * the outbox); node a is killed with SIGKILL mid-rollout and node b takes the rollout over once a's claim ran out;
 * every device is notified exactly once and updated, and the rollout succeeds.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { childAdmin, killChild } from '../../_support/child-service.ts'
import { until } from '../../ingest/_mqtt.ts'
import { otaDevice, uploadFirmware, type OtaDevice } from '../../ingest/_ota.ts'
import { mqttBody, newDevice, newProduct } from '../routes/devices-helpers.ts'
import { startChild, type Child } from './_crash.ts'

const test = suite('firmware rollouts on two nodes')

test('kill -9 of the node running a rollout :: the other node goes on; each device notified once, all updated', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rollout-nodes-'))
  const env = { DATABASE_URL: `file:${join(dir, 'meta.db')}`, FIRMWARE_DIR: join(dir, 'firmware') }
  const nodes: Child[] = []
  const sims: OtaDevice[] = []
  try {
    nodes.push(await startChild(join(dir, 'a'), env))
    const a = await childAdmin(nodes[0]!.url)
    const product = await newProduct(a)
    const devices = []
    for (let i = 0; i < 6; i++)
      devices.push(await newDevice(a, mqttBody(product.productID, { softVersion: '1.0' })))
    const fw = await uploadFirmware(
      nodes[0]!,
      a.authorization!,
      product.productID,
      '2.0',
      randomBytes(50_000),
    )
    const made = await a.post<{ id: number; status: string }>('/api/v1/firmware_rollouts', {
      firmwareID: fw.firmwareID,
      productWide: true,
      ratePerMinute: 40,
    })
    assert.is(made.status, 201, made.text)
    // node b starts after node a claimed the rollout; every device connects to b
    nodes.push(await startChild(join(dir, 'b'), env))
    const b = await childAdmin(nodes[1]!.url)
    for (const d of devices)
      sims.push(await otaDevice(`mqtt://127.0.0.1:${nodes[1]!.mqttPort}`, d, 'http'))
    const counts = async () =>
      (
        await b.get<{ counts: Record<string, number>; status: string }>(
          `/api/v1/firmware_rollouts/${made.body.id}`,
        )
      ).body
    await until(counts, (r) => (r.counts.updated ?? 0) >= 2, 8000)
    await killChild(nodes[0]!)
    const done = await until(counts, (r) => r.status !== 'running', 40_000, 250)
    assert.is(done.status, 'succeeded', JSON.stringify(done))
    assert.is(done.counts.updated, 6)
    for (const s of sims) {
      assert.equal(
        s.notifies.map((n) => n.attempt),
        [1],
        'notified exactly once',
      )
      assert.is(s.reported.at(-1), 'updated')
    }
    for (const d of devices)
      assert.is((await b.get(`/api/v1/devices/${d.id}`)).body.softVersion, '2.0')
  } finally {
    for (const s of sims) s.client.end(true)
    for (const n of nodes) await killChild(n)
    rmSync(dir, { recursive: true, force: true })
  }
})

test.run()
