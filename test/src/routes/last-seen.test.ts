import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestService, Client, type TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { DeviceListItem } from '../../../src/schemas/devices.ts'
import { until } from '../../ingest/_mqtt.ts'
import { basic, buildWorld, ingestTelemetry, type World } from './_ingest.ts'
import { created, kits } from './_variant.ts'
import { rmSync } from 'node:fs'

/** Wire time of epoch ms in UTC (the services below run with TIMEZONE=UTC). */
const wire = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')

const ingest = (c: Client, payload: unknown = { temp: 20 }) => ingestTelemetry(c, payload)

let t: TestService
let w: World
let clock = Date.now()
/** Every device the service offered to markSeen, one entry per offer. */
const offered: number[] = []

const seen = serviceSuite(
  'lastSeenAt',
  async (svc) => {
    t = svc
    w = await buildWorld(t.admin, t)
    const connections = t.svc.deps.meta.connections
    const markSeen = connections.markSeen.bind(connections)
    connections.markSeen = (rows, olderThanMs) => {
      offered.push(...rows.map((r) => r.deviceIntID))
      return markSeen(rows, olderThanMs)
    }
  },
  { INGEST_LINGER_MS: '2', LAST_SEEN_FLUSH_MS: '50', TIMEZONE: 'UTC' },
  { now: () => clock },
)

const stored = async (id: number) =>
  (await t.db.one('SELECT last_seen_at FROM devices WHERE id = ?', [id]))!.last_seen_at

seen(
  'a device sends several messages :: lastSeenAt set within the flush period, in detail and list; others null',
  async () => {
    const dev = new Client(t.url, basic(w.device))
    const first = clock
    for (let i = 0; i < 5; i++) assert.is((await ingest(dev, { temp: i })).status, 202)
    assert.is(
      await until(
        () => stored(w.device.id),
        (v) => v !== null,
        5_000,
      ),
      first,
    )
    const detail = await t.admin.get(`/api/v1/devices/${w.device.id}`)
    assert.is(detail.body.lastSeenAt, wire(first))
    const list = await t.admin.get<Page<Wire<typeof DeviceListItem>>>(
      `/api/v1/devices?productID=${w.product.productID}`,
    )
    const by = Object.fromEntries(list.body.items.map((d) => [d.id, d.lastSeenAt]))
    assert.equal([by[w.device.id], by[w.other.id]], [wire(first), null])
  },
)

seen(
  'messages within the same minute :: the stored value does not change, the device is written once',
  async () => {
    const dev = new Client(t.url, basic(w.device))
    const first = await stored(w.device.id)
    assert.ok(first !== null)
    const before = offered.filter((id) => id === w.device.id).length
    for (const step of [10_000, 20_000, 29_000]) {
      clock += step
      for (let i = 0; i < 5; i++) assert.is((await ingest(dev)).status, 202)
      await new Promise((r) => setTimeout(r, 150)) // three flush periods
      assert.is(await stored(w.device.id), first)
    }
    // 15 messages over 59 s: not one more row offered for the device (the first one was written already)
    assert.is(offered.filter((id) => id === w.device.id).length, before)
    clock += 2_000 // 61 s after the stored time
    assert.is((await ingest(dev)).status, 202)
    assert.is(
      await until(
        () => stored(w.device.id),
        (v) => v !== first,
        5_000,
      ),
      clock,
    )
    assert.is(offered.filter((id) => id === w.device.id).length, before + 1)
  },
)

seen('a gateway sending for its child :: both lastSeenAt; sortable', async () => {
  const gw = new Client(t.url, basic(w.gateway))
  const r = await gw.call(
    'POST',
    '/api/v1/ingest',
    JSON.stringify({
      topic: 'gw',
      payload: {
        data_type: 'event',
        data: { devices: [{ device_id: w.child.deviceID, data: { temp: 1 } }] },
      },
    }),
    { 'content-type': 'application/json' },
  )
  assert.ok(r.status < 300, r.text)
  await until(
    () => stored(w.child.id),
    (v) => v !== null,
    5_000,
  )
  assert.is(await stored(w.gateway.id), clock)
  const gateway = await t.admin.get(`/api/v1/gateways/${w.gateway.id}`)
  assert.is(gateway.body.lastSeenAt, wire(clock))
  const gateways = await t.admin.get(`/api/v1/gateways?productID=${w.gwProduct.productID}`)
  assert.is(gateways.body.items[0].lastSeenAt, wire(clock))
  const sorted = await t.admin.get<Page<Wire<typeof DeviceListItem>>>(
    `/api/v1/devices?productID=${w.product.productID}&_sort=lastSeenAt&_order=desc`,
  )
  assert.is(sorted.status, 200, sorted.text)
  assert.equal(
    sorted.body.items.map((d) => d.id),
    [w.child.id, w.device.id, w.other.id],
  )
})

seen('a connect :: sets lastSeenAt in the same write as the connection state', async () => {
  const at = Date.now()
  await t.svc.deps.meta.connections.record({
    states: [{ deviceIntID: w.other.id, online: true, ip: null, connectedAt: at, keepAlive: 60 }],
    logs: [],
  })
  assert.is(await stored(w.other.id), at)
})

seen.run()

const variantB = suite('lastSeenAt (Variant B)')

variantB('an uplink :: lastSeenAt in the device detail and list of Variant B', async () => {
  const b = await startTestService({
    ...kits.B.env,
    LAST_SEEN_FLUSH_MS: '20',
    TIMEZONE: 'UTC',
  })
  try {
    const p = await created(b.admin, '/api/v1/products', kits.B.productBody())
    const d = await created(b.admin, '/api/v1/devices', kits.B.deviceBody(p.productID))
    const token = (await b.db.one('SELECT token FROM devices WHERE id = ?', [d.id]))!.token
    await ingest(
      new Client(b.url, basic({ deviceUsername: d.deviceUsername, token: token as string })),
    )
    const at = await until(
      async () =>
        (await b.db.one('SELECT last_seen_at FROM devices WHERE id = ?', [d.id]))!.last_seen_at,
      (v) => v !== null,
      5_000,
    )
    assert.is((await b.admin.get(`/api/v1/devices/${d.id}`)).body.lastSeenAt, wire(Number(at)))
    const list = await b.admin.get(`/api/v1/devices?productID=${p.productID}`)
    assert.is(list.body.items[0].lastSeenAt, wire(Number(at)))
  } finally {
    await b.close()
  }
})

variantB.run()

const shutdown = suite('lastSeenAt at shutdown')

shutdown(
  'a message, then a clean stop before the flush interval :: lastSeenAt written',
  async () => {
    const s = await startTestService({ INGEST_LINGER_MS: '2', LAST_SEEN_FLUSH_MS: '60000' })
    try {
      const world = await buildWorld(s.admin, s)
      assert.is((await ingest(new Client(s.url, basic(world.device)))).status, 202)
      const before = Date.now()
      const row = () => s.db.one('SELECT last_seen_at FROM devices WHERE id = ?', [world.device.id])
      assert.is((await row())!.last_seen_at, null, 'not written before the flush')
      await s.svc.close()
      const at = Number((await row())!.last_seen_at)
      assert.ok(at > before - 60_000 && at <= Date.now(), String(at))
    } finally {
      void s.db.close()
      rmSync(s.dir, { recursive: true, force: true })
    }
  },
)

shutdown.run()
