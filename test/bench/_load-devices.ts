/** What the MQTT load generators' tests set up: devices of one product, and their load-generator entries. */
import type { TestService } from '../_support/service.ts'
import { fullTopic, mqttUrl } from '../ingest/_mqtt.ts'
import { mkPoint, mkStream } from '../src/routes/_product-model.ts'
import { mqttBody, newDevice, newProduct } from '../src/routes/devices-helpers.ts'

/** Data points a message of the generators' tests carries (p0..p9). */
export const POINTS = 10

/** A product with points p0..p9 on one stream, `n` devices of it, and their load-generator entries. */
export async function loadDevices(t: TestService, n: number) {
  const product = await newProduct(t.admin)
  const ids: number[] = []
  for (let i = 0; i < POINTS; i++) ids.push((await mkPoint(t.admin, product.id, `p${i}`)).id)
  const stream = await mkStream(t.admin, product.productID, ids)
  const devices = []
  for (let i = 0; i < n; i++) devices.push(await newDevice(t.admin, mqttBody(product.productID)))
  const entries = await Promise.all(
    devices.map(async (d) => ({
      clientId: d.deviceID,
      username: d.deviceUsername,
      password: d.token,
      topic: await fullTopic(t, d, stream.topic),
    })),
  )
  return { devices, entries }
}

/** The options of a short run over two new devices, the second with a wrong password. */
export async function wrongPasswordRun(t: TestService) {
  const { entries } = await loadDevices(t, 2)
  return {
    url: mqttUrl(t),
    devices: [entries[0]!, { ...entries[1]!, password: 'wrong' }],
    inflight: 1,
    seconds: 0.2,
    warmup: 0,
    points: POINTS,
  }
}

/** What `run` rejects with (undefined when it resolves). */
export const failureOf = (run: Promise<unknown>) =>
  run.then(
    () => undefined,
    (e: Error) => e,
  )
