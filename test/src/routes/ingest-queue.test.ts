import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { rmSync } from 'node:fs'
import { startTestService, Client } from '../../_support/service.ts'
import type { Wire } from '../../_support/wire.ts'
import type { IngestRejection } from '../../../src/schemas/ingest.ts'
import { basic, buildWorld, storeEnv, worldSuite } from './_ingest.ts'
import { loadConfig } from '../../../src/kernel/config.ts'
import { openDb } from '../../../store/libsql/db.ts'
import { createTelemetryStore } from '../../../store/index.ts'

const post = (c: Client, body: unknown) =>
  c.call('POST', '/api/v1/ingest', JSON.stringify(body), { 'content-type': 'application/json' })

// a one-point queue whose first batch lingers: the second request finds it full
const { test: queue, ctx } = worldSuite('POST /api/v1/ingest: backpressure', {
  INGEST_QUEUE_POINTS: '1',
  INGEST_LINGER_MS: '400',
})

queue(
  'queue full :: 429 TOO_MANY_REQUESTS with Retry-After; accepted again once drained',
  async () => {
    const dev = new Client(ctx.t.url, basic(ctx.w.device))
    const first = post(dev, { topic: 'telemetry', payload: { temp: 1 } })
    const end = Date.now() + 2_000
    while (!ctx.t.svc.deps.pipeline.saturated && Date.now() < end)
      await new Promise((r) => setTimeout(r, 5))
    assert.ok(ctx.t.svc.deps.pipeline.saturated, 'the first request should fill the queue')
    const second = await post(dev, { topic: 'telemetry', payload: { temp: 2 } })
    assert.equal(
      [second.status, second.body.errorCode, second.headers.get('retry-after')],
      [429, 'TOO_MANY_REQUESTS', '1'],
    )
    const f = await first
    assert.equal([f.status, f.body], [202, { accepted: 1, rejected: [] }])
    await ctx.t.svc.deps.pipeline.drained()
    const third = await post(dev, { topic: 'telemetry', payload: { temp: 3 } })
    assert.equal([third.status, third.body], [202, { accepted: 1, rejected: [] }])
  },
)

queue(
  'a batch larger than the queue while it is busy :: queued messages accepted, the others TOO_MANY_REQUESTS',
  async () => {
    const dev = new Client(ctx.t.url, basic(ctx.w.device))
    const msgs = Array.from({ length: 3 }, (_, i) => ({ topic: 'telemetry', payload: { hum: i } }))
    const r = await post(dev, { messages: msgs })
    assert.is(r.status, 202, r.text)
    assert.is(r.body.accepted, 1)
    assert.equal(
      r.body.rejected.map((x: Wire<typeof IngestRejection>) => [x.index, x.errorCode]),
      [
        [1, 'TOO_MANY_REQUESTS'],
        [2, 'TOO_MANY_REQUESTS'],
      ],
    )
  },
)

queue.run()

const close = suite('service close (the SIGTERM path)')

close(
  'uplinks queued with a long linger :: close() commits them at once, nothing is lost',
  async () => {
    const s = await startTestService({ ...storeEnv(), INGEST_LINGER_MS: '1000' })
    const world = await buildWorld(s.admin, s)
    const device = (await s.svc.deps.meta.ingest.deviceByDeviceID(world.device.deviceID))!
    const pipeline = s.svc.deps.pipeline
    const outcomes = Array.from({ length: 20 }, (_, i) =>
      pipeline.submit({
        device,
        topic: 'telemetry',
        payload: Buffer.from(
          JSON.stringify({ data_type: 'event', data: { hum: { time: 1700000000 + i, value: i } } }),
        ),
        receivedAt: Date.now(),
        ip: null,
      }),
    )
    const started = Date.now()
    // when the uplinks are committed, not when close() ends (it also stops workers, slower on a busy machine)
    const committed = Promise.all(outcomes).then(() => Date.now() - started)
    await s.svc.close()
    const ms = await committed
    assert.ok(ms < 900, `committed ${ms} ms into close: it waited for the linger`)
    assert.equal(
      (await Promise.all(outcomes)).map((o) => o.accepted),
      Array(20).fill(1),
    )
    const db = await openDb({ url: `file:${s.dir}/devicecloud.db` })
    const n = await db.one('SELECT count(*) AS n FROM events WHERE device_id = ?', [
      world.device.deviceID,
    ])
    void db.close()
    assert.is(Number(n!.n), 20)
    const telemetry = await createTelemetryStore(loadConfig({ DATA_DIR: s.dir, ...storeEnv() }))
    const raw = await telemetry.readRaw({
      tenantID: world.tenantID,
      deviceID: world.device.deviceID,
      dataPointIDs: ['hum'],
      start: 0,
      end: 2e12,
    })
    await telemetry.close()
    assert.is(raw.get('hum')!.time.length, 20)
    rmSync(s.dir, { recursive: true, force: true })
  },
)

close.run()
