/**
 * A full disk (src/kernel/disk.ts): with the free space under DATA_DIR below DISK_MIN_FREE_MB (a fake reader the
 * test turns), readiness fails its `disk` check, HTTP ingest answers 507, MQTT 5 gets PUBACK and CONNACK 0x97, an
 * MQTT 3.1.1 PUBLISH waits unacknowledged and is stored once space is back; nothing accepted is lost, in two
 * tenants; the real reader reads a real file system.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { tmpdir } from 'node:os'
import { Client, startTestService, type TestService } from '../_support/service.ts'
import { basic } from '../src/routes/_ingest.ts'
import { mkPoint, mkStream } from '../src/routes/_product-model.ts'
import { mqttBody, newDevice, newProduct, type NewDevice } from '../src/routes/devices-helpers.ts'
import { connect, credentials, end, mqttUrl, sleep } from './_mqtt.ts'
import { resumePoint, statfsSpace } from '../../src/kernel/disk.ts'

const MB = 1024 * 1024
const test = suite('a full disk')
let t: TestService
let free = 10_000 * MB
/** The volume's size: 64 GiB, so the margin is its 64 MB floor (2% of the volume is more). */
let size = 65_536 * MB
const fill = async (bytes: number) => {
  free = bytes
  await sleep(80) // the guard reads every 20 ms
}

interface World {
  c: Client
  productID: string
  tenantID: string
  devices: NewDevice[]
}
const worlds: World[] = []

test.before(async () => {
  t = await startTestService(
    { DISK_MIN_FREE_MB: '100', INGEST_LINGER_MS: '2' },
    { disk: { read: async () => ({ free, size }), intervalMs: 20 } },
  )
  for (const c of [t.admin, await t.newTenant()]) {
    const product = await newProduct(c)
    const x = await mkPoint(c, product.id, 'x')
    await mkStream(c, product.productID, [x.id], { topic: 'telemetry' })
    const devices = await Promise.all(
      [1, 2, 3].map(() => newDevice(c, mqttBody(product.productID))),
    )
    const row = await t.db.one('SELECT tenant_id FROM devices WHERE id = ?', [devices[0]!.id])
    worlds.push({ c, productID: product.productID, tenantID: String(row!.tenant_id), devices })
  }
})
test.after(async () => t?.close())

const body = (value: number, time: number) => ({
  topic: 'telemetry',
  payload: { data_type: 'event', data: { x: { time, value } } },
})
const T = Date.now() - 3_600_000
async function values(w: World, deviceID: string): Promise<number[]> {
  const r = await w.c.get(
    `/api/v1/original_data?deviceID=${deviceID}&dataPointID=x&startTime=${T - 60_000}&endTime=${T + 3_600_000}`,
  )
  assert.is(r.status, 200, r.text)
  return r.body[0].originalData.value
}
const topicOf = (w: World, d: { deviceID: string }) =>
  `/mqtt/${w.tenantID}/${w.productID}/${d.deviceID}/telemetry`

test('readiness :: fails its disk check while full, recovers by itself', async () => {
  assert.is((await t.anon.get('/readyz')).status, 200)
  await fill(50 * MB)
  const r = await t.anon.get('/readyz')
  assert.is(r.status, 503)
  assert.is(r.body.checks.disk.status, 'fail')
  assert.match(r.body.checks.disk.error, /50 MB free .*DISK_MIN_FREE_MB \(100\)/)
  assert.is(r.body.checks.metadata.status, 'ok', 'the stores themselves are fine')
  await fill(120 * MB) // above the limit but within the margin (64 MB): still full
  const margin = await t.anon.get('/readyz')
  assert.is(margin.status, 503)
  assert.match(
    margin.body.checks.disk.error,
    /120 MB free .*above DISK_MIN_FREE_MB \(100\) but not yet its margin: ingest refuses new data until 164 MB are free/,
  )
  await fill(500 * MB)
  const back = await t.anon.get('/readyz')
  assert.is(back.status, 200, back.text)
  assert.is(back.body.checks.disk.status, 'ok')
})

test('HTTP ingest :: 507 INSUFFICIENT_STORAGE in both tenants while full; 202 and stored once space is back', async () => {
  await fill(10 * MB)
  for (const w of worlds) {
    const r = await new Client(t.url, basic(w.devices[0]!)).post('/api/v1/ingest', body(1, T))
    assert.is(r.status, 507, r.text)
    assert.is(r.body.errorCode, 'INSUFFICIENT_STORAGE')
    assert.type(r.body.errors.body, 'string')
  }
  await fill(10_000 * MB)
  for (const w of worlds) {
    const r = await new Client(t.url, basic(w.devices[0]!)).post(
      '/api/v1/ingest',
      body(2, T + 1000),
    )
    assert.is(r.status, 202, r.text)
    assert.equal(await values(w, w.devices[0]!.deviceID), [2], 'only what was accepted is stored')
  }
})

test('MQTT 5 :: PUBACK 0x97 while full (not stored, still connected), stored after; CONNACK 0x97 while full', async () => {
  const w = worlds[0]!
  const d = w.devices[1]!
  const m = await connect(mqttUrl(t), { ...credentials(d), protocolVersion: 5 })
  assert.ok(m.connack, m.error?.message)
  const publish = (value: number, time: number) =>
    new Promise<{ code?: number; error?: string }>((resolve) =>
      m.client.publish(
        topicOf(w, d),
        JSON.stringify(body(value, time).payload),
        { qos: 1 },
        (err, packet) =>
          resolve({
            code:
              (err as { code?: number } | undefined)?.code ??
              (packet as { reasonCode?: number } | undefined)?.reasonCode,
            error: err?.message,
          }),
      ),
    )
  await fill(10 * MB)
  const refused = await publish(7, T)
  assert.is(refused.code, 0x97, JSON.stringify(refused))
  assert.ok(m.client.connected, 'the connection stays')
  const other = worlds[1]!.devices[1]!
  const late = await connect(mqttUrl(t), { ...credentials(other), protocolVersion: 5 })
  assert.is(late.error?.code ?? late.connack?.reasonCode, 0x97, late.error?.message)
  end(late.client)
  const old = await connect(mqttUrl(t), { ...credentials(other), protocolVersion: 4 })
  assert.is(old.error?.code ?? old.connack?.returnCode, 3, old.error?.message)
  end(old.client)
  await fill(10_000 * MB)
  const ok = await publish(8, T + 1000)
  assert.ok(!ok.code, JSON.stringify(ok))
  assert.equal(await values(w, d.deviceID), [8])
  end(m.client)
})

test('MQTT 3.1.1 :: no PUBACK while full; the PUBLISH is stored and acknowledged once space is back', async () => {
  const w = worlds[1]!
  const d = w.devices[2]!
  const m = await connect(mqttUrl(t), { ...credentials(d), protocolVersion: 4 })
  assert.ok(m.connack, m.error?.message)
  await fill(10 * MB)
  let acked = false
  const done = new Promise<void>((resolve) =>
    m.client.publish(topicOf(w, d), JSON.stringify(body(9, T).payload), { qos: 1 }, () => {
      acked = true
      resolve()
    }),
  )
  await sleep(400)
  assert.not.ok(acked, 'no PUBACK while the disk is full')
  assert.equal(await values(w, d.deviceID), [])
  await fill(10_000 * MB)
  await Promise.race([done, sleep(3000)])
  assert.ok(acked, 'acknowledged once space is back')
  assert.equal(await values(w, d.deviceID), [9])
  end(m.client)
})

test('a 64 MiB volume with DISK_MIN_FREE_MB=20 :: full below 20 MB, free again at 21.28 MB (2% of the volume)', async () => {
  const old = { free, size }
  try {
    const small = await startTestService(
      { DISK_MIN_FREE_MB: '20' },
      { disk: { read: async () => ({ free, size }), intervalMs: 20 } },
    )
    try {
      size = 64 * MB
      await fill(10 * MB)
      const r = await small.anon.get('/readyz')
      assert.is(r.status, 503)
      assert.match(
        r.body.checks.disk.error,
        /10 MB free .*below DISK_MIN_FREE_MB \(20\).*until 21 MB are free/,
      )
      await fill(21 * MB) // above the limit, below the margin
      assert.is((await small.anon.get('/readyz')).status, 503)
      await fill(22 * MB) // what a freed 64 MiB volume can give: ingest resumes
      const back = await small.anon.get('/readyz')
      assert.is(back.status, 200, back.text)
    } finally {
      await small.close()
    }
  } finally {
    ;({ free, size } = old)
  }
})

test('resumePoint :: 10% of the limit (at least 64 MB), at most 2% of the volume (at least 1 MB)', () => {
  assert.is(resumePoint(100 * MB, undefined), 164 * MB)
  assert.is(resumePoint(1024 * MB, 1e15), 1024 * MB + 102.4 * MB)
  assert.is(resumePoint(20 * MB, 64 * MB), 20 * MB + 0.02 * 64 * MB)
  assert.is(resumePoint(20 * MB, 10 * MB), 21 * MB, 'at least 1 MB')
})

test('the real reader :: statfs of a real directory gives positive free and size', async () => {
  const space = await statfsSpace(tmpdir())
  assert.ok(
    space !== undefined && space.free > 0 && space.size! >= space.free,
    JSON.stringify(space),
  )
  assert.is(await statfsSpace('/no/such/directory/here'), undefined)
})

test.run()
