import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestService, type TestService } from '../_support/service.ts'
import { closedWithin, connectDevice, end, fullTopic, sleep, streamDevice } from './_mqtt.ts'
import { withService } from './_service.ts'

/** A product with a numeric data point `temp` on a stream, and one device of it. */
async function setup(t: TestService) {
  const { product, stream, device } = await streamDevice(t)
  const tenantID = String(
    (await t.db.one('SELECT tenant_id FROM devices WHERE id = ?', [device.id]))?.tenant_id,
  )
  return { product, stream, device, tenantID, topic: await fullTopic(t, device, stream.topic) }
}

const readTemps = async (t: TestService, tenantID: string, deviceID: string, start: number) =>
  (
    await t.svc.deps.telemetry.readRaw({
      tenantID,
      deviceID,
      dataPointIDs: ['temp'],
      start,
      end: Date.now() + 60_000,
    })
  ).get('temp')!

let t: TestService
const uplink = suite('broker: uplinks through the pipeline')
withService(uplink, (s) => (t = s))

uplink(
  'QoS 1 uplink :: when the PUBACK arrives the value and the event are already stored',
  async () => {
    const s = await setup(t)
    const c = await connectDevice(t, s.device)
    const t0 = Date.now() - 1000
    for (let i = 0; i < 5; i++) {
      await c.publishAsync(s.topic, JSON.stringify({ temp: 20 + i }), { qos: 1 })
      const series = await readTemps(t, s.tenantID, s.device.deviceID, t0) // no waiting: committed before the PUBACK
      assert.is(series.value.length, i + 1)
      assert.is(series.value[i], 20 + i)
    }
    const events = await t.admin.get(`/api/v1/devices/${s.device.id}/events`)
    assert.is(events.body.items.length, 5)
    assert.is(events.body.items[0].topic, s.stream.topic, 'the event keeps the relative topic')
    end(c)
  },
)

uplink('MQTT 5 QoS 1 uplink :: stored before the PUBACK, as with 3.1.1', async () => {
  const s = await setup(t)
  const c = await connectDevice(t, s.device, { protocolVersion: 5 })
  const t0 = Date.now() - 1000
  const ack = await c.publishAsync(s.topic, JSON.stringify({ temp: 42.5 }), { qos: 1 })
  assert.is((ack as { reasonCode?: number } | undefined)?.reasonCode ?? 0, 0)
  assert.equal((await readTemps(t, s.tenantID, s.device.deviceID, t0)).value, [42.5])
  end(c)
})

uplink(
  'malformed JSON, unknown topic, wrong type :: acknowledged, connection kept, events say why',
  async () => {
    const s = await setup(t)
    const c = await connectDevice(t, s.device)
    await c.publishAsync(s.topic, '{"temp": ', { qos: 1 })
    await c.publishAsync(await fullTopic(t, s.device, 'no/such/stream'), '{"temp":1}', { qos: 1 })
    await c.publishAsync(s.topic, '{"temp":"hot"}', { qos: 1 })
    assert.ok(c.connected)
    const events = (await t.admin.get(`/api/v1/devices/${s.device.id}/events?_sort=id&_order=asc`))
      .body.items
    assert.is(events.length, 3)
    for (const e of events) {
      assert.is(e.status, 0)
      assert.type(e.reason, 'string')
    }
    assert.is((await readTemps(t, s.tenantID, s.device.deviceID, 0)).value.length, 0)
    end(c)
  },
)

uplink(
  "one session, topics in turn :: relative, full, another device's and relative again each placed anew",
  async () => {
    const s = await setup(t)
    const other = await setup(t)
    const c = await connectDevice(t, s.device)
    const t0 = Date.now() - 1000
    const forms = [s.stream.topic, s.topic, s.topic, other.topic, s.stream.topic, s.stream.topic]
    for (const [i, topic] of forms.entries())
      await c.publishAsync(topic, JSON.stringify({ temp: i }), { qos: 1 })
    // the other device's topic is outside this device's mountpoint: refused, nothing stored for either
    assert.equal((await readTemps(t, s.tenantID, s.device.deviceID, t0)).value, [0, 1, 2, 4, 5])
    assert.is((await readTemps(t, other.tenantID, other.device.deviceID, t0)).value.length, 0)
    const events = (await t.admin.get(`/api/v1/devices/${s.device.id}/events?_sort=id&_order=asc`))
      .body.items as Array<{ status: number; topic: string }>
    assert.equal(
      events.map((e) => e.status),
      [1, 1, 1, 0, 1, 1],
    )
    assert.is(events[3]!.topic, other.topic, 'the refused topic as the device gave it')
    for (const i of [0, 1, 2, 4, 5]) assert.is(events[i]!.topic, s.stream.topic)
    end(c)
  },
)

uplink('QoS 0 uplink :: stored too (no PUBACK to wait for)', async () => {
  const s = await setup(t)
  const c = await connectDevice(t, s.device)
  c.publish(s.topic, '{"temp":7}', { qos: 0 })
  let series = await readTemps(t, s.tenantID, s.device.deviceID, 0)
  for (let i = 0; i < 40 && series.value.length === 0; i++) {
    await sleep(50)
    series = await readTemps(t, s.tenantID, s.device.deviceID, 0)
  }
  assert.equal(series.value, [7])
  end(c)
})

const pressure = suite('broker: backpressure')
let small: TestService
withService(pressure, (s) => (small = s), {
  INGEST_QUEUE_POINTS: '20',
  INGEST_BATCH_POINTS: '10',
  INGEST_LINGER_MS: '20',
})

pressure(
  '300 QoS 1 uplinks into a queue of 20 :: all acknowledged and stored, never disconnected',
  async () => {
    const s = await setup(small)
    const c = await connectDevice(small, s.device)
    const base = Date.now() - 10 * 60_000
    let closed = false
    c.on('close', () => (closed = true))
    const N = 300
    const sends = Array.from({ length: N }, (_, i) =>
      c.publishAsync(
        s.topic,
        JSON.stringify({
          data_type: 'event',
          data: { temp: { time: base + i, value: i } },
        }),
        { qos: 1 },
      ),
    )
    await Promise.all(sends)
    assert.not.ok(closed)
    const series = await readTemps(small, s.tenantID, s.device.deviceID, base - 1)
    assert.is(series.value.length, N)
    assert.is(series.value[N - 1], N - 1)
    assert.is((await small.admin.get('/api/v1/products')).status, 200)
    end(c)
  },
)

const failure = suite('broker: store failure')

failure(
  'the telemetry store fails :: the device is disconnected (no PUBACK), the service keeps running',
  async () => {
    const f = await startTestService()
    try {
      const s = await setup(f)
      const c = await connectDevice(f, s.device)
      await c.publishAsync(s.topic, '{"temp":1}', { qos: 1 })
      await f.svc.deps.telemetry.close() // the store is gone: the next commit rejects
      const closed = closedWithin(c, 3000)
      const acked = c.publishAsync(s.topic, '{"temp":2}', { qos: 1 }).then(
        () => true,
        () => false,
      )
      assert.ok(await closed, 'disconnected so that the device resends')
      assert.is(await Promise.race([acked, sleep(300).then(() => false)]), false, 'no PUBACK')
      assert.is((await f.admin.get('/api/v1/products')).status, 200)
      end(c)
    } finally {
      await f.close().catch(() => {})
    }
  },
)

uplink.run()
pressure.run()
failure.run()
