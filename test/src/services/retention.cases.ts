/**
 * The retention job through a real service on a given telemetry store: uplinks (values and events), connection
 * logs and finished commands written at several ages (an injected clock), then a run; what each limit and each
 * product's own retention keep, in two tenants. Not a test file: retention-*.test.ts run it per store.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Client, startTestService, type TestService } from '../../_support/service.ts'
import { basic, type Credentials } from '../routes/_ingest.ts'
import { mkPoint, mkProduct, mkStream } from '../routes/_product-model.ts'
import { mqttBody, newDevice } from '../routes/devices-helpers.ts'
import { connectDevice, end, until } from '../../ingest/_mqtt.ts'
import { openMetaStore } from '../../../store/index.ts'
import { loadConfig } from '../../../src/kernel/config.ts'
import { createClient } from '@libsql/client'
import { join } from 'node:path'

const DAY = 86_400_000
const enc = encodeURIComponent

export function retentionCases(
  name: string,
  env: () => Promise<Record<string, string> | undefined>,
  cleanup: () => Promise<void> = async () => {},
) {
  const test = suite(`retention: ${name}`)
  let t: TestService
  let offset = 0
  const now = () => Date.now() + offset

  test.before(async () => {
    t = await startTestService(
      {
        ...(await env()),
        INGEST_LINGER_MS: '2',
        TIMEZONE: 'UTC',
        RETENTION_RAW_DAYS: '60',
        RETENTION_EVENTS_DAYS: '30',
        RETENTION_LOGS_DAYS: '90',
      },
      // runs are started by the test (runIfDue), not by the timer
      { now, retention: { firstCheckMs: 3_600_000 } },
    )
  })
  test.after(async () => {
    await t?.close()
    await cleanup()
  })

  /** A product with data point `x` on stream `telemetry`, and one device of it. */
  async function world(c: Client, retention: object = {}) {
    const product = await mkProduct(c)
    const x = await mkPoint(c, product.id, 'x')
    await mkStream(c, product.productID, [x.id], { topic: 'telemetry' })
    if (Object.keys(retention).length) {
      const r = await c.put(`/api/v1/products/${product.id}`, retention)
      assert.is(r.status, 200, r.text)
    }
    const device = await newDevice(c, mqttBody(product.productID))
    return { product, device }
  }

  /** One uplink of `device` with x = `value` at `time` (its event is stamped with the time it arrives). */
  async function send(device: Credentials, value: number, time: number) {
    const r = await new Client(t.url, basic(device)).post('/api/v1/ingest', {
      topic: 'telemetry',
      payload: { data_type: 'event', data: { x: { time, value } } },
    })
    assert.is(r.status, 202, r.text)
  }

  const values = async (c: Client, deviceID: string) => {
    const r = await c.get(
      `/api/v1/original_data?deviceID=${enc(deviceID)}&dataPointID=x&startTime=${Date.now() - 200 * DAY}&endTime=${Date.now() + DAY}`,
    )
    assert.is(r.status, 200, r.text)
    return r.body[0].originalData.value as number[]
  }
  const events = async (c: Client, deviceID: string) => {
    const r = await c.get(`/api/v1/device_events?deviceID=${enc(deviceID)}&_limit=100`)
    assert.is(r.status, 200, r.text)
    return r.body.meta.count as number
  }
  const connectLogs = async (c: Client, id: number) =>
    (await c.get(`/api/v1/devices/${id}/connect_logs`)).body.meta.count as number
  const controlLogs = async (c: Client) =>
    (await c.get('/api/v1/device_control_logs')).body.meta.count as number
  /** A run of the job with the clock `days` ahead (the job's clock; what is stored keeps its times). */
  const runAt = async (days: number) => {
    offset = days * DAY
    try {
      return await t.svc.deps.services.retention.runIfDue()
    } finally {
      offset = 0
    }
  }

  test('runs :: each limit and each product override keep what they should, in both tenants', async () => {
    const a = t.admin
    const b = await t.newTenant()
    const plain = await world(a)
    const own = await world(a, { rawRetentionDays: 10, eventRetentionDays: 200 })
    const other = await world(b)
    const devices = [plain.device, own.device, other.device]
    const T = Date.now()
    // values of 70 days ago, 45 days ago and an hour ago (1, 2, 3); their uplinks' events are all stamped now
    for (const [age, value] of [
      [70 * DAY, 1],
      [45 * DAY, 2],
      [3_600_000, 3],
    ] as const)
      for (const d of devices) await send(d, value, T - age)
    // a connection (connect and disconnect logs) and a command to the offline device (refused: a finished log)
    const m = await connectDevice(t, plain.device)
    await until(
      () => connectLogs(a, plain.device.id),
      (n) => n >= 1,
    )
    end(m)
    await until(
      () => connectLogs(a, plain.device.id),
      (n) => n >= 2,
    )
    const cmd = await a.post('/api/v1/device_publish', {
      deviceID: plain.device.deviceID,
      payload: '{"a":1}',
    })
    assert.ok(cmd.status < 500, cmd.text)
    const commands = await controlLogs(a)
    // the embedded store deletes flushed chunks: move what is in memory there first
    await (t.svc.deps.telemetry as { flush?: () => Promise<void> }).flush?.()

    // now: raw values beyond 60 days go (beyond 10 for the product that says so); events and logs are young
    const first = await runAt(0)
    assert.ok(first, 'the first run is due at once')
    assert.equal(await values(a, plain.device.deviceID), [2, 3])
    assert.equal(await values(a, own.device.deviceID), [3])
    assert.equal(await values(b, other.device.deviceID), [2, 3])
    for (const d of devices) assert.is(await events(d === other.device ? b : a, d.deviceID), 3)
    assert.equal([first.events, first.connectLogs, first.controlLogs], [0, 0, 0])
    assert.is(await t.svc.deps.services.retention.runIfDue(), undefined, 'not due again yet')

    // 45 days on: events beyond 30 days go, except the product keeping them 200 days
    const second = await runAt(45)
    assert.ok(second, 'due again after RETENTION_INTERVAL_SECONDS')
    assert.is(second.events, 6)
    assert.is(await events(a, plain.device.deviceID), 0)
    assert.is(await events(a, own.device.deviceID), 3)
    assert.is(await events(b, other.device.deviceID), 0)
    assert.equal(await values(a, plain.device.deviceID), [3], '60 days before day 45')
    assert.equal(await values(a, own.device.deviceID), [])
    assert.equal(await values(b, other.device.deviceID), [3])
    assert.is(await connectLogs(a, plain.device.id), 2, 'logs are kept 90 days')

    // 100 days on: connection logs and finished control logs go
    const third = await runAt(100)
    assert.ok(third)
    assert.is(third.connectLogs, 2)
    assert.is(await connectLogs(a, plain.device.id), 0)
    assert.is(third.controlLogs, commands)
    assert.is(await controlLogs(a), 0)
    assert.is(await events(a, own.device.deviceID), 3, '200 days')
  })

  test('the timer :: a service runs the job by itself shortly after start-up', async () => {
    const lastRun = await t.svc.deps.meta.retention.lastRun('retention')
    assert.ok(lastRun?.result, 'the runs above recorded their results')
    const own = await startTestService(
      { ...(await env()), RETENTION_EVENTS_DAYS: '30' },
      { retention: { firstCheckMs: 20, checkMs: 50 } },
    )
    try {
      const done = await until(
        () => own.svc.deps.meta.retention.lastRun('retention'),
        (r) => !!r?.result,
      )
      assert.match(String(done!.result), /"events":0/)
    } finally {
      await own.close()
    }
  })

  test('the lease :: two processes claiming at once, exactly one runs', async () => {
    const second = await openMetaStore(loadConfig({ DATA_DIR: t.dir, LOG_LEVEL: 'error' }))
    try {
      const at = now() + 10 * 3_600_000 // due for both
      const claims = await Promise.all([
        t.svc.deps.meta.retention.claim('lease-test', at, 60_000, 60_000),
        second.retention.claim('lease-test', at, 60_000, 60_000),
        t.svc.deps.meta.retention.claim('lease-test', at, 60_000, 60_000),
        second.retention.claim('lease-test', at, 60_000, 60_000),
      ])
      assert.is(claims.filter(Boolean).length, 1)
      await second.retention.release('lease-test', '{}')
      assert.is(
        await t.svc.deps.meta.retention.claim('lease-test', at + 1000, 60_000, 60_000),
        false,
        'released, but the next run is due an interval later',
      )
      assert.is(await second.retention.claim('lease-test', at + 61_000, 60_000, 60_000), true)
    } finally {
      await second.close()
    }
  })

  test('space :: a run gives the pages its deletes freed back to the file system', async () => {
    const { product, device } = await world(t.admin)
    const old = Date.now() - 40 * DAY
    const pad = 'x'.repeat(200)
    for (let i = 0; i < 20_000; i += 5000)
      await t.svc.deps.meta.logs.addEvents(
        Array.from({ length: 5000 }, (_, k) => ({
          tenantID: device.tenantID,
          deviceIntID: device.id,
          deviceID: device.deviceID,
          deviceName: device.deviceName,
          productIntID: product.id,
          topic: 'telemetry',
          payload: JSON.stringify({ i: i + k, pad }),
          IP: '10.0.0.1',
          msgTime: old + (i + k) * 1000,
        })),
      )
    const run = await runAt(300)
    assert.ok(run && run.events >= 20_000, `${run?.events} events deleted`)
    const c = createClient({ url: `file:${join(t.dir, 'devicecloud.db')}`, intMode: 'number' })
    try {
      const [pages, free] = await c.batch(['PRAGMA page_count', 'PRAGMA freelist_count'], 'read')
      const [n, f] = [Number(pages!.rows[0]![0]), Number(free!.rows[0]![0])]
      assert.ok(n <= 2 * (n - f), `${n} pages, ${f} of them free`)
    } finally {
      c.close()
    }
  })

  test.run()
}
