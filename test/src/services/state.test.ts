/**
 * Device state over the real service: the API's document, merge patches and their limits, versions and 409s,
 * stateDelta on the device lists, two tenants, and the `device.state` events that webhooks and the stream carry.
 */
import * as assert from 'uvu/assert'
import type { Client, TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import { TIME } from '../../_support/asserts.ts'
import type { Page } from '../../_support/wire.ts'
import { devices } from '../../ingest/_mqtt.ts'
import type { NewDevice } from '../routes/devices-helpers.ts'
import type { Doc } from './_state.ts'

let t: TestService
let c: Client
let a: NewDevice
let b: NewDevice

const test = serviceSuite('device state: the API', async (ts) => {
  t = ts
  c = ts.admin
  ;[a, b] = (await devices(ts, 2)).devices
})

const state = (id: number) => `/api/v1/devices/${id}/state`

test('a device never written :: an empty document at version 0', async () => {
  const r = await c.get<Doc>(state(a.id))
  assert.is(r.status, 200)
  assert.equal(r.body, {
    deviceID: a.deviceID,
    desired: {},
    reported: {},
    delta: {},
    version: 0,
    desiredVersion: 0,
    reportedVersion: 0,
    desiredAt: null,
    reportedAt: null,
    metadata: { desired: {}, reported: {} },
  })
})

test('PATCH desired :: the whole document; delta, versions, key times; stateDelta 1 on detail and list', async () => {
  const r = await c.patch<Doc>(state(a.id), {
    desired: { setpoint: 21, net: { ssid: 'x' } },
    version: 0,
  })
  assert.is(r.status, 200, r.text)
  assert.equal(r.body.desired, { setpoint: 21, net: { ssid: 'x' } })
  assert.equal(r.body.delta, { setpoint: 21, net: { ssid: 'x' } })
  assert.equal([r.body.version, r.body.desiredVersion, r.body.reportedVersion], [1, 1, 0])
  assert.match(r.body.desiredAt!, TIME)
  assert.equal(Object.keys(r.body.metadata.desired).sort(), ['net', 'setpoint'])
  assert.match(r.body.metadata.desired.setpoint!.updatedAt!, TIME)
  const detail = await c.get(`/api/v1/devices/${a.id}`)
  assert.is(detail.body.stateDelta, 1)
  const list = await c.get<Page<{ deviceID: string; stateDelta: number }>>(
    '/api/v1/devices?stateDelta=1&_limit=100',
  )
  assert.ok(list.body.items.some((d) => d.deviceID === a.deviceID))
  assert.not.ok(
    list.body.items.some((d) => d.deviceID === b.deviceID),
    'b was never patched',
  )
  const none = await c.get<Page<{ deviceID: string }>>('/api/v1/devices?stateDelta=0&_limit=100')
  assert.ok(none.body.items.some((d) => d.deviceID === b.deviceID))
})

test('merge patch :: nested objects merge, null deletes, arrays replace; a no-op moves no version', async () => {
  const r1 = await c.patch<Doc>(state(a.id), { desired: { net: { ch: 6 }, list: [1, 2] } })
  assert.equal(r1.body.desired, { setpoint: 21, net: { ssid: 'x', ch: 6 }, list: [1, 2] })
  const r2 = await c.patch<Doc>(state(a.id), {
    desired: { net: { ssid: null }, list: [3], setpoint: null },
  })
  assert.equal(r2.body.desired, { net: { ch: 6 }, list: [3] })
  assert.not.ok('setpoint' in r2.body.metadata.desired, 'a deleted key leaves the metadata')
  const again = await c.patch<Doc>(state(a.id), { desired: { list: [3] } })
  assert.is(again.body.version, r2.body.version, 'nothing changed: the same version')
})

test('version :: a stale desiredVersion is 409 VERSION_CONFLICT and nothing changes', async () => {
  const before = (await c.get<Doc>(state(a.id))).body
  const r = await c.patch(state(a.id), { desired: { x: 1 }, version: before.desiredVersion - 1 })
  assert.is(r.status, 409)
  assert.is(r.body.errorCode, 'VERSION_CONFLICT')
  assert.ok(r.body.errors.version)
  assert.equal((await c.get<Doc>(state(a.id))).body, before)
})

test('two writers racing on the same version :: one 200, one 409, versions never repeat', async () => {
  const base = (await c.get<Doc>(state(b.id))).body
  const results = await Promise.all(
    [1, 2].map((n) =>
      c.patch<Doc>(state(b.id), { desired: { writer: n }, version: base.desiredVersion }),
    ),
  )
  assert.equal(results.map((r) => r.status).sort(), [200, 409])
  const after = (await c.get<Doc>(state(b.id))).body
  assert.is(after.desiredVersion, base.desiredVersion + 1)
  // many writers without a version: every one applied, each at its own version
  const many = await Promise.all(
    Array.from({ length: 20 }, (_, i) => c.patch<Doc>(state(b.id), { desired: { [`k${i}`]: i } })),
  )
  const versions = many.map((r) => r.body.version)
  assert.is(new Set(versions).size, 20, 'no version repeats')
  assert.is((await c.get<Doc>(state(b.id))).body.version, after.version + 20)
})

test('limits :: 16 KiB exactly is fine, one byte more 413; depth 6 fine, 7 refused; $ keys refused', async () => {
  const fresh = (await devices(t, 1)).devices[0]
  // {"big":"xxx…"} of exactly 16,384 bytes
  const big = 'x'.repeat(16 * 1024 - '{"big":""}'.length)
  const ok = await c.patch<Doc>(state(fresh.id), { desired: { big } })
  assert.is(ok.status, 200, ok.text)
  const over = await c.patch(state(fresh.id), { desired: { big: big + 'y' } })
  assert.is(over.status, 413)
  assert.is(over.body.errorCode, 'PAYLOAD_TOO_LARGE')
  assert.ok(over.body.errors.desired)
  assert.is(
    (await c.get<Doc>(state(fresh.id))).body.desired.big,
    big,
    'the refused patch changed nothing',
  )
  const deep6 = { l2: { l3: { l4: { l5: { l6: 1 } } } } }
  assert.is((await c.patch(state(fresh.id), { desired: { big: null, l1: deep6 } })).status, 200)
  const deep7 = await c.patch(state(fresh.id), {
    desired: { m1: { l2: { l3: { l4: { l5: { l6: { l7: 1 } } } } } } },
  })
  assert.is(deep7.status, 422)
  assert.equal(Object.keys(deep7.body.errors), ['desired.m1.l2.l3.l4.l5.l6'])
  const dollar = await c.patch(state(fresh.id), { desired: { $version: 3, fine: 1 } })
  assert.is(dollar.status, 422)
  assert.equal(Object.keys(dollar.body.errors), ['desired.$version'])
})

test('bad bodies :: not an object, no desired, a bad version: 422 naming the field; not JSON: 400', async () => {
  for (const [body, field] of [
    [{ desired: [1] }, 'desired'],
    [{ desired: 'x' }, 'desired'],
    [{}, 'desired'],
    [{ desired: {}, version: -1 }, 'version'],
    [{ desired: {}, version: 'a' }, 'version'],
  ] as const) {
    const r = await c.patch(state(a.id), body)
    assert.is(r.status, 422, JSON.stringify(body))
    assert.ok(r.body.errors[field], `${JSON.stringify(body)}: ${r.text}`)
  }
  const r = await c.call('PATCH', state(a.id), '{"desired":', {
    'content-type': 'application/json',
  })
  assert.is(r.status, 400)
})

test('tenants and roles :: another tenant reads and writes 404; a viewer reads but may not write', async () => {
  const other = await t.newTenant()
  assert.is((await other.get(state(a.id))).status, 404)
  assert.is((await other.patch(state(a.id), { desired: { x: 1 } })).status, 404)
  assert.is((await other.patch(`/api/v1/groups/1/state`, { desired: { x: 1 } })).status, 404)
  const viewer = await t.userWithRole('viewer')
  assert.is((await viewer.get(state(a.id))).status, 200)
  assert.is((await viewer.patch(state(a.id), { desired: { x: 1 } })).status, 403)
  assert.is((await c.get(state(999999))).status, 404)
})

test('events :: each change stores one device.state event with side, changed keys and delta', async () => {
  const fresh = (await devices(t, 1)).devices[0]
  await c.patch(state(fresh.id), { desired: { a: 1, b: 2 } })
  await c.patch(state(fresh.id), { desired: { b: null } })
  const rows = await t.db.all(
    "SELECT data FROM outbox_events WHERE type = 'device.state' AND device_id = ? ORDER BY id",
    [fresh.deviceID],
  )
  const data = rows.map((r) => JSON.parse(String(r.data)) as Record<string, unknown>)
  assert.equal(
    data.map((d) => [d.side, d.version, d.desiredVersion, d.changed, d.delta]),
    [
      ['desired', 1, 1, ['a', 'b'], { a: 1, b: 2 }],
      ['desired', 2, 2, ['b'], { a: 1 }],
    ],
  )
  assert.is(data[0]!.deviceID, fresh.deviceID)
})

test('data streams :: a topic under state/ is refused (reserved)', async () => {
  const p = await c.post('/api/v1/products', { productName: `p-${Date.now()}`, cloudProtocol: 1 })
  for (const topic of ['state/reported', 'state']) {
    const r = await c.post('/api/v1/data_streams', {
      productID: p.body.productID,
      streamName: `s-${topic.length}`,
      streamType: 1,
      streamDataType: 1,
      topic,
    })
    assert.is(r.status, 422, r.text)
    assert.match(r.body.errors.topic, /reserved/)
  }
})

test.run()
