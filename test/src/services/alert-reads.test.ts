/**
 * The alert engine's reads (src/services/alert-engine.ts `alertReads`) over the real stores of a running service:
 * a batch of devices it has not seen yet is read in a few statements a tenant, not one round trip a device; the
 * devices of a product with nothing to evaluate (no rule, no limit) cost no alert read at all.
 */
import * as assert from 'uvu/assert'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import { alertEngine, alertReads } from '../../../src/services/alert-engine.ts'
import { EventBus, type DomainEvents } from '../../../src/kernel/events.ts'
import { alertWorld, ruleBody, uplink } from '../routes/_alerts.ts'
import { mkPoint, mkProduct, mkStream } from '../routes/_product-model.ts'
import { mqttBody, newDevice, type NewDevice } from '../routes/devices-helpers.ts'
import type { AlertRule } from '../../../src/schemas/alert-rules.ts'
import type { Client } from '../../_support/service.ts'
import type { Wire } from '../../_support/wire.ts'

let t: TestService

const reads = serviceSuite('alert engine reads: a cold batch', (svc) => (t = svc), {
  INGEST_LINGER_MS: '2',
})

/** `target` whose method calls are recorded in `calls` as `name.method` (and their arguments in `args`). */
function counted<T extends object>(
  target: T,
  name: string,
  calls: string[],
  args: Array<[string, unknown[]]> = [],
): T {
  return new Proxy(target, {
    get(o, k) {
      const v = Reflect.get(o, k, o)
      if (typeof v !== 'function') return v
      return (...a: unknown[]) => {
        calls.push(`${name}.${String(k)}`)
        args.push([`${name}.${String(k)}`, a])
        return v.apply(o, a)
      }
    },
  })
}

type Stored = DomainEvents['telemetry.stored'][0]

/** One uplink of each device as the pipeline announces it (temp and hum). */
const stored = (tenantID: string, ...devices: NewDevice[]): Stored => ({
  tenantID,
  deviceIntIDs: devices.map((d) => d.id),
  values: devices.flatMap((d) => [
    { productID: d.productID, deviceID: d.deviceID, dataPointID: 'temp', time: 1, value: 1 },
    { productID: d.productID, deviceID: d.deviceID, dataPointID: 'hum', time: 1, value: 1 },
  ]),
})

/** A product whose points have no limit, and no rule: nothing to evaluate. */
async function plainWorld(c: Client, devices: number) {
  const product = await mkProduct(c)
  const temp = await mkPoint(c, product.id, 'temp')
  const hum = await mkPoint(c, product.id, 'hum')
  await mkStream(c, product.productID, [temp.id, hum.id], { topic: 'telemetry' })
  const list = []
  for (let i = 0; i < devices; i++) list.push(await newDevice(c, mqttBody(product.productID)))
  return { product, devices: list }
}

reads(
  'prefetch :: cold devices of two tenants cost one device read, one model read and one latest read a tenant, then every read is a cache hit; a deviceID under another tenant is not read',
  async () => {
    const a = await alertWorld(t.admin, 12)
    const b = await alertWorld(await t.newTenant(), 3)
    const all = [...a.devices, ...b.devices]
    for (const [i, d] of all.entries()) await uplink(t, d, { temp: i, hum: 50 + i })
    const { meta, telemetry } = t.svc.deps
    const tenantOf = async (d: NewDevice) =>
      (await meta.ingest.deviceByDeviceID(d.deviceID))!.tenantID
    const [ta, tb] = [await tenantOf(a.devices[0]), await tenantOf(b.devices[0])]
    assert.is.not(ta, tb)

    const calls: string[] = []
    const ingest = counted(meta.ingest, 'ingest', calls)
    const metaCounted = new Proxy(meta, {
      get: (o, k) => (k === 'ingest' ? ingest : Reflect.get(o, k, o)),
    })
    const r = alertReads(metaCounted, counted(telemetry, 'telemetry', calls))
    const foreign = b.devices[2]
    await r.prefetch([
      ...a.devices.map((d) => stored(ta, d)),
      stored(tb, b.devices[0], b.devices[1]),
      // tenant a's event naming tenant b's device: read under tenant a, it is not found
      stored(ta, a.devices[0], foreign),
    ])
    assert.equal(calls.sort(), [
      'ingest.devicesByDeviceIDs',
      'ingest.devicesByDeviceIDs',
      // each product's model, for its rules and limits
      'ingest.productModel',
      'ingest.productModel',
      'telemetry.latestOf',
      'telemetry.latestOf',
    ])

    calls.length = 0
    for (const [i, d] of all.entries()) {
      if (d === foreign) continue
      const dev = r.deviceOf(d.deviceID)
      assert.not.instance(dev, Promise, `${d.deviceID} was read`)
      assert.ok(dev && !(dev instanceof Promise), `${d.deviceID} is known`)
      const latest = r.latestOf(dev)
      assert.not.instance(latest, Promise, `${d.deviceID}'s latest values were read`)
      const l = latest as Exclude<typeof latest, Promise<unknown>>
      assert.equal([l.last.get('temp'), l.scope.hum], [i, 50 + i], d.deviceID)
    }
    assert.equal(calls, [])
    assert.instance(r.deviceOf(foreign.deviceID), Promise, 'not read under tenant a')
  },
)

reads(
  'a product with nothing to evaluate :: its devices cost no alert, wait or latest read; once it has a rule, the latest values come from the store',
  async () => {
    const other = await t.newTenant()
    const plainA = await plainWorld(t.admin, 2)
    const plainB = await plainWorld(other, 2)
    const checkedA = await alertWorld(t.admin, 2)
    const checkedB = await alertWorld(other, 2)
    const { meta, telemetry } = t.svc.deps
    const tenantOf = async (d: NewDevice) =>
      (await meta.ingest.deviceByDeviceID(d.deviceID))!.tenantID
    const [ta, tb] = [await tenantOf(plainA.devices[0]!), await tenantOf(plainB.devices[0]!)]

    const calls: string[] = []
    const args: Array<[string, unknown[]]> = []
    const wrapped = new Map<PropertyKey, unknown>([
      ['alerts', counted(meta.alerts, 'alerts', calls, args)],
      ['alertRules', counted(meta.alertRules, 'alertRules', calls, args)],
    ])
    const metaCounted = new Proxy(meta, {
      get: (o, k) => (wrapped.has(k) ? wrapped.get(k) : Reflect.get(o, k, o)),
    })
    const bus = new EventBus()
    const engine = alertEngine({
      meta: metaCounted,
      telemetry: counted(telemetry, 'telemetry', calls, args),
      events: bus,
      log: () => {},
    })
    engine.start()
    try {
      const argsOf = (name: string) => args.filter(([n]) => n === name).map(([, a]) => a[0])
      // one batch of both tenants, the plain products' devices beside those with limits
      bus.emit('telemetry.stored', stored(ta, ...plainA.devices, checkedA.devices[0]))
      bus.emit('telemetry.stored', stored(ta, checkedA.devices[1]))
      bus.emit('telemetry.stored', stored(tb, ...plainB.devices, ...checkedB.devices))
      await engine.idle()
      const evaluated = [...checkedA.devices, ...checkedB.devices].map((d) => d.id).sort()
      assert.equal(argsOf('alerts.openOf').flat().sort(), evaluated)
      assert.equal(argsOf('alertRules.states').flat().sort(), evaluated)
      const latestRead = args
        .filter(([n]) => n === 'telemetry.latestOf')
        .flatMap(([, a]) => a[1] as string[])
        .sort()
      assert.equal(
        latestRead,
        [...checkedA.devices, ...checkedB.devices].map((d) => d.deviceID).sort(),
      )

      // the plain products' devices alone: no alert, wait or latest read
      calls.length = 0
      args.length = 0
      bus.emit('telemetry.stored', stored(ta, ...plainA.devices))
      bus.emit('telemetry.stored', stored(tb, ...plainB.devices))
      await engine.idle()
      assert.equal(
        calls.filter((c) => !c.startsWith('alertRules.enabledOf')),
        [],
        'only the rules may be read again',
      )

      // values stored while plain are what a new rule sees: read from the store, not kept here
      const d = plainA.devices[0]!
      await uplink(t, d, { temp: 10, hum: 90 })
      const rule = await t.admin.post<Wire<typeof AlertRule>>('/api/v1/alert_rules', {
        ...ruleBody({ product: plainA.product }),
        condition: 'temp > 50 and hum > 80',
      })
      assert.is(rule.status, 201, rule.text)
      engine.invalidate(plainA.product.id)
      calls.length = 0
      bus.emit('telemetry.stored', {
        tenantID: ta,
        deviceIntIDs: [d.id],
        values: [
          {
            productID: d.productID,
            deviceID: d.deviceID,
            dataPointID: 'temp',
            time: Date.now(),
            value: 60,
          },
        ],
      })
      await engine.idle()
      assert.ok(calls.includes('telemetry.latestOf'), calls.join(', '))
      const open = (await meta.alerts.openOf([d.id])).filter((a) => a.ruleID === rule.body.id)
      assert.is(open.length, 1, 'the rule saw hum 90 from the store')
      // the other tenant's plain devices raised nothing
      assert.equal(await meta.alerts.openOf(plainB.devices.map((x) => x.id)), [])
    } finally {
      await engine.close()
    }
  },
)

reads.run()
