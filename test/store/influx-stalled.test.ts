/**
 * An InfluxDB that accepts connections and never answers (a hung server, a black-holed route) must not crash the
 * process: every call rejects with Unavailable once its timeout passes, and the roller's background work (the state
 * check at start, its passes) reports to onError, or to nobody when no onError is given, never as an unhandled
 * rejection. Two stores, one with onError and one without.
 */
import { createServer, type Socket } from 'node:net'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { InfluxTelemetryStore } from '../../store/influx/telemetry.ts'
import { Unavailable } from '../../store/errors.ts'

const test = suite('influx: a server that never answers')

test('calls reject with Unavailable; background errors never go unhandled', async () => {
  const sockets = new Set<Socket>()
  const server = createServer((s) => (sockets.add(s), s.on('error', () => {})))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as { port: number }
  const unhandled: unknown[] = []
  const onUnhandled = (e: unknown) => unhandled.push(e)
  process.on('unhandledRejection', onUnhandled)
  const reported: unknown[] = []
  const base = {
    url: `http://127.0.0.1:${port}`,
    token: 't',
    org: 'o',
    bucket: 'b',
    rollupBucket: 'b_rollups',
    timeoutMs: 300,
  }
  const quiet = await InfluxTelemetryStore.open(base)
  const told = await InfluxTelemetryStore.open({ ...base, onError: (e) => reported.push(e) })
  try {
    const range = { tenantID: 't1', deviceID: 'd1', dataPointIDs: ['p'], start: 0, end: Date.now() }
    for (const store of [quiet, told]) {
      const write = store.write([
        {
          tenantID: 't1',
          productID: 'p1',
          deviceID: 'd1',
          dataPointID: 'p',
          time: Date.now(),
          value: 1,
        },
      ])
      const read = store.count(range)
      for (const p of [write, read]) {
        const e = await p.then(
          () => undefined,
          (err: unknown) => err,
        )
        assert.instance(e, Unavailable)
      }
    }
    await new Promise((r) => setTimeout(r, 800)) // the roller's start-up state check has timed out by now
    assert.equal(unhandled.length, 0, `unhandled: ${String(unhandled[0])}`)
    assert.ok(reported.length >= 1, 'the store with onError was told')
    assert.instance(reported[0], Unavailable)
  } finally {
    process.off('unhandledRejection', onUnhandled)
    await Promise.all([quiet.close(), told.close()]).catch(() => {})
    for (const s of sockets) s.destroy()
    server.close()
  }
})

test.run()
