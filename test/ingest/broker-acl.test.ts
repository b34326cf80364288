import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { MqttClient } from 'mqtt'
import type { Event } from '../../src/schemas/logs.ts'
import type { TestService } from '../_support/service.ts'
import type { Page, Wire } from '../_support/wire.ts'
import { DeviceDirectory } from '../../ingest/identity.ts'
import { uniq } from '../src/routes/devices-helpers.ts'
import {
  closedWithin,
  connectDevice,
  connectedDevice,
  devices,
  end,
  fullTopic,
  oneDevice,
  sleep,
  subscribe,
} from './_mqtt.ts'
import { withService } from './_service.ts'

let t: TestService
const acl = suite('broker: topic access and subscriptions')
withService(acl, (s) => (t = s))

const identity = async (d: { id: number }) =>
  (await new DeviceDirectory(t.svc.deps.meta.ingest, t.svc.deps.bus).byId(d.id))!

/** Publishes QoS 1: 'acked' on PUBACK, 'closed' when the broker closes the connection first (1.5 s at most). */
async function publish(
  c: MqttClient,
  topic: string,
  payload = '{"x":1}',
): Promise<'acked' | 'closed' | 'nothing'> {
  const closed = closedWithin(c, 1500).then((x) => (x ? ('closed' as const) : ('nothing' as const)))
  const acked = c.publishAsync(topic, payload, { qos: 1 }).then(
    () => 'acked' as const,
    () => 'closed' as const,
  )
  return Promise.race([acked, closed])
}

/** The device's events, oldest first. */
const eventsOf = async (d: { id: number }) =>
  (
    await t.admin.get<Page<Wire<typeof Event>>>(
      `/api/v1/devices/${d.id}/events?_sort=id&_order=asc`,
    )
  ).body.items

/**
 * A QoS 1 publish the ACL refuses: acknowledged as usual (MQTT 3.1.1), the connection kept, one more event,
 * rejected with "not authorized" and the topic as given.
 */
async function refused(c: MqttClient, d: { id: number }, topic: string, eventTopic = topic) {
  const before = (await eventsOf(d)).length
  assert.is(await publish(c, topic), 'acked')
  assert.ok(c.connected, 'still connected')
  const events = await eventsOf(d)
  assert.is(events.length, before + 1)
  const e = events.at(-1)
  assert.equal([e?.topic, e?.status, e?.reason], [eventTopic, 0, 'not authorized'])
}

async function policy(topic: string, access: number, allow: number, deviceIntIDs: number[]) {
  const p = await t.admin.post('/api/v1/policies', { name: uniq('pol'), topic, access, allow })
  assert.is(p.status, 201, p.text)
  const b = await t.admin.post(`/api/v1/policies/${p.body.id}/devices`, {
    devicesIntID: deviceIntIDs,
  })
  assert.is(b.status, 201, b.text)
}

acl('publish under its own prefix :: PUBACK', async () => {
  const { d, c } = await connectedDevice(t)
  assert.is(await publish(c, await fullTopic(t, d, 'anything')), 'acked')
  end(c)
})

acl('publish to a relative topic :: PUBACK, taken under its prefix', async () => {
  const { d, c } = await connectedDevice(t)
  assert.is(await publish(c, 'telemetry'), 'acked')
  const [e] = await eventsOf(d)
  assert.equal([e?.topic, e?.reason === 'not authorized'], ['telemetry', false])
  end(c)
})

acl("publish under another device's prefix :: refused, PUBACK, still connected", async () => {
  const {
    devices: [a, b],
  } = await devices(t, 2)
  const c = await connectDevice(t, a)
  await refused(c, a, await fullTopic(t, b, 'telemetry'))
  end(c)
})

acl('publish to $SYS :: refused, PUBACK, still connected', async () => {
  const { d, c } = await connectedDevice(t)
  await refused(c, d, '$SYS/x')
  end(c)
})

acl('policy deny publish secret/# :: secret/x and secret refused, public/x acked', async () => {
  const d = await oneDevice(t)
  await policy('secret/#', 0, 0, [d.id])
  const c = await connectDevice(t, d)
  assert.is(await publish(c, await fullTopic(t, d, 'public/x')), 'acked')
  await refused(c, d, await fullTopic(t, d, 'secret/x'), 'secret/x')
  await refused(c, d, await fullTopic(t, d, 'secret'), 'secret') // # matches the parent level
  await refused(c, d, 'secret/y', 'secret/y')
  end(c)
})

acl('policy allow publish up/+ :: up/a acked, up/a/b and other topics refused', async () => {
  const d = await oneDevice(t)
  await policy('up/+', 2, 1, [d.id])
  const c = await connectDevice(t, d)
  assert.is(await publish(c, await fullTopic(t, d, 'up/a')), 'acked')
  assert.is(await publish(c, 'up/b'), 'acked')
  await refused(c, d, await fullTopic(t, d, 'up/a/b'), 'up/a/b')
  await refused(c, d, await fullTopic(t, d, 'down'), 'down')
  assert.is((await eventsOf(d)).filter((e) => e.reason === 'not authorized').length, 2)
  end(c)
})

acl(
  'subscribe outside its prefix or over a deny :: SUBACK 128, allowed filters granted',
  async () => {
    const {
      devices: [d, other],
    } = await devices(t, 2)
    await policy('private/#', 1, 0, [d.id])
    const c = await connectDevice(t, d)
    const own = await fullTopic(t, d, '')
    const granted = await subscribe(c, [
      `${own}cmd/+`,
      `${own}#`, // could receive private/...
      `${own}private/a`,
      await fullTopic(t, other, '#'),
      '#',
      '/mqtt/#',
      `${own}public/#`,
    ])
    assert.equal(granted, [1, 128, 128, 128, 128, 128, 1])
    assert.ok(c.connected, 'a refused filter does not disconnect')
    end(c)
  },
)

acl(
  'inbox :: the service publishes, the device receives it on inbox (relative, as subscribed) and acknowledges',
  async () => {
    const { d, c } = await connectedDevice(t)
    const got = new Promise<[string, string]>((resolve) =>
      c.on('message', (topic, p) => resolve([topic, p.toString()])),
    )
    await sleep(100)
    const ok = await t.svc.deps.broker.publish(
      await identity(d),
      'inbox',
      Buffer.from('{"data_type":"request"}'),
      { timeoutMs: 2000 },
    )
    assert.is(ok, true)
    assert.equal(await got, ['inbox', '{"data_type":"request"}'])
    end(c)
  },
)

acl('command to a device that does not acknowledge :: false after timeoutMs', async () => {
  const { d, c } = await connectedDevice(t)
  c.handleMessage = (_packet, _cb) => {} // never PUBACK
  const t0 = Date.now()
  const ok = await t.svc.deps.broker.publish(await identity(d), 'inbox', Buffer.from('x'), {
    timeoutMs: 300,
  })
  assert.is(ok, false)
  assert.ok(Date.now() - t0 >= 290)
  end(c)
})

acl('command to an offline device :: false at once; QoS 0 :: true once written', async () => {
  const d = await oneDevice(t)
  assert.is(await t.svc.deps.broker.publish(await identity(d), 'inbox', Buffer.from('x')), false)
  const c = await connectDevice(t, d)
  assert.is(
    await t.svc.deps.broker.publish(await identity(d), 'inbox', Buffer.from('x'), { qos: 0 }),
    true,
  )
  end(c)
})

acl('many commands in flight to one device :: each acknowledged separately', async () => {
  const { d, c } = await connectedDevice(t)
  const seen: string[] = []
  c.on('message', (_t, p) => seen.push(p.toString()))
  const dev = await identity(d)
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      t.svc.deps.broker.publish(dev, `inbox`, Buffer.from(`m${i}`), { timeoutMs: 3000 }),
    ),
  )
  assert.equal(results, Array(20).fill(true))
  assert.is(seen.length, 20)
  end(c)
})

acl(
  'stored subscriptions :: applied on connect (the device gets its own publish back on cmd/+ only, relative)',
  async () => {
    const d = await oneDevice(t)
    const s = await t.admin.post(`/api/v1/devices/${d.id}/subscriptions`, {
      topic: 'cmd/+',
      qos: 1,
    })
    assert.is(s.status, 201, s.text)
    const c = await connectDevice(t, d)
    const got: string[] = []
    c.on('message', (topic) => got.push(topic))
    await sleep(100)
    assert.is(await publish(c, await fullTopic(t, d, 'cmd/reboot')), 'acked')
    assert.is(await publish(c, await fullTopic(t, d, 'other')), 'acked')
    await sleep(300)
    assert.equal(got, ['cmd/reboot'])
    end(c)
  },
)

acl('HTTP still answers :: after the refusals', async () => {
  assert.is((await t.admin.get('/api/v1/devices')).status, 200)
})

acl.run()
