import * as assert from 'uvu/assert'
import { Client, type TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { DataStream } from '../../../src/schemas/data-streams.ts'
import type { Event } from '../../../src/schemas/logs.ts'
import type { TelemetryValue } from '../../../store/telemetry.ts'
import { mkPoint, mkProduct, mkStream } from './_product-model.ts'
import {
  mqttBody,
  newDevice,
  newGateway,
  type NewDevice,
  type NewGateway,
} from './devices-helpers.ts'

/** Helpers of the ingest suites: a product model with a report stream, a device, a gateway with a child. */

/** The credentials of a device or gateway record. */
export interface Credentials {
  deviceUsername: string
  token: string
}

export const basic = (d: Credentials) =>
  `Basic ${Buffer.from(`${d.deviceUsername}:${d.token}`).toString('base64')}`

export interface World {
  product: Awaited<ReturnType<typeof mkProduct>>
  stream: Wire<typeof DataStream>
  device: NewDevice
  gwProduct: Awaited<ReturnType<typeof mkProduct>>
  gateway: NewGateway
  child: NewDevice
  /** A device of the product that is not the gateway's. */
  other: NewDevice
  tenantID: string
}

/**
 * Product P: temp (numeric, 0..100), hum (unsigned int), name (string), on (boolean), loc (geolocation) on stream
 * `telemetry`; `secret` (numeric) exists but is on no stream. Gateway product GP: `up` on stream `gw` (type 3).
 * Device D and child C (under gateway G) are of P.
 */
export async function buildWorld(c: Client, t: TestService): Promise<World> {
  const product = await mkProduct(c)
  const temp = await mkPoint(c, product.id, 'temp', { upperLimit: 100, lowerLimit: 0 })
  const hum = await mkPoint(c, product.id, 'hum', { pointDataType: 16 })
  const name = await mkPoint(c, product.id, 'name', { pointDataType: 3 })
  const on = await mkPoint(c, product.id, 'on', { pointDataType: 5 })
  const loc = await mkPoint(c, product.id, 'loc', { pointDataType: 6 })
  await mkPoint(c, product.id, 'secret')
  const stream = await mkStream(c, product.productID, [temp.id, hum.id, name.id, on.id, loc.id], {
    topic: 'telemetry',
  })
  const gwProduct = await mkProduct(c)
  const up = await mkPoint(c, gwProduct.id, 'up')
  await mkStream(c, gwProduct.productID, [up.id], { topic: 'gw', streamType: 3 })
  const device = await newDevice(c, mqttBody(product.productID))
  const gateway = await newGateway(c, gwProduct.productID)
  const child = await newDevice(
    c,
    mqttBody(product.productID, { upLinkSystem: 2, gateway: gateway.id }),
  )
  const other = await newDevice(c, mqttBody(product.productID))
  const row = await t.db.one('SELECT tenant_id FROM devices WHERE id = ?', [device.id])
  return {
    product,
    stream,
    device,
    gwProduct,
    gateway,
    child,
    other,
    tenantID: String(row!.tenant_id),
  }
}

/** The events of a device, newest first, as the API lists them. */
export async function eventsOf(c: Client, deviceID: string) {
  const r = await c.get<Page<Wire<typeof Event>>>(
    `/api/v1/device_events?deviceID=${encodeURIComponent(deviceID)}&_limit=100`,
  )
  assert.is(r.status, 200, r.text)
  return r.body.items
}

/** Raw stored values of a device's data points (the telemetry store itself). */
export async function stored(
  t: TestService,
  tenantID: string,
  deviceID: string,
  ids: string[],
): Promise<Record<string, Array<[number, TelemetryValue]>>> {
  const m = await t.svc.deps.telemetry.readRaw({
    tenantID,
    deviceID,
    dataPointIDs: ids,
    start: 0,
    end: Date.now() + 86_400_000,
  })
  return Object.fromEntries(
    [...m].map(([k, s]) => [
      k,
      s.time.map((time, i): [number, TelemetryValue] => [time, s.value[i]!]),
    ]),
  )
}

/** With INGEST_TEST_STORE=influx (and INFLUX_* set), the ingest suites run over that InfluxDB instead of the embedded store. */
export function storeEnv(): Record<string, string> {
  if (process.env.INGEST_TEST_STORE !== 'influx') return {}
  const keys = ['INFLUX_URL', 'INFLUX_TOKEN', 'INFLUX_ORG', 'INFLUX_BUCKET'] as const
  return Object.fromEntries(keys.map((k) => [k, process.env[k] ?? '']))
}

/**
 * A suite over a service of its own (on storeEnv()'s store, with `env`) and its buildWorld: `ctx` holds both while
 * its tests run, and `ready` is handed them once they are.
 */
export function worldSuite(
  name: string,
  env: Record<string, string>,
  ready: (t: TestService, w: World) => unknown = () => {},
) {
  const ctx = {} as { t: TestService; w: World }
  const test = serviceSuite(
    name,
    async (t) => {
      Object.assign(ctx, { t, w: await buildWorld(t.admin, t) })
      await ready(ctx.t, ctx.w)
    },
    { ...storeEnv(), ...env },
  )
  return { test, ctx }
}

/** Posts one uplink to topic `telemetry` over HTTP ingest, as JSON (as `c`, or as `headers` say). */
export const ingestTelemetry = (
  c: Client,
  payload: unknown,
  headers: Record<string, string> = {},
) =>
  c.call('POST', '/api/v1/ingest', JSON.stringify({ topic: 'telemetry', payload }), {
    'content-type': 'application/json',
    ...headers,
  })
