/**
 * Firmware rollouts through the real embedded broker with MQTT.js device simulators: a device that downloads over
 * HTTP, one whose download is cut off and resumes with Range, one over MQTT chunks, one that fails the checksum
 * (retried, then failed), one that never answers (timed out, on an injected clock), one offline until mid-rollout;
 * the abort threshold with ota/cancel; pause, resume and cancel; two rollouts over the same devices; softVersion
 * set by `updated`, the device list's softVersion filter and a product's versions with their counts.
 */
import { randomBytes } from 'node:crypto'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { MqttClient } from 'mqtt'
import { startTestService, type TestService } from '../_support/service.ts'
import { eventsOf } from '../src/routes/_ingest.ts'
import { connectDevice, devices, end, sleep, until } from './_mqtt.ts'
import { otaDevice, uploadFirmware, type Behaviour, type OtaDevice } from './_ota.ts'

const test = suite('firmware rollouts over MQTT')
let t: TestService
let offset = 0
const clients: MqttClient[] = []

test.before(async () => {
  t = await startTestService({}, { now: () => Date.now() + offset })
})
test.after(async () => {
  for (const m of clients) end(m)
  await t.close()
})

type Counts = Record<
  'queued' | 'notified' | 'updated' | 'failed' | 'timed_out' | 'canceled',
  number
>
type Rollout = {
  id: number
  rolloutID: string
  status: string
  total: number
  counts: Counts
}

const rollout = async (id: number) =>
  (await t.admin.get<Rollout>(`/api/v1/firmware_rollouts/${id}`)).body
const rows = async (id: number) =>
  (
    await t.admin.get<{ items: Array<{ deviceID: string; status: string; attempt: number }> }>(
      `/api/v1/firmware_rollouts/${id}/devices?_limit=100`,
    )
  ).body.items

/** `n` devices of a new product with a package of it (`bytes`) at 2.0.0; the devices run 1.0.0. */
async function fleet(n: number, bytes = randomBytes(200_000)) {
  const { product, devices: list } = await devices(t, n, { softVersion: '1.0.0' })
  const fw = await uploadFirmware(t, t.admin.authorization!, product.productID, '2.0.0', bytes)
  return { product, list, fw, bytes }
}

async function sims(list: Array<Parameters<typeof otaDevice>[1]>, behaviours: Behaviour[]) {
  const out: OtaDevice[] = []
  for (const [i, d] of list.entries()) {
    const sim = await otaDevice(t, d, behaviours[i] ?? 'http')
    clients.push(sim.client)
    out.push(sim)
  }
  return out
}

const finished = (id: number, timeoutMs = 8000) =>
  until(
    () => rollout(id),
    (r) => !['running', 'paused'].includes(r.status),
    timeoutMs,
  )

test('HTTP, HTTP resumed, MQTT chunks :: every device updated, softVersion set, succeeded', async () => {
  const { product, list, fw } = await fleet(3)
  const devs = await sims(list, ['http', 'http-resume', 'mqtt'])
  const r = await t.admin.post<Rollout>('/api/v1/firmware_rollouts', {
    firmwareID: fw.firmwareID,
    deviceIDs: list.map((d) => d.deviceID),
    ratePerMinute: 600,
  })
  assert.is(r.status, 201, r.text)
  assert.is(r.body.total, 3)
  assert.is(r.body.status, 'running')
  const done = await finished(r.body.id)
  assert.is(done.status, 'succeeded', JSON.stringify(done))
  assert.is(done.counts.updated, 3)
  for (const d of devs) {
    assert.is(d.notifies.length, 1, 'notified once')
    const n = d.notifies[0]!
    assert.equal(
      [n.rolloutID, n.firmwareID, n.version, n.size, n.sha256, n.attempt],
      [r.body.rolloutID, fw.firmwareID, '2.0.0', fw.size, fw.sha256, 1],
    )
    assert.match(n.url, new RegExp(`/api/v1/ingest/firmware/${fw.firmwareID}$`))
    assert.equal(d.reported.at(-1), 'updated')
  }
  assert.equal(
    devs[1]!.httpRequests.map((x) => x.status),
    [200, 206],
    'the cut-off download resumed with Range',
  )
  for (const d of list)
    assert.is((await t.admin.get(`/api/v1/devices/${d.id}`)).body.softVersion, '2.0.0')
  const filtered = await t.admin.get(
    `/api/v1/devices?productID=${product.productID}&softVersion=2.0.0`,
  )
  assert.is(filtered.body.meta.count, 3)
  const versions = await t.admin.get(`/api/v1/products/${product.id}/soft_versions`)
  assert.equal(versions.body, [{ softVersion: '2.0.0', count: 3 }])
  const history = await t.admin.get(`/api/v1/devices/${list[0]!.id}/firmware`)
  assert.equal(
    history.body.items.map((h: { rolloutID: string; status: string }) => [h.rolloutID, h.status]),
    [[r.body.rolloutID, 'updated']],
  )
})

test('a failed checksum :: retried once (attempt 2), then failed; the rollout failed', async () => {
  const { list, fw } = await fleet(1)
  const [d] = await sims(list, ['bad-checksum'])
  const r = await t.admin.post<Rollout>('/api/v1/firmware_rollouts', {
    firmwareID: fw.firmwareID,
    deviceIDs: [list[0]!.deviceID],
    ratePerMinute: 600,
    retries: 1,
  })
  assert.is(r.status, 201, r.text)
  const done = await finished(r.body.id)
  assert.is(done.status, 'failed')
  assert.equal(
    d!.notifies.map((n) => n.attempt),
    [1, 2],
  )
  const [row] = await rows(r.body.id)
  assert.equal([row!.status, row!.attempt], ['failed', 2])
  assert.is((await t.admin.get(`/api/v1/devices/${list[0]!.id}`)).body.softVersion, '1.0.0')
})

test('a device that never answers :: timed out once its timeout passed (injected clock)', async () => {
  const { list, fw } = await fleet(2)
  const devs = await sims(list, ['silent', 'http'])
  const r = await t.admin.post<Rollout>('/api/v1/firmware_rollouts', {
    firmwareID: fw.firmwareID,
    groupID: undefined,
    deviceIDs: list.map((d) => d.deviceID),
    ratePerMinute: 600,
    timeoutMinutes: 5,
  })
  assert.is(r.status, 201, r.text)
  await until(
    () => rollout(r.body.id),
    (x) => x.counts.updated === 1 && x.counts.notified === 1,
    5000,
  )
  assert.is(devs[0]!.notifies.length, 1)
  offset += 6 * 60_000
  const done = await finished(r.body.id, 5000)
  assert.is(done.status, 'partial')
  assert.equal([done.counts.updated, done.counts.timed_out], [1, 1])
})

test('an offline device :: its slot is taken; notified when it subscribes; its timeout counts from then', async () => {
  const { list, fw } = await fleet(2)
  const [online] = await sims([list[0]!], ['http'])
  const r = await t.admin.post<Rollout>('/api/v1/firmware_rollouts', {
    firmwareID: fw.firmwareID,
    deviceIDs: list.map((d) => d.deviceID),
    ratePerMinute: 600,
  })
  await until(
    () => rollout(r.body.id),
    (x) => x.counts.updated === 1 && x.counts.notified === 1,
    5000,
  )
  assert.is(online!.notifies.length, 1)
  const [late] = await sims([list[1]!], ['http'])
  const done = await finished(r.body.id)
  assert.is(done.status, 'succeeded')
  assert.is(late!.notifies.length, 1)
})

test('abort threshold :: 2 of 2 finished failed → aborted, queued canceled, notified ones sent ota/cancel', async () => {
  const { list, fw } = await fleet(5)
  const devs = await sims(list, ['bad-checksum', 'bad-checksum', 'silent', 'silent', 'silent'])
  const r = await t.admin.post<Rollout>('/api/v1/firmware_rollouts', {
    firmwareID: fw.firmwareID,
    deviceIDs: list.map((d) => d.deviceID),
    ratePerMinute: 300,
    abortFailedPercent: 50,
    abortMinFinished: 2,
  })
  assert.is(r.status, 201, r.text)
  const done = await finished(r.body.id)
  assert.is(done.status, 'aborted')
  assert.is(done.counts.failed, 2)
  assert.is(done.counts.canceled, 3)
  const notifiedSilent = devs.slice(2).filter((d) => d.notifies.length > 0)
  await until(
    async () => notifiedSilent.every((d) => d.cancels.length === 1),
    (x) => x,
    3000,
  )
  for (const d of notifiedSilent)
    assert.equal(d.cancels, [{ rolloutID: r.body.rolloutID, attempt: 1 }])
  for (const d of devs.slice(2).filter((x) => x.notifies.length === 0))
    assert.is(d.cancels.length, 0)
})

test('pause, resume, cancel :: the pace stops and goes on; a canceled rollout cannot be resumed', async () => {
  const { list, fw } = await fleet(4)
  await sims(list, ['silent', 'silent', 'silent', 'silent'])
  const r = await t.admin.post<Rollout>('/api/v1/firmware_rollouts', {
    firmwareID: fw.firmwareID,
    deviceIDs: list.map((d) => d.deviceID),
    ratePerMinute: 60,
  })
  await until(
    () => rollout(r.body.id),
    (x) => x.counts.notified >= 1,
    3000,
  )
  const paused = await t.admin.post<Rollout>(`/api/v1/firmware_rollouts/${r.body.id}/pause`, {})
  assert.is(paused.status, 200, paused.text)
  assert.is(paused.body.status, 'paused')
  const before = (await rollout(r.body.id)).counts.notified
  await sleep(2200)
  assert.is((await rollout(r.body.id)).counts.notified, before, 'nothing notified while paused')
  const again = await t.admin.post(`/api/v1/firmware_rollouts/${r.body.id}/pause`, {})
  assert.is(again.status, 422)
  assert.match(again.body.errors.status, /paused/)
  assert.is((await t.admin.post(`/api/v1/firmware_rollouts/${r.body.id}/resume`, {})).status, 200)
  await until(
    () => rollout(r.body.id),
    (x) => x.counts.notified > before,
    3000,
  )
  const canceled = await t.admin.post<Rollout>(`/api/v1/firmware_rollouts/${r.body.id}/cancel`, {})
  assert.is(canceled.body.status, 'canceled')
  assert.is(canceled.body.counts.canceled, 4)
  const resume = await t.admin.post(`/api/v1/firmware_rollouts/${r.body.id}/resume`, {})
  assert.is(resume.status, 422)
  assert.match(resume.body.errors.status, /canceled/)
})

test('two rollouts over the same devices :: the earlier goes first; the later waits, then reaches them', async () => {
  const { product, list, fw } = await fleet(2)
  const fw3 = await uploadFirmware(
    t,
    t.admin.authorization!,
    product.productID,
    '3.0.0',
    randomBytes(5000),
  )
  await sims(list, ['http', 'http'])
  const first = await t.admin.post<Rollout>('/api/v1/firmware_rollouts', {
    firmwareID: fw.firmwareID,
    productWide: true,
    ratePerMinute: 60,
  })
  const second = await t.admin.post<Rollout>('/api/v1/firmware_rollouts', {
    firmwareID: fw3.firmwareID,
    deviceIDs: list.map((d) => d.deviceID),
    ratePerMinute: 600,
  })
  assert.is(second.status, 201, second.text)
  const a = await finished(first.body.id, 10_000)
  const b = await finished(second.body.id, 10_000)
  assert.equal([a.status, b.status], ['succeeded', 'succeeded'])
  for (const d of list)
    assert.is((await t.admin.get(`/api/v1/devices/${d.id}`)).body.softVersion, '3.0.0')
})

test('refusals :: one target, known package, devices of its product, a non-empty target, bounds', async () => {
  const { list, fw } = await fleet(1)
  const other = await fleet(1)
  const post = (body: Record<string, unknown>) => t.admin.post('/api/v1/firmware_rollouts', body)
  const two = await post({
    firmwareID: fw.firmwareID,
    productWide: true,
    deviceIDs: [list[0]!.deviceID],
  })
  assert.is(two.status, 422, two.text)
  assert.ok(two.body.errors.target)
  assert.is((await post({ firmwareID: fw.firmwareID })).status, 422)
  const unknown = await post({ firmwareID: 'nope', productWide: true })
  assert.is(unknown.status, 404)
  assert.ok(unknown.body.errors.firmwareID)
  const foreign = await post({ firmwareID: fw.firmwareID, deviceIDs: [other.list[0]!.deviceID] })
  assert.is(foreign.status, 422, foreign.text)
  assert.ok(foreign.body.errors.deviceIDs)
  const none = await post({ firmwareID: fw.firmwareID, productWide: true, fromVersions: ['0.0.1'] })
  assert.is(none.status, 422, none.text)
  assert.ok(none.body.errors.target)
  for (const bad of [
    { ratePerMinute: 0 },
    { ratePerMinute: 10_001 },
    { rampUp: { startPerMinute: 1, factor: 6, every: 1 } },
    { retries: 4 },
    { timeoutMinutes: 10_081 },
    { abortFailedPercent: 0 },
  ]) {
    const res = await post({ firmwareID: fw.firmwareID, productWide: true, ...bad })
    assert.is(res.status, 422, JSON.stringify(bad))
  }
})

test('reports :: a report for an unknown rollout or out of order is refused and recorded as rejected', async () => {
  const { list } = await fleet(1)
  const m = await connectDevice(t, list[0]!)
  clients.push(m)
  await m.publishAsync('ota/progress', JSON.stringify({ rolloutID: 'nope', status: 'updated' }), {
    qos: 1,
  })
  await m.publishAsync('ota/progress', 'not json', { qos: 1 })
  await m.publishAsync('ota/whatever', '{}', { qos: 1 })
  const events = await until(
    () => eventsOf(t.admin, list[0]!.deviceID),
    (e) => e.length >= 3,
  )
  const reasons = events.map((e) => `${e.topic}: ${e.reason}`)
  assert.ok(
    reasons.some((x) => x.includes('no such rollout')),
    reasons.join('\n'),
  )
  assert.ok(
    reasons.some((x) => x.includes('reserved')),
    reasons.join('\n'),
  )
  assert.is((await t.admin.get(`/api/v1/devices/${list[0]!.id}`)).body.softVersion, '1.0.0')
})

test('two tenants :: a foreign rollout is 404 everywhere; a foreign package cannot be rolled out', async () => {
  const { list, fw } = await fleet(1)
  await sims(list, ['silent'])
  const r = await t.admin.post<Rollout>('/api/v1/firmware_rollouts', {
    firmwareID: fw.firmwareID,
    productWide: true,
  })
  const other = await t.newTenant()
  for (const path of ['', '/devices'])
    assert.is((await other.get(`/api/v1/firmware_rollouts/${r.body.id}${path}`)).status, 404)
  for (const action of ['pause', 'resume', 'cancel'])
    assert.is(
      (await other.post(`/api/v1/firmware_rollouts/${r.body.id}/${action}`, {})).status,
      404,
    )
  assert.is((await other.get('/api/v1/firmware_rollouts')).body.meta.count, 0)
  const theirs = await other.post('/api/v1/firmware_rollouts', {
    firmwareID: fw.firmwareID,
    productWide: true,
  })
  assert.is(theirs.status, 404)
  await t.admin.post(`/api/v1/firmware_rollouts/${r.body.id}/cancel`, {})
})

test.run()
