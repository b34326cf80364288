import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestService, type Client, type TestService } from '../_support/service.ts'
import { mqttBody, newDevice, newProduct } from '../src/routes/devices-helpers.ts'
import { mkPoint, mkStream } from '../src/routes/_product-model.ts'
import type { IngestRepository } from '../../store/types.ts'
import { until } from './_mqtt.ts'

/**
 * HTTP ingest and device commands find the devices an API caller names in the process's device directory (the
 * MQTT path's cache), not with a store read per message: counted by wrapping the service's ingest repository.
 */

let t: TestService
let other: Client & { tenantID: string }
let product: { id: number; productID: string }
let mine: Array<{ id: number; deviceID: string }>
let foreign: { id: number; deviceID: string }
let reads: string[]
let restore: () => void

/** A product with numeric data point `v` on stream `telemetry`, and `n` devices of it, created by `c`. */
async function fleet(c: Client, n: number) {
  const product = await newProduct(c)
  const v = await mkPoint(c, product.id, 'v')
  await mkStream(c, product.productID, [v.id], { topic: 'telemetry' })
  const devices: Array<{ id: number; deviceID: string }> = []
  for (let i = 0; i < n; i++) devices.push(await newDevice(c, mqttBody(product.productID)))
  return { product, devices }
}

/** Records the name of every call of the service's ingest repository (its device and model reads). */
function spyReads(repo: IngestRepository) {
  const calls: string[] = []
  const own = repo as unknown as Record<string, unknown>
  const names = Object.getOwnPropertyNames(Object.getPrototypeOf(repo)).filter(
    (k) => k !== 'constructor' && typeof own[k] === 'function',
  )
  for (const name of names) {
    const original = own[name] as (...a: unknown[]) => unknown
    own[name] = (...a: unknown[]) => {
      calls.push(name)
      return original.apply(repo, a)
    }
  }
  return { calls, restore: () => names.forEach((name) => delete own[name]) }
}

const ingest = (c: Client, messages: unknown[]) =>
  c.post('/api/v1/ingest', { messages }) as Promise<{
    status: number
    body: {
      accepted: number
      rejected: Array<{ index: number; errorCode: string; message: string }>
    }
    text: string
  }>
const message = (deviceID: string, v = 1) => ({ deviceID, topic: 'telemetry', payload: { v } })

const cached = suite('HTTP ingest and commands: device identities from the directory')
cached.before(async () => {
  t = await startTestService({ INGEST_LINGER_MS: '2' })
  other = await t.newTenant()
  ;({ product, devices: mine } = await fleet(t.admin, 50))
  foreign = (await fleet(other, 1)).devices[0]!
  const spy = spyReads(t.svc.deps.meta.ingest)
  reads = spy.calls
  restore = spy.restore
})
cached.after(async () => {
  restore()
  await t.close()
})
cached.before.each(() => {
  reads.length = 0
})

cached(
  'an API caller’s 5,000 messages naming 50 devices :: all stored, one device read, a handful in all',
  async () => {
    // every device seen once (the alert engine reads each device it has not seen, once), then the product's model
    // edited: the directory forgets the product's devices, so the request below starts with none of them cached
    const once = await ingest(
      t.admin,
      mine.map((d) => message(d.deviceID)),
    )
    assert.equal(once.body, { accepted: 50, rejected: [] })
    await until(
      async () => reads.filter((n) => n === 'device').length,
      (n) => n >= 50,
    )
    await mkPoint(t.admin, product.id, 'unused')
    reads.length = 0
    const messages = Array.from({ length: 5000 }, (_, i) => message(mine[i % 50]!.deviceID, i))
    const r = await ingest(t.admin, messages)
    assert.is(r.status, 202, r.text)
    assert.equal(r.body, { accepted: 5000, rejected: [] })
    const devices = reads.filter((n) => n !== 'productModel')
    assert.equal(devices, ['devicesByDeviceIDs'], `${reads.length} reads`)
    assert.ok(reads.length <= 5, reads.join(', '))
    reads.length = 0
    // cached now: the same messages again read no device at all
    assert.equal((await ingest(t.admin, messages.slice(0, 500))).body.accepted, 500)
    assert.equal(
      reads.filter((n) => n !== 'productModel'),
      [],
    )
  },
)

cached(
  'unknown and another tenant’s deviceIDs in a batch, cached or not :: each DATA_NOT_FOUND as before',
  async () => {
    // the other tenant's device is in the directory once its tenant has sent for it
    assert.equal((await ingest(other, [message(foreign.deviceID)])).body, {
      accepted: 1,
      rejected: [],
    })
    const r = await ingest(t.admin, [
      message(mine[0]!.deviceID),
      message(foreign.deviceID),
      message('no-such-device'),
      message(mine[1]!.deviceID),
      message('no-such-device'),
    ])
    assert.is(r.status, 202, r.text)
    assert.equal(r.body, {
      accepted: 2,
      rejected: [
        {
          index: 1,
          errorCode: 'DATA_NOT_FOUND',
          message: `deviceID: no device ${foreign.deviceID}`,
        },
        { index: 2, errorCode: 'DATA_NOT_FOUND', message: 'deviceID: no device no-such-device' },
        { index: 4, errorCode: 'DATA_NOT_FOUND', message: 'deviceID: no device no-such-device' },
      ],
    })
    // and the other tenant, naming a device of the first, is refused the same way
    assert.equal((await ingest(other, [message(mine[0]!.deviceID)])).body, {
      accepted: 0,
      rejected: [
        {
          index: 0,
          errorCode: 'DATA_NOT_FOUND',
          message: `deviceID: no device ${mine[0]!.deviceID}`,
        },
      ],
    })
  },
)

cached(
  'a cached device blocked, unblocked, then deleted :: refused, accepted, then DATA_NOT_FOUND',
  async () => {
    const d = mine[2]!
    assert.is((await ingest(t.admin, [message(d.deviceID)])).body.accepted, 1)
    assert.is((await t.admin.put(`/api/v1/devices/${d.id}`, { blocked: 1 })).status, 200)
    assert.equal((await ingest(t.admin, [message(d.deviceID)])).body, {
      accepted: 0,
      rejected: [
        { index: 0, errorCode: 'PERMISSION_DENIED', message: `deviceID: ${d.deviceID} is blocked` },
      ],
    })
    assert.is((await t.admin.put(`/api/v1/devices/${d.id}`, { blocked: 0 })).status, 200)
    assert.is((await ingest(t.admin, [message(d.deviceID)])).body.accepted, 1)
    assert.is((await t.admin.del(`/api/v1/devices?ids=${d.id}`)).status, 204)
    assert.equal((await ingest(t.admin, [message(d.deviceID)])).body, {
      accepted: 0,
      rejected: [
        { index: 0, errorCode: 'DATA_NOT_FOUND', message: `deviceID: no device ${d.deviceID}` },
      ],
    })
  },
)

cached(
  'a command to a cached device :: no device read; blocked after caching :: 422; another tenant’s :: 404',
  async () => {
    const d = mine[3]!
    assert.is((await ingest(t.admin, [message(d.deviceID)])).body.accepted, 1)
    reads.length = 0
    const sent = await t.admin.post('/api/v1/device_publish', {
      deviceID: d.deviceID,
      payload: 'x',
    })
    assert.is(sent.status, 201, sent.text)
    const byIntID = await t.admin.post('/api/v1/device_publish', {
      deviceIntID: d.id,
      payload: 'x',
    })
    assert.is(byIntID.status, 201, byIntID.text)
    assert.equal(reads, [])
    const theirs = await other.post('/api/v1/device_publish', {
      deviceID: d.deviceID,
      payload: 'x',
    })
    assert.equal([theirs.status, theirs.body.errorCode], [404, 'DATA_NOT_FOUND'])
    assert.is((await t.admin.put(`/api/v1/devices/${d.id}`, { blocked: 1 })).status, 200)
    const blocked = await t.admin.post('/api/v1/device_publish', {
      deviceID: d.deviceID,
      payload: 'x',
    })
    assert.is(blocked.status, 422, blocked.text)
  },
)

cached(
  'a payload object holding 1e999 :: read as the JSON text it is sent on as (null), like before',
  async () => {
    const d = mine[4]!.deviceID
    const body = `{"messages": [
      {"deviceID": "${d}", "topic": "telemetry", "payload": {"v": 1e999}},
      {"deviceID": "${d}", "topic": "telemetry", "payload": "{\\"v\\": null}"},
      {"deviceID": "${d}", "topic": "telemetry",
       "payload": {"data_type": "event", "data": {"v": {"time": 1e999, "value": 7}}}}
    ]}`
    const r = await t.admin.post('/api/v1/ingest', body, { 'content-type': 'application/json' })
    assert.is(r.status, 202, r.text)
    assert.is(r.body.accepted, 1)
    const [first, second] = r.body.rejected
    assert.equal([first.index, second.index], [0, 1])
    assert.equal(
      [first.errorCode, first.message],
      [second.errorCode, second.message],
      'the object with 1e999 is refused as {"v": null} is',
    )
  },
)

cached(
  'devicesByDeviceIDs of 1,200 ids, duplicates, unknown and foreign ones :: the tenant’s devices, each once',
  async () => {
    const ids = [
      ...Array.from({ length: 1100 }, (_, i) => `unknown-${i}`),
      ...mine.map((d) => d.deviceID),
      mine[0]!.deviceID,
      foreign.deviceID,
    ]
    const tenant = String(
      (await t.db.one('SELECT tenant_id FROM devices WHERE id = ?', [mine[0]!.id]))!.tenant_id,
    )
    const mineNow = await t.svc.deps.meta.ingest.devicesByDeviceIDs(tenant, ids)
    // all but the one deleted above
    const left = mine.filter((_, i) => i !== 2).map((d) => d.deviceID)
    assert.equal(mineNow.map((d) => d.deviceID).sort(), left.sort())
    const theirs = await t.svc.deps.meta.ingest.devicesByDeviceIDs(other.tenantID, ids.slice(-3))
    assert.equal(
      theirs.map((d) => [d.deviceID, d.tenantID]),
      [[foreign.deviceID, other.tenantID]],
    )
  },
)

cached.run()
