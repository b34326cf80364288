import * as assert from 'uvu/assert'
import { Client } from '../../_support/service.ts'
import type { ErrorBody, Wire } from '../../_support/wire.ts'
import type { DevicesLatest } from '../../../src/schemas/ingest.ts'
import { basic, ingestTelemetry, worldSuite } from './_ingest.ts'
import { mqttBody, newDevice } from './devices-helpers.ts'

const { test: bulk, ctx } = worldSuite('GET /api/v1/devices_latest', {
  INGEST_LINGER_MS: '2',
  TIMEZONE: 'UTC',
})

/** Asks for the latest values of `ids`; `T` is the body of a refusal where the test expects one. */
const ask = <T = Wire<typeof DevicesLatest>>(c: Client, ids: string[]) =>
  c.get<T>(`/api/v1/devices_latest?deviceIDs=${ids.map(encodeURIComponent).join(',')}`)

/** A deviceID of 36 characters, as generated ones are. */
const longID = (i: number) => `dev-${String(i).padStart(32, '0')}`

bulk(
  'three devices with values, one without, an unknown and a foreign one :: each as /devices/{id}/latest, the rest in notFound',
  async () => {
    const other = await ctx.t.newTenant()
    const foreignProduct = (
      await other.post('/api/v1/products', { productName: 'x', cloudProtocol: 1 })
    ).body
    const foreign = await newDevice(other, mqttBody(foreignProduct.productID))
    const at = 1700000000
    const ev = (v: Record<string, unknown>) => ({
      data_type: 'event',
      data: Object.fromEntries(Object.entries(v).map(([k, x]) => [k, { time: at, value: x }])),
    })
    assert.is(
      (
        await ingestTelemetry(
          new Client(ctx.t.url, basic(ctx.w.device)),
          ev({ temp: 21, name: 'a' }),
        )
      ).status,
      202,
    )
    assert.is(
      (await ingestTelemetry(new Client(ctx.t.url, basic(ctx.w.other)), ev({ temp: 22, on: 1 })))
        .status,
      202,
    )
    await ctx.t.svc.deps.telemetry.write([
      {
        tenantID: ctx.w.tenantID,
        productID: ctx.w.product.productID,
        deviceID: ctx.w.child.deviceID,
        dataPointID: 'hum',
        time: at * 1000,
        value: 7,
      },
    ])
    const empty = await newDevice(ctx.t.admin, mqttBody(ctx.w.product.productID))
    const ids = [ctx.w.device, ctx.w.other, ctx.w.child, empty].map((d) => d.deviceID)
    const r = await ask(ctx.t.admin, [
      ...ids,
      'no-such-device',
      foreign.deviceID,
      ctx.w.device.deviceID,
    ])
    assert.is(r.status, 200, r.text)
    assert.equal(Object.keys(r.body), ['devices', 'notFound'])
    assert.equal(Object.keys(r.body.devices).sort(), [...ids].sort())
    assert.equal(r.body.notFound, ['no-such-device', foreign.deviceID])
    for (const d of [ctx.w.device, ctx.w.other, ctx.w.child, empty]) {
      const one = await ctx.t.admin.get(`/api/v1/devices/${d.id}/latest`)
      assert.equal(r.body.devices[d.deviceID], one.body, d.deviceID)
    }
    const values = (id: string) =>
      Object.fromEntries(
        r.body.devices[id]!.filter((x) => x.value !== null).map((x) => [
          x.dataPointID,
          [x.time, x.value],
        ]),
      )
    const time = '2023-11-14 22:13:20'
    assert.equal(values(ctx.w.device.deviceID), { temp: [time, 21], name: [time, 'a'] })
    assert.equal(values(ctx.w.other.deviceID), { temp: [time, 22], on: [time, true] })
    assert.equal(values(ctx.w.child.deviceID), { hum: [time, 7] })
    assert.equal(values(empty.deviceID), {})
    assert.is(r.body.devices[empty.deviceID]!.length, 6)
    // the other tenant asking for this tenant's devices gets none of them
    const theirs = await ask(other, [...ids, foreign.deviceID])
    assert.equal(theirs.body.notFound, ids)
    assert.equal(Object.keys(theirs.body.devices), [foreign.deviceID])
    assert.equal(theirs.body.devices[foreign.deviceID], [])
  },
)

bulk('devices the cache does not hold :: one telemetry read for all of them', async () => {
  const devices = await Promise.all(
    [1, 2, 3].map(() => newDevice(ctx.t.admin, mqttBody(ctx.w.product.productID))),
  )
  await ctx.t.svc.deps.telemetry.write(
    devices.map((d, i) => ({
      tenantID: ctx.w.tenantID,
      productID: ctx.w.product.productID,
      deviceID: d.deviceID,
      dataPointID: 'temp',
      time: 1700000000000 + i,
      value: i,
    })),
  )
  const telemetry = ctx.t.svc.deps.telemetry
  const calls: string[] = []
  const latest = telemetry.latest.bind(telemetry)
  const latestOf = telemetry.latestOf.bind(telemetry)
  telemetry.latest = (tenantID, deviceID) => (
    calls.push(`latest ${deviceID}`),
    latest(tenantID, deviceID)
  )
  telemetry.latestOf = (tenantID, ids) => (
    calls.push(`latestOf ${ids.length}`),
    latestOf(tenantID, ids)
  )
  try {
    const r = await ask(
      ctx.t.admin,
      devices.map((d) => d.deviceID),
    )
    assert.is(r.status, 200, r.text)
    assert.equal(calls, ['latestOf 3'])
    assert.equal(
      devices.map((d) => r.body.devices[d.deviceID]!.find((x) => x.dataPointID === 'temp')!.value),
      [0, 1, 2],
    )
  } finally {
    telemetry.latest = latest
    telemetry.latestOf = latestOf
  }
})

bulk(
  '1,000 deviceIDs of 36 characters :: 200; 1,001 :: 400 PARAMETER_INVALID errors.deviceIDs',
  async () => {
    const ids = Array.from({ length: 1001 }, (_, i) => longID(i))
    const ok = await ask(ctx.t.admin, [...ids.slice(0, 999), ctx.w.device.deviceID])
    assert.is(ok.status, 200, ok.text)
    assert.is(ok.body.notFound.length, 999)
    assert.equal(Object.keys(ok.body.devices), [ctx.w.device.deviceID])
    const over = await ask<ErrorBody>(ctx.t.admin, ids)
    assert.is(over.status, 400, over.text)
    assert.equal(over.body, {
      errorCode: 'PARAMETER_INVALID',
      message: over.body.message,
      errors: { deviceIDs: 'at most 1000 deviceIDs' },
    })
  },
)

bulk(
  'no deviceIDs :: 400 PARAMETER_INVALID errors.deviceIDs; anonymous 401; a viewer may read',
  async () => {
    for (const path of [
      '/api/v1/devices_latest',
      '/api/v1/devices_latest?deviceIDs=',
      '/api/v1/devices_latest?deviceIDs=,,',
    ]) {
      const r = await ctx.t.admin.get(path)
      assert.equal(
        [r.status, r.body.errorCode, Object.keys(r.body.errors)],
        [400, 'PARAMETER_INVALID', ['deviceIDs']],
        path,
      )
    }
    assert.is((await ask(ctx.t.anon, [ctx.w.device.deviceID])).status, 401)
    const viewer = await ctx.t.userWithRole('viewer')
    const r = await ask(viewer, [ctx.w.device.deviceID])
    assert.equal([r.status, Object.keys(r.body.devices)], [200, [ctx.w.device.deviceID]])
  },
)

bulk.run()
