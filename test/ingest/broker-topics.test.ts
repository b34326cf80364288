import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { MqttClient } from 'mqtt'
import type { Event } from '../../src/schemas/logs.ts'
import type { TestService } from '../_support/service.ts'
import type { Page, Wire } from '../_support/wire.ts'
import { DeviceDirectory } from '../../ingest/identity.ts'
import {
  connectDevice,
  connectedDevice,
  devices,
  end,
  fullTopic,
  gotAtLeast,
  oneDevice,
  sleep,
  streamDevice,
  subscribe,
  until,
} from './_mqtt.ts'
import { withService } from './_service.ts'

type Events = Page<Wire<typeof Event>>

let t: TestService
let directory: DeviceDirectory
const identity = async (d: { id: number }) => (await directory.byId(d.id))!

/** Collects the topics (and payloads) a client receives. */
function inboxOf(c: MqttClient) {
  const got: Array<[string, string]> = []
  c.on('message', (topic, p) => got.push([topic, p.toString()]))
  return got
}

/** A new device, connected, and what it receives. */
async function oneConnected() {
  const { d, c } = await connectedDevice(t)
  return { d, c, got: inboxOf(c) }
}

/** Sends a command to the device's `inbox` as the service does; true when acknowledged. */
const command = async (d: { id: number }, body = '{"data_type":"request"}') =>
  t.svc.deps.broker.publish(await identity(d), 'inbox', Buffer.from(body), { timeoutMs: 2000 })

const both = suite('broker: a device names topics relative or in full')
withService(both, (s) => {
  t = s
  directory = new DeviceDirectory(t.svc.deps.meta.ingest, t.svc.deps.bus)
})

both(
  'uplink to the relative and to the full topic of a stream :: both stored under the relative topic',
  async () => {
    const { stream, device: d } = await streamDevice(t)
    const start = Math.floor(Date.now() / 1000) - 60
    const c = await connectDevice(t, d)
    await c.publishAsync(stream.topic, '{"temp":1}', { qos: 1 })
    await c.publishAsync(await fullTopic(t, d, stream.topic), '{"temp":2}', { qos: 1 })
    const events = await t.admin.get<Events>(
      `/api/v1/device_events?deviceID=${d.deviceID}&_sort=id&_order=asc`,
    )
    assert.is(events.status, 200, events.text)
    assert.equal(
      events.body.items.map((e) => [e.topic, e.payload, e.status]),
      [
        [stream.topic, '{"temp":1}', 1],
        [stream.topic, '{"temp":2}', 1],
      ],
    )
    const data = await t.admin.get(
      `/api/v1/original_data?deviceID=${d.deviceID}&dataPointID=temp&startTime=${start}&endTime=${start + 3600}`,
    )
    assert.is(data.status, 200, data.text)
    assert.equal(data.body[0].originalData.value, [1, 2])
    end(c)
  },
)

both(
  'subscribe relative and full, and above the prefix :: SUBACK granted, granted, 128',
  async () => {
    const { d, c } = await connectedDevice(t)
    const filters = [
      'inbox',
      await fullTopic(t, d, 'cmd/+'),
      '#',
      '/mqtt/#',
      '/#',
      '/+/x',
      '$SYS/#',
    ]
    assert.equal(await subscribe(c, filters), [1, 1, 1, 128, 128, 128, 128])
    assert.ok(c.connected)
    end(c)
  },
)

both(
  "no subscription of the device's own :: the command arrives on inbox (the service's, relative)",
  async () => {
    const { d, c, got } = await oneConnected()
    await sleep(100) // the service's subscription is made after the CONNACK
    assert.is(await command(d, '{"n":0}'), true)
    await gotAtLeast(got, 1)
    assert.equal(got, [['inbox', '{"n":0}']])
    end(c)
  },
)

both('subscribed to inbox :: the command arrives on inbox and is acknowledged', async () => {
  const { d, c, got } = await oneConnected()
  assert.equal(await subscribe(c, ['inbox']), [1])
  assert.is(await command(d, '{"n":1}'), true)
  await gotAtLeast(got, 1)
  assert.equal(got, [['inbox', '{"n":1}']])
  end(c)
})

both('subscribed to the full inbox topic :: the command arrives on the full topic', async () => {
  const { d, c, got } = await oneConnected()
  const full = await fullTopic(t, d, 'inbox')
  assert.equal(await subscribe(c, [full]), [1])
  assert.is(await command(d, '{"n":2}'), true)
  await gotAtLeast(got, 1)
  assert.equal(got, [[full, '{"n":2}']])
  end(c)
})

both('subscribed both ways :: one copy in each form', async () => {
  const { d, c, got } = await oneConnected()
  const full = await fullTopic(t, d, 'inbox')
  assert.equal(await subscribe(c, ['inbox', full]), [1, 1])
  assert.is(await command(d, '{"n":3}'), true)
  await gotAtLeast(got, 2)
  await sleep(100)
  assert.equal(got.sort(), [
    [full, '{"n":3}'],
    ['inbox', '{"n":3}'],
  ])
  end(c)
})

both('relative # :: everything under the prefix, in the relative form, once', async () => {
  const { d, c, got } = await oneConnected()
  assert.equal(await subscribe(c, ['#']), [1])
  assert.is(await command(d, '{"n":4}'), true)
  await c.publishAsync('echo/1', 'e1', { qos: 1 })
  await c.publishAsync(await fullTopic(t, d, 'echo/2'), 'e2', { qos: 1 })
  await gotAtLeast(got, 3)
  await sleep(100)
  assert.equal(got, [
    ['inbox', '{"n":4}'],
    ['echo/1', 'e1'],
    ['echo/2', 'e2'],
  ])
  end(c)
})

both(
  'a device publishing to its own subscription :: delivered in the form subscribed',
  async () => {
    const { d, c, got } = await oneConnected()
    const full = await fullTopic(t, d, 'loop/full')
    assert.equal(await subscribe(c, ['loop/rel', full]), [1, 1])
    await c.publishAsync(await fullTopic(t, d, 'loop/rel'), 'a', { qos: 1 })
    await c.publishAsync('loop/full', 'b', { qos: 1 })
    await gotAtLeast(got, 2)
    assert.equal(got, [
      ['loop/rel', 'a'],
      [full, 'b'],
    ])
    end(c)
  },
)

both('QoS 0 subscription to inbox :: the command is delivered at QoS 0', async () => {
  const { d, c } = await connectedDevice(t)
  const qos: number[] = []
  c.on('message', (_topic, _p, packet) => qos.push(packet.qos))
  assert.equal(await subscribe(c, ['inbox'], { qos: 0 }), [0])
  await t.svc.deps.broker.publish(await identity(d), 'inbox', Buffer.from('x'), { timeoutMs: 300 })
  assert.equal(qos, [0])
  end(c)
})

both(
  'unsubscribe one of two forms :: the other stays; unsubscribe both :: no subscription, a command goes in full',
  async () => {
    const { d, c, got } = await oneConnected()
    const full = await fullTopic(t, d, 'inbox')
    await subscribe(c, ['inbox', full])
    await c.unsubscribeAsync(full)
    assert.is(await command(d, '1'), true)
    await gotAtLeast(got, 1)
    await sleep(100)
    assert.equal(got.splice(0), [['inbox', '1']])

    await subscribe(c, [full])
    await c.unsubscribeAsync('inbox')
    assert.is(await command(d, '2'), true)
    await gotAtLeast(got, 1)
    await sleep(100)
    assert.equal(got.splice(0), [[full, '2']])

    // no subscription to inbox is left (the service's went with the device's): commands still reach the device
    await c.unsubscribeAsync(full)
    assert.is(await command(d, '3'), true)
    await gotAtLeast(got, 1)
    assert.equal(got.splice(0), [[full, '3']])
    end(c)
  },
)

both('MQTT 5 device subscribed to inbox :: the command arrives on inbox', async () => {
  const d = await oneDevice(t)
  const c = await connectDevice(t, d, { protocolVersion: 5 })
  const got = inboxOf(c)
  assert.equal(await subscribe(c, ['inbox']), [1])
  assert.is(await command(d, '5'), true)
  await gotAtLeast(got, 1)
  assert.equal(got, [['inbox', '5']])
  end(c)
})

both(
  'resumed session (clean off) :: its subscriptions keep their forms; a clean start forgets them',
  async () => {
    const d = await oneDevice(t)
    const full = await fullTopic(t, d, 'inbox')
    let c = await connectDevice(t, d, { clean: false })
    await subscribe(c, [full, 'other/+'])
    await c.endAsync()
    c = await connectDevice(t, d, { clean: false })
    const got = inboxOf(c)
    await sleep(100) // the service subscribes the device to inbox again: the device's own form stays
    assert.is(await command(d, 'again'), true)
    await c.publishAsync('other/x', 'o', { qos: 1 })
    await gotAtLeast(got, 2)
    assert.equal(got, [
      [full, 'again'],
      ['other/x', 'o'],
    ])
    end(c)
    c = await connectDevice(t, d, { clean: true })
    const fresh = inboxOf(c)
    await sleep(100)
    assert.is(await command(d, 'clean'), true)
    await c.publishAsync('other/x', 'gone', { qos: 1 })
    await gotAtLeast(fresh, 1)
    await sleep(100)
    assert.equal(fresh, [['inbox', 'clean']])
    end(c)
  },
)

both(
  'a command right after the CONNACK, the stored subscriptions slow to read :: it arrives on inbox',
  async () => {
    const subscriptions = t.svc.deps.meta.subscriptions
    const ofDevice = subscriptions.ofDevice.bind(subscriptions)
    // the read of a device's stored subscriptions takes 300 ms (a busy store)
    subscriptions.ofDevice = async (id) => {
      await sleep(300)
      return ofDevice(id)
    }
    try {
      const [a, b] = [await oneDevice(t), await oneDevice(t)]
      const [ca, cb] = [await connectDevice(t, a), await connectDevice(t, b)]
      const [gotA, gotB] = [inboxOf(ca), inboxOf(cb)]
      assert.equal(await Promise.all([command(a, 'a'), command(b, 'b')]), [true, true])
      await gotAtLeast(gotA, 1)
      await gotAtLeast(gotB, 1)
      assert.equal(gotA, [['inbox', 'a']])
      assert.equal(gotB, [['inbox', 'b']])
      end(ca)
      end(cb)
    } finally {
      subscriptions.ofDevice = ofDevice
    }
  },
)

/** The topics of a device's recorded uplink events, oldest first. */
const eventTopics = async (d: { deviceID: string }) => {
  const r = await t.admin.get<Events>(
    `/api/v1/device_events?deviceID=${d.deviceID}&_sort=id&_order=asc`,
  )
  assert.is(r.status, 200, r.text)
  return r.body.items.map((e) => e.topic as string)
}

both(
  "two devices, each subscribed to its own '#' :: each gets back its own uplinks only, a third unsubscribed one none",
  async () => {
    const { devices: ds } = await devices(t, 3)
    const cs = await Promise.all(ds.map((d) => connectDevice(t, d)))
    const got = cs.map(inboxOf)
    assert.equal(await subscribe(cs[0]!, ['#']), [1])
    assert.equal(await subscribe(cs[1]!, ['#']), [1])
    for (const [i, c] of cs.entries()) {
      await c.publishAsync(`up/${i}`, `m${i}`, { qos: 1 })
      await c.publishAsync(await fullTopic(t, ds[i]!, `up/full${i}`), `f${i}`, { qos: 1 })
    }
    await until(
      async () => got[0]!.length + got[1]!.length,
      (n) => n >= 4,
    )
    await sleep(200)
    assert.equal(got[0], [
      ['up/0', 'm0'],
      ['up/full0', 'f0'],
    ])
    assert.equal(got[1], [
      ['up/1', 'm1'],
      ['up/full1', 'f1'],
    ])
    assert.equal(got[2], [])
    // routed or not, every uplink was acknowledged and recorded
    for (const [i, d] of ds.entries())
      assert.equal(await eventTopics(d), [`up/${i}`, `up/full${i}`])
    cs.forEach(end)
  },
)

both(
  'unsubscribed from its own topic :: the next uplink is acknowledged and recorded, and no longer comes back',
  async () => {
    const { d, c, got } = await oneConnected()
    assert.equal(await subscribe(c, ['echo/+']), [1])
    await c.publishAsync('echo/a', '1', { qos: 1 })
    await gotAtLeast(got, 1)
    await c.unsubscribeAsync('echo/+')
    await c.publishAsync('echo/a', '2', { qos: 1 })
    await c.publishAsync('echo/b', '3', { qos: 0 })
    await until(
      async () => (await eventTopics(d)).length,
      (n) => n >= 3,
    )
    await sleep(200)
    assert.equal(got, [['echo/a', '1']])
    assert.equal(await eventTopics(d), ['echo/a', 'echo/a', 'echo/b'])
    end(c)
  },
)

both(
  'a retained uplink nobody subscribes to yet :: kept, and delivered when the device subscribes later',
  async () => {
    const d = await oneDevice(t)
    let c = await connectDevice(t, d)
    await c.publishAsync('state/now', 'on', { qos: 1, retain: true })
    await c.publishAsync('state/gone', 'x', { qos: 1 })
    end(c)
    c = await connectDevice(t, d)
    const got: Array<[string, string, boolean]> = []
    c.on('message', (topic, p, packet) => got.push([topic, p.toString(), packet.retain]))
    assert.equal(await subscribe(c, ['state/+']), [1])
    await gotAtLeast(got, 1)
    await sleep(200)
    assert.equal(got, [['state/now', 'on', true]])
    end(c)
  },
)

both('HTTP still answers :: after all of it', async () => {
  assert.is((await t.admin.get('/api/v1/devices')).status, 200)
})

both.run()
