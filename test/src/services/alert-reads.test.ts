/**
 * The alert engine's reads (src/services/alert-engine.ts `alertReads`) over the real stores of a running service:
 * a batch of devices it has not seen yet is read in a few statements a tenant, not one round trip a device.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestService, type TestService } from '../../_support/service.ts'
import { alertReads } from '../../../src/services/alert-engine.ts'
import type { DomainEvents } from '../../../src/kernel/events.ts'
import type { MetaStore } from '../../../store/types.ts'
import { alertWorld, uplink } from '../routes/_alerts.ts'

type Stored = DomainEvents['telemetry.stored'][0]

let t: TestService

const reads = suite('alert engine reads: a cold batch')
reads.before(async () => {
  t = await startTestService({ INGEST_LINGER_MS: '2' })
})
reads.after(() => t.close())

/** `target` whose method calls are recorded in `calls` as `name.method`. */
function counted<T extends object>(target: T, name: string, calls: string[]): T {
  return new Proxy(target, {
    get(o, k) {
      const v = Reflect.get(o, k, o)
      if (typeof v !== 'function') return v
      return (...args: unknown[]) => {
        calls.push(`${name}.${String(k)}`)
        return v.apply(o, args)
      }
    },
  })
}

reads(
  'prefetch :: cold devices of two tenants cost one device read and one latest read a tenant, then every read is a cache hit; a deviceID under another tenant is not read',
  async () => {
    const a = await alertWorld(t.admin, 12)
    const b = await alertWorld(await t.newTenant(), 3)
    const all = [...a.devices, ...b.devices]
    for (const [i, d] of all.entries()) await uplink(t, d, { temp: i, hum: 50 + i })
    const { meta, telemetry } = t.svc.deps
    const tenantOf = async (d: any) => (await meta.ingest.deviceByDeviceID(d.deviceID))!.tenantID
    const [ta, tb] = [await tenantOf(a.devices[0]), await tenantOf(b.devices[0])]
    assert.is.not(ta, tb)

    const calls: string[] = []
    const ingest = counted(meta.ingest, 'ingest', calls)
    const metaCounted = new Proxy(meta, {
      get: (o, k) => (k === 'ingest' ? ingest : Reflect.get(o, k, o)),
    }) as MetaStore
    const r = alertReads(metaCounted, counted(telemetry, 'telemetry', calls))
    const stored = (tenantID: string, ...devices: any[]): Stored => ({
      tenantID,
      deviceIntIDs: devices.map((d) => d.id),
      values: devices.flatMap((d) => [
        { productID: d.productID, deviceID: d.deviceID, dataPointID: 'temp', time: 1, value: 1 },
        { productID: d.productID, deviceID: d.deviceID, dataPointID: 'hum', time: 1, value: 1 },
      ]),
    })
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

reads.run()
