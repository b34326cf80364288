import * as assert from 'uvu/assert'
import { Client } from '../../_support/service.ts'
import type { Wire } from '../../_support/wire.ts'
import type { LatestValues } from '../../../src/schemas/ingest.ts'
import { basic, ingestTelemetry, worldSuite } from './_ingest.ts'
import { TIME } from './_product-model.ts'

const { test: latest, ctx } = worldSuite('GET /api/v1/devices/:id/latest', {
  INGEST_LINGER_MS: '2',
  TIMEZONE: 'UTC',
})

latest(
  'a device without values :: every data point of its product with null time and value',
  async () => {
    const r = await ctx.t.admin.get<Wire<typeof LatestValues>>(
      `/api/v1/devices/${ctx.w.other.id}/latest`,
    )
    assert.is(r.status, 200, r.text)
    assert.equal(
      r.body.map((x) => [x.dataPointID, x.time, x.value]),
      [
        ['temp', null, null],
        ['hum', null, null],
        ['name', null, null],
        ['on', null, null],
        ['loc', null, null],
        ['secret', null, null],
      ],
    )
    assert.equal(Object.keys(r.body[0]!), [
      'dataPointIntID',
      'dataPointID',
      'dataPointName',
      'pointDataType',
      'unit',
      'time',
      'value',
    ])
    assert.is(r.body[1]!.pointDataType, 16)
    // the unit of each data point: its symbol, else its name, else null
    const points = (
      await ctx.t.admin.get(`/api/v1/data_points?productID=${ctx.w.other.productID}&_limit=50`)
    ).body.items as Array<{
      dataPointID: string
      unitSymbol: string | null
      unitName: string | null
    }>
    for (const x of r.body) {
      const p = points.find((q) => q.dataPointID === x.dataPointID)!
      assert.is(x.unit, p.unitSymbol || p.unitName || null, x.dataPointID)
    }
  },
)

latest(
  'after ingest :: the newest value per data point; an older time does not replace it',
  async () => {
    const dev = new Client(ctx.t.url, basic(ctx.w.device))
    await ingestTelemetry(dev, {
      data_type: 'event',
      data: { temp: { time: 1700000000, value: 20 }, name: { time: 1700000000, value: 'a' } },
    })
    await ingestTelemetry(dev, {
      data_type: 'event',
      data: { temp: { time: 1700000060, value: 25 }, on: { time: 1700000060, value: 0 } },
    })
    await ingestTelemetry(dev, {
      data_type: 'event',
      data: { temp: { time: 1699999000, value: 1 } },
    })
    const r = await ctx.t.admin.get<Wire<typeof LatestValues>>(
      `/api/v1/devices/${ctx.w.device.id}/latest`,
    )
    const by = Object.fromEntries(r.body.map((x) => [x.dataPointID, [x.time, x.value] as const]))
    assert.equal(by.temp, ['2023-11-14 22:14:20', 25])
    assert.equal(by.name, ['2023-11-14 22:13:20', 'a'])
    assert.equal(by.on, ['2023-11-14 22:14:20', false])
    assert.equal(by.hum, [null, null])
    assert.match(by.temp![0]!, TIME)
  },
)

latest(
  'values written before a restart of the cache :: read from the telemetry store',
  async () => {
    // a second pipeline over the same stores has an empty cache: it must read the store
    await ctx.t.svc.deps.telemetry.write([
      {
        tenantID: ctx.w.tenantID,
        productID: ctx.w.product.productID,
        deviceID: ctx.w.child.deviceID,
        dataPointID: 'hum',
        time: 1700000000000,
        value: 12,
      },
    ])
    const r = await ctx.t.admin.get<Wire<typeof LatestValues>>(
      `/api/v1/devices/${ctx.w.child.id}/latest`,
    )
    const hum = r.body.find((x) => x.dataPointID === 'hum')!
    assert.equal([hum.time, hum.value], ['2023-11-14 22:13:20', 12])
  },
)

latest('another tenant’s device, an unknown id, a bad id :: 404 DATA_NOT_FOUND', async () => {
  const other = await ctx.t.newTenant()
  for (const path of [
    `/api/v1/devices/${ctx.w.device.id}/latest`,
    '/api/v1/devices/999999/latest',
    '/api/v1/devices/abc/latest',
  ]) {
    const r = await (path.includes(String(ctx.w.device.id)) ? other : ctx.t.admin).get(path)
    assert.equal([r.status, r.body.errorCode], [404, 'DATA_NOT_FOUND'], path)
  }
  assert.is((await ctx.t.anon.get(`/api/v1/devices/${ctx.w.device.id}/latest`)).status, 401)
})

latest('a viewer :: may read it', async () => {
  const viewer = await ctx.t.userWithRole('viewer')
  assert.is((await viewer.get(`/api/v1/devices/${ctx.w.device.id}/latest`)).status, 200)
})

latest.run()
