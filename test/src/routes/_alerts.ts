import * as assert from 'uvu/assert'
import { Client, type TestService } from '../../_support/service.ts'
import type { Wire } from '../../_support/wire.ts'
import type { DataPoint } from '../../../src/schemas/data-points.ts'
import { mkPoint, mkProduct, mkStream } from './_product-model.ts'
import { mqttBody, newDevice, type NewDevice } from './devices-helpers.ts'
import { basic, ingestTelemetry, type Credentials } from './_ingest.ts'
import type { AlertEvent } from '../../../src/kernel/events.ts'

/** Helpers of the alert engine suites: a product with temp (0..100), hum and a fault point, devices, a clock. */

/** `N` records: a tuple when N is a literal, so that a suite's `devices[i]` below N is a record, not undefined. */
type Records<T, N extends number, R extends T[] = []> = number extends N
  ? T[]
  : R['length'] extends N
    ? R
    : Records<T, N, [...R, T]>

/** The devices of `alertWorld(c, N)`. */
export type Devices<N extends number> = Records<NewDevice, N>

export interface AlertWorld<D extends NewDevice[] = NewDevice[]> {
  product: Awaited<ReturnType<typeof mkProduct>>
  temp: Wire<typeof DataPoint>
  err: Wire<typeof DataPoint>
  devices: D
}

/** Product: temp (numeric, limits 0..100), hum (numeric), err (fault, faultValue E1) on stream `telemetry`. */
export async function alertWorld<N extends number = 6>(
  c: Client,
  devices?: N,
): Promise<AlertWorld<Devices<N>>> {
  const product = await mkProduct(c)
  const temp = await mkPoint(c, product.id, 'temp', { upperLimit: 100, lowerLimit: 0 })
  const hum = await mkPoint(c, product.id, 'hum')
  const err = await mkPoint(c, product.id, 'err', { pointDataType: 4, faultValue: 'E1' })
  await mkStream(c, product.productID, [temp.id, hum.id, err.id], { topic: 'telemetry' })
  const list: NewDevice[] = []
  for (let i = 0; i < (devices ?? 6); i++)
    list.push(await newDevice(c, mqttBody(product.productID)))
  // the loop made exactly N
  return { product, temp, err, devices: list as Devices<N> }
}

/** A clock the tests move forward. */
export const clock = { offset: 0, now: () => Date.now() + clock.offset }

/** Sends one uplink over HTTP ingest and waits until the alert engine evaluated it. */
export async function uplink(t: TestService, device: Credentials, payload: object) {
  const r = await ingestTelemetry(new Client(t.url, basic(device)), payload)
  assert.is(r.status, 202, r.text)
  await t.svc.deps.services.alertEngine.idle()
  return r
}

/** Every alert event of the service, in order. */
export function recordEvents(t: TestService) {
  const seen: Array<{ name: string; e: AlertEvent }> = []
  for (const name of ['alert.raised', 'alert.cleared', 'alert.acked'] as const)
    t.svc.deps.bus.on(name, (e) => seen.push({ name, e }))
  return seen
}

/** A rule body for the world's product. */
export const ruleBody = (w: Pick<AlertWorld, 'product'>, extra: object = {}) => ({
  ruleName: `rule-${Math.random().toString(36).slice(2, 8)}`,
  productID: w.product.productID,
  condition: 'temp > 80',
  alertSeverity: 1,
  ...extra,
})
