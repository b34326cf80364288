/**
 * Deletes leave nothing behind, through the API on a given telemetry store: a device, gateway or data point that
 * is deleted takes everything keyed by it along, and a record created again under the same id starts empty.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { IngestReply, LatestValues } from '../../../src/schemas/ingest.ts'
import type { OriginalData } from '../../../src/schemas/telemetry.ts'
import { Client, startTestService, type TestService } from '../../_support/service.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import { basic, buildWorld, eventsOf, type Credentials, type World } from '../routes/_ingest.ts'
import { mkPoint } from '../routes/_product-model.ts'
import { mqttBody, newDevice, newGateway, uniq } from '../routes/devices-helpers.ts'
import { connectDevice, end, until } from '../../ingest/_mqtt.ts'

const enc = encodeURIComponent
const T = Date.parse('2026-11-02T10:00:00Z')

export function deleteCases(
  name: string,
  env: () => Promise<Record<string, string> | undefined>,
  cleanup: () => Promise<void> = async () => {},
) {
  const test = suite(`deletes: ${name}`)
  let t: TestService
  let c: Client
  let w: World

  test.before(async () => {
    t = await startTestService({ ...(await env()), INGEST_LINGER_MS: '2', TIMEZONE: 'UTC' })
    c = t.admin
    w = await buildWorld(c, t)
  })
  test.after(async () => {
    await t?.close()
    await cleanup()
  })

  /** Sends `values` of `device` with time T + `offset` seconds through HTTP ingest. */
  async function send(
    device: Credentials,
    values: Record<string, unknown>,
    offset = 0,
    topic = 'telemetry',
  ) {
    const data = Object.fromEntries(
      Object.entries(values).map(([k, value]) => [k, { time: T + offset * 1000, value }]),
    )
    const r = await new Client(t.url, basic(device)).post<Wire<typeof IngestReply>>(
      '/api/v1/ingest',
      {
        topic,
        payload: { data_type: 'event', data },
      },
    )
    assert.is(r.status, 202, r.text)
    assert.equal(r.body.rejected, [], r.text)
  }

  const range = `startTime=${T - 60_000}&endTime=${T + 3_600_000}`
  const original = async (deviceID: string, point: string) => {
    const r = await c.get<Wire<typeof OriginalData>>(
      `/api/v1/original_data?deviceID=${enc(deviceID)}&${range}&dataPointID=${point}`,
    )
    assert.is(r.status, 200, r.text)
    return r.body[0]!.originalData.value as unknown[]
  }
  const latestOf = async (id: number, point: string) => {
    const r = await c.get<Wire<typeof LatestValues>>(`/api/v1/devices/${id}/latest`)
    assert.is(r.status, 200, r.text)
    return r.body.find((x) => x.dataPointID === point)?.value ?? null
  }
  const count = async (path: string) => {
    const r = await c.get<Page<unknown>>(path)
    assert.is(r.status, 200, r.text)
    return r.body.meta.count
  }

  test('device deleted and created again with its deviceID :: starts empty everywhere', async () => {
    const deviceID = uniq('reused')
    const body = () => mqttBody(w.product.productID, { deviceID, deviceUsername: uniq('u') })
    const old = await newDevice(c, body())
    await send(old, { temp: 21.5, name: 'old' })
    const mqtt = await connectDevice(t, old)
    const logs = await until(
      () => count(`/api/v1/devices/${old.id}/connect_logs`),
      (n) => n > 0,
    )
    assert.ok(logs > 0)
    end(mqtt)
    const group = await c.post('/api/v1/groups', {
      groupName: uniq('g'),
      productID: w.product.productID,
    })
    assert.is(
      (await c.post(`/api/v1/groups/${group.body.id}/devices`, { ids: [old.id] })).status,
      201,
    )
    const policy = await c.post('/api/v1/policies', {
      name: uniq('p'),
      access: 2,
      allow: 1,
      topic: 'telemetry',
    })
    assert.is(policy.status, 201, policy.text)
    const bind = await c.post(`/api/v1/policies/${policy.body.id}/devices`, {
      devicesIntID: [old.id],
    })
    assert.is(bind.status, 201, bind.text)
    const sub = await c.post(`/api/v1/devices/${old.id}/subscriptions`, { topic: 'inbox/x' })
    assert.is(sub.status, 201, sub.text)
    await t.svc.deps.meta.alerts.raise([
      {
        tenantID: w.tenantID,
        alertName: 'hot',
        alertSeverity: 1,
        deviceIntID: old.id,
        deviceID,
        deviceName: old.deviceName,
      },
    ])
    // everything is there before the delete
    assert.equal(await original(deviceID, 'temp'), [21.5])
    assert.is(await latestOf(old.id, 'temp'), 21.5)
    assert.ok((await eventsOf(c, deviceID)).length > 0)
    assert.is(await count(`/api/v1/current_alerts?deviceID=${enc(deviceID)}`), 1)

    assert.is((await c.del(`/api/v1/devices?ids=${old.id}`)).status, 204)
    const again = await newDevice(c, body())
    assert.is.not(again.id, old.id)

    assert.equal(await original(deviceID, 'temp'), [])
    assert.equal(await original(deviceID, 'name'), [])
    assert.is(await latestOf(again.id, 'temp'), null)
    assert.equal(await eventsOf(c, deviceID), [])
    assert.is(await count(`/api/v1/device_connect_logs?deviceID=${enc(deviceID)}`), 0)
    assert.is(await count(`/api/v1/current_alerts?deviceID=${enc(deviceID)}`), 0)
    assert.is(await count(`/api/v1/history_alerts?deviceID=${enc(deviceID)}`), 0)
    assert.is(await count(`/api/v1/groups/${group.body.id}/devices`), 0)
    assert.is(await count(`/api/v1/policies/${policy.body.id}/devices`), 0)
    assert.is(await count(`/api/v1/devices/${again.id}/subscriptions`), 0)
    // the other devices keep their values
    await send(w.other, { temp: 7 }, 5)
    assert.equal(await original(w.other.deviceID, 'temp'), [7])
    // the new device's own values are its alone
    await send(again, { temp: 30 }, 10)
    assert.equal(await original(deviceID, 'temp'), [30])
    assert.is(await latestOf(again.id, 'temp'), 30)
  })

  test('gateway deleted and created again :: its values and events are gone', async () => {
    const deviceID = uniq('gw-reused')
    const old = await newGateway(c, w.gwProduct.productID, { deviceID })
    await send(old, { up: 1 }, 20, 'gw')
    assert.equal(await original(deviceID, 'up'), [1])
    assert.is((await c.del(`/api/v1/gateways?ids=${old.id}`)).status, 204)
    await newGateway(c, w.gwProduct.productID, { deviceID })
    assert.equal(await original(deviceID, 'up'), [])
    assert.equal(await eventsOf(c, deviceID), [])
  })

  test('data point deleted and created again :: its values are gone, other points keep theirs', async () => {
    const dev = await newDevice(c, mqttBody(w.product.productID))
    const gone = await mkPoint(c, w.product.id, 'level')
    // the data points as ids, or as records with their id
    const stream = await c.get<{ dataPoints: Array<number | { id: number }> }>(
      `/api/v1/data_streams/${w.stream.id}`,
    )
    const ids: number[] = stream.body.dataPoints.map((p) => (typeof p === 'object' ? p.id : p))
    const withLevel = await c.put(`/api/v1/data_streams/${w.stream.id}`, {
      dataPoints: [...ids, gone.id],
    })
    assert.is(withLevel.status, 200, withLevel.text)
    await send(dev, { temp: 40, level: 3 }, 30)
    assert.equal(await original(dev.deviceID, 'level'), [3])
    assert.is(await latestOf(dev.id, 'level'), 3)
    assert.is((await c.put(`/api/v1/data_streams/${w.stream.id}`, { dataPoints: ids })).status, 200)
    assert.is((await c.del(`/api/v1/data_points?ids=${gone.id}`)).status, 204)
    const back = await mkPoint(c, w.product.id, 'level')
    assert.ok(back.id !== gone.id)
    assert.equal(await original(dev.deviceID, 'level'), [])
    assert.is(await latestOf(dev.id, 'level'), null)
    assert.equal(await original(dev.deviceID, 'temp'), [40])
  })

  test('delete of a foreign device :: 404, and its values stay', async () => {
    const other = await t.newTenant()
    const r = await other.del(`/api/v1/devices?ids=${w.device.id}`)
    assert.is(r.status, 404, r.text)
    await send(w.device, { temp: 12 }, 40)
    assert.equal(await original(w.device.deviceID, 'temp'), [12])
  })

  test.run()
}
