import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestService, type TestService } from '../_support/service.ts'
import { AclChecker, compileRules, publishAllowed, subscribeAllowed } from '../../ingest/acl.ts'
import { DeviceDirectory } from '../../ingest/identity.ts'
import type { DeviceIdentity } from '../../ingest/types.ts'
import { mountpoint } from '../../src/kernel/topics.ts'
import { mqttBody, newDevice, newProduct, uniq } from '../src/routes/devices-helpers.ts'

const rules = suite('acl rules (pure)')

rules('no policy :: the whole own prefix, publish and subscribe', () => {
  const r = compileRules([])
  assert.ok(publishAllowed(r.publish, 'anything/at/all'))
  assert.ok(subscribeAllowed(r.subscribe, '#'))
})

rules('deny publish a/# :: a and a/b refused, b allowed; subscribe unaffected', () => {
  const r = compileRules([{ topic: 'a/#', access: 0, allow: 0 }])
  assert.not.ok(publishAllowed(r.publish, 'a'))
  assert.not.ok(publishAllowed(r.publish, 'a/b'))
  assert.ok(publishAllowed(r.publish, 'b'))
  assert.ok(subscribeAllowed(r.subscribe, 'a/b'))
})

rules('allow publish data/+ :: only one level under data', () => {
  const r = compileRules([{ topic: 'data/+', access: 0, allow: 1 }])
  assert.ok(publishAllowed(r.publish, 'data/x'))
  assert.not.ok(publishAllowed(r.publish, 'data/x/y'))
  assert.not.ok(publishAllowed(r.publish, 'other'))
})

rules('deny wins over allow :: data/secret refused under allow data/+', () => {
  const r = compileRules([
    { topic: 'data/+', access: 2, allow: 1 },
    { topic: 'data/secret', access: 2, allow: 0 },
  ])
  assert.ok(publishAllowed(r.publish, 'data/x'))
  assert.not.ok(publishAllowed(r.publish, 'data/secret'))
  assert.not.ok(subscribeAllowed(r.subscribe, 'data/secret'))
  assert.not.ok(subscribeAllowed(r.subscribe, 'data/+'), 'data/+ could receive data/secret')
  assert.ok(subscribeAllowed(r.subscribe, 'data/x'))
})

rules('allow subscribe cmd/# :: filters inside it only', () => {
  const r = compileRules([{ topic: 'cmd/#', access: 1, allow: 1 }])
  assert.ok(subscribeAllowed(r.subscribe, 'cmd/a/+'))
  assert.ok(subscribeAllowed(r.subscribe, 'cmd'))
  assert.not.ok(subscribeAllowed(r.subscribe, '#'), '# is wider than cmd/#')
  assert.not.ok(subscribeAllowed(r.subscribe, '+/a'))
  assert.ok(publishAllowed(r.publish, 'anything'), 'a subscribe rule does not narrow publishing')
})

let t: TestService
let device: DeviceIdentity
let other: DeviceIdentity
let acl: AclChecker
let dir: DeviceDirectory

const checker = suite('AclChecker over the policies API')
checker.before(async () => {
  t = await startTestService()
  const product = await newProduct(t.admin)
  const a = await newDevice(t.admin, mqttBody(product.productID))
  const b = await newDevice(t.admin, mqttBody(product.productID))
  dir = new DeviceDirectory(t.svc.deps.meta.ingest, t.svc.deps.bus)
  acl = new AclChecker(t.svc.deps.meta.policies, t.svc.deps.bus)
  device = (await dir.byId(a.id))!
  other = (await dir.byId(b.id))!
})
checker.after(async () => t.close())

async function policy(topic: string, access: number, allow: number, devices: number[]) {
  const p = await t.admin.post('/api/v1/policies', { name: uniq('pol'), topic, access, allow })
  assert.is(p.status, 201, p.text)
  const b = await t.admin.post(`/api/v1/policies/${p.body.id}/devices`, { devicesIntID: devices })
  assert.is(b.status, 201, b.text)
  return p.body.id as number
}

checker(
  'own prefix only :: another device, a wildcard above the prefix, $SYS and the bare prefix refused',
  async () => {
    const mp = mountpoint(device)
    assert.ok(await acl.canPublish(device, `${mp}telemetry`))
    assert.ok(await acl.canSubscribe(device, `${mp}#`))
    assert.not.ok(await acl.canPublish(device, `${mountpoint(other)}telemetry`))
    assert.not.ok(await acl.canSubscribe(device, `${mountpoint(other)}#`))
    const [, proto, tenant, product] = mp.split('/')
    for (const f of [
      '#',
      `/${proto}/#`,
      `/${proto}/${tenant}/+/+/#`,
      `/${proto}/${tenant}/${product}/+/telemetry`,
      '$SYS/#',
      '+/#',
    ])
      assert.not.ok(await acl.canSubscribe(device, f), f)
    assert.not.ok(await acl.canPublish(device, mp))
    assert.not.ok(await acl.canPublish(device, mp.slice(0, -1)))
    assert.not.ok(
      await acl.canPublish(device, 'telemetry'),
      'a relative topic is not under the prefix',
    )
  },
)

checker(
  'policy bound through the API :: narrows at once (cache dropped on acl.changed)',
  async () => {
    const mp = mountpoint(device)
    assert.ok(await acl.canPublish(device, `${mp}secret/x`)) // cached: no policy yet
    const id = await policy('secret/#', 0, 0, [device.id])
    assert.not.ok(await acl.canPublish(device, `${mp}secret/x`))
    assert.ok(await acl.canPublish(device, `${mp}public`))
    assert.ok(
      await acl.canPublish(other, `${mountpoint(other)}secret/x`),
      'not bound to the other device',
    )
    const del = await t.admin.del(`/api/v1/policies/${id}/devices?ids=${device.id}`)
    assert.is(del.status, 204)
    assert.ok(await acl.canPublish(device, `${mp}secret/x`), 'unbound: allowed again')
  },
)

checker(
  'the last topic remembered :: a policy change and another identity of the device still decide',
  async () => {
    const fresh = (await dir.byId((await newDevice(t.admin, mqttBody(device.productID))).id))!
    const topic = `${mountpoint(fresh)}memo/x`
    for (let i = 0; i < 3; i++) assert.ok(await acl.canPublish(fresh, topic), `publish ${i}`)
    const id = await policy('memo/#', 0, 0, [fresh.id])
    assert.not.ok(await acl.canPublish(fresh, topic), 'denied once bound')
    assert.not.ok(await acl.canPublish(fresh, topic), 'and again')
    await t.admin.del(`/api/v1/policies/${id}/devices?ids=${fresh.id}`)
    assert.ok(await acl.canPublish(fresh, topic), 'allowed once unbound')
    assert.ok(await acl.canPublish(fresh, topic))
    // the same record as another identity (a reconnect after its deviceID changed): the old prefix is not its own
    const moved = { ...fresh, deviceID: uniq('moved') }
    assert.not.ok(await acl.canPublish(moved, topic), 'the old prefix, another identity')
    assert.ok(await acl.canPublish(moved, `${mountpoint(moved)}memo/x`))
  },
)

checker('policy edited through the API :: cache dropped for the tenant', async () => {
  const mp = mountpoint(other)
  const id = await policy('up/+', 0, 1, [other.id])
  assert.ok(await acl.canPublish(other, `${mp}up/x`))
  assert.not.ok(await acl.canPublish(other, `${mp}down`))
  const r = await t.admin.put(`/api/v1/policies/${id}`, { topic: 'down' })
  assert.is(r.status, 200, r.text)
  assert.ok(await acl.canPublish(other, `${mp}down`))
  assert.not.ok(await acl.canPublish(other, `${mp}up/x`))
})

checker('subscribe rules :: SUBACK-level decisions with + and #', async () => {
  const fresh = (await dir.byId((await newDevice(t.admin, mqttBody(device.productID))).id))!
  const mp = mountpoint(fresh)
  await policy('cmd/#', 1, 1, [fresh.id])
  await policy('cmd/private', 1, 0, [fresh.id])
  assert.ok(await acl.canSubscribe(fresh, `${mp}cmd/a`))
  assert.ok(await acl.canSubscribe(fresh, `${mp}cmd/+/x`))
  assert.not.ok(await acl.canSubscribe(fresh, `${mp}cmd/private`))
  assert.not.ok(await acl.canSubscribe(fresh, `${mp}cmd/#`), 'would receive cmd/private')
  assert.not.ok(await acl.canSubscribe(fresh, `${mp}other`))
})

rules.run()
checker.run()
