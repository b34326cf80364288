/**
 * The firmware bench's load generators against the real service: the raw-socket devices of _support/ota-load.ts
 * note every notification of a rollout (one time each) and answer it `updated`; _support/download-load.ts and the Go
 * generator's download mode count the bytes of real downloads and their failures, against the service with device
 * credentials and without.
 */
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import * as assert from 'uvu/assert'
import { childConversation, childJson, commandJson } from '../../bench/_support/runner.ts'
import { goLoadBinary } from '../../bench/_support/go-load.ts'
import type { TestService } from '../_support/service.ts'
import { serviceSuite } from '../_support/suite.ts'
import { mqttUrl, until } from '../ingest/_mqtt.ts'
import { uploadFirmware } from '../ingest/_ota.ts'
import { loadDevices } from './_load-devices.ts'

let t: TestService
const test = serviceSuite('bench: the firmware load generators', (svc) => (t = svc))

test('12 devices :: each notification noted once and answered updated; downloads counted, refusals as errors', async () => {
  const { devices, entries } = await loadDevices(t, 12)
  const fw = await uploadFirmware(
    t,
    t.admin.authorization!,
    devices[0]!.productID,
    '9',
    randomBytes(100_000),
  )
  const load = childConversation(
    join(import.meta.dirname, '../../bench/_support/ota-load.ts'),
    JSON.stringify({
      mqtt: mqttUrl(t),
      devices: entries.map(({ clientId, username, password }) => ({
        clientId,
        username,
        password,
      })),
    }),
  )
  assert.ok((await load.next<{ connectMs: number }>()).connectMs >= 0)
  const r = await t.admin.post('/api/v1/firmware_rollouts', {
    firmwareID: fw.firmwareID,
    productWide: true,
    ratePerMinute: 1200,
  })
  assert.is(r.status, 201, r.text)
  const done = await until(
    async () => (await t.admin.get(`/api/v1/firmware_rollouts/${r.body.id}`)).body,
    (x) => x.status !== 'running',
    8000,
  )
  assert.is(done.status, 'succeeded')
  const { times } = await load.ask<{ times: number[] }>('times')
  await load.close()
  assert.is(times.length, 12)
  assert.ok(
    times.every((x, i) => i === 0 || x >= times[i - 1]!),
    'in order',
  )

  const url = `${t.url}/api/v1/ingest/firmware/${fw.firmwareID}`
  const basic = (e: (typeof entries)[0]) =>
    `Basic ${Buffer.from(`${e.username}:${e.password}`).toString('base64')}`
  const file = join(import.meta.dirname, '../../bench/_support/download-load.ts')
  const ok = await childJson<{ downloads: number; bytes: number; errors: number }>(
    file,
    JSON.stringify({ url, concurrent: 4, seconds: 0, auths: entries.slice(0, 4).map(basic) }),
  )
  assert.equal([ok.downloads, ok.bytes, ok.errors], [4, 400_000, 0])
  const refused = await childJson<{ downloads: number; errors: number }>(
    file,
    JSON.stringify({ url, concurrent: 2, seconds: 0 }),
  )
  assert.equal([refused.downloads, refused.errors], [2, 2])
  // the Go generator's download mode counts the same
  const go = await commandJson<{ downloads: number; bytes: number; errors: number }>(
    goLoadBinary(),
    [
      JSON.stringify({
        download: { url, concurrent: 3, seconds: 0, auths: entries.slice(0, 3).map(basic) },
      }),
    ],
  )
  assert.equal([go.downloads, go.bytes, go.errors], [3, 300_000, 0])
  const goRefused = await commandJson<{ downloads: number; errors: number }>(goLoadBinary(), [
    JSON.stringify({ download: { url, concurrent: 2, seconds: 0 } }),
  ])
  assert.is(goRefused.errors, 2)
})

test.run()
