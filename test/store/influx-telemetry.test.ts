/**
 * The InfluxDB telemetry store against a real InfluxDB 2.x (test/_support/influx.ts): the shared contract suite
 * plus what only this store has (float fields, Flux injection, delete predicates, timeouts, tokens).
 * Without an InfluxDB this file registers no tests and says so; under CI that is a failure.
 */
import { createServer, type Socket } from 'node:net'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Invalid, Unavailable } from '../../store/errors.ts'
import { InfluxTelemetryStore, type InfluxOptions } from '../../store/influx/telemetry.ts'
import type { TelemetryPoint, TelemetryValue } from '../../store/telemetry.ts'
import { bucketOf, influxOrMissing } from '../_support/influx.ts'
import { telemetryContract } from './telemetry.contract.ts'
import { expectedGroup } from './telemetry-group.cases.ts'

let seq = 0
/** A tenant no other test uses, so cases never see each other's values. */
const newTenant = () => `tenant-${process.pid}-${++seq}`

function pt(
  tenantID: string,
  deviceID: string,
  dataPointID: string,
  time: number,
  value: TelemetryValue,
) {
  return {
    tenantID,
    productID: 'prod-1',
    deviceID,
    dataPointID,
    time,
    value,
  } satisfies TelemetryPoint
}

const ALL = { start: 0, end: Date.parse('2100-01-01') }

async function rejects(
  p: Promise<unknown>,
  cls: abstract new (...args: never[]) => Error,
  message?: RegExp,
): Promise<Error> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (err === undefined) assert.unreachable(`expected a rejection with ${cls.name}`)
  assert.instance(err, cls)
  if (message) assert.match((err as Error).message, message)
  return err as Error
}

function storeSuite(opts: InfluxOptions) {
  const s = suite<{ store: InfluxTelemetryStore }>('InfluxTelemetryStore')
  s.before(async (ctx) => {
    ctx.store = await InfluxTelemetryStore.open(opts)
  })
  s.after(async (ctx) => {
    await ctx.store.close()
  })

  s(
    'write then readRaw :: values per point time ascending, an empty entry for a point without values',
    async ({ store }) => {
      const t = newTenant()
      await store.write([
        pt(t, 'd1', 'temp', 3000, 23.5),
        pt(t, 'd1', 'temp', 1000, 21),
        pt(t, 'd1', 'hum', 2000, 40),
      ])
      const got = await store.readRaw({
        tenantID: t,
        deviceID: 'd1',
        dataPointIDs: ['temp', 'hum', 'none'],
        ...ALL,
      })
      assert.equal([...got.keys()], ['temp', 'hum', 'none'])
      assert.equal(got.get('temp'), { time: [1000, 3000], value: [21, 23.5] })
      assert.equal(got.get('hum'), { time: [2000], value: [40] })
      assert.equal(got.get('none'), { time: [], value: [] })
    },
  )

  s(
    'groupSeries without rollups :: Flux aggregates the raw values in UTC windows, folded into the zone windows as the written values give',
    async ({ store }) => {
      const t = newTenant()
      const base = Date.parse('2026-03-28T00:00:00Z')
      const written = new Map<string, Array<[number, number]>>()
      for (const [d, step] of [
        ['g1', 3 * 60_000 + 7_000],
        ['g2', 5 * 60_000],
        ['g3', 11 * 60_000 + 1_000],
      ] as const) {
        const rows = Array.from(
          { length: Math.floor((3 * 86_400_000) / step) },
          (_, i) => [base + i * step, (i * 37) % 101] as [number, number],
        )
        written.set(d, rows)
        await store.write(rows.map(([time, v]) => pt(t, d, 'x', time, v)))
      }
      const r = {
        tenantID: t,
        deviceIDs: ['g1', 'g2', 'g3', 'none'],
        shown: ['g2', 'none'],
        dataPointID: 'x',
        start: base + 12_345,
        end: base + 3 * 86_400_000 - 777,
      }
      // UTC windows of 15 minutes, an hour (Berlin) and half an hour (Kolkata) folded into the zone's
      for (const [every, tz] of [
        ['15m', 'Europe/Berlin'],
        ['6h', 'Europe/Berlin'],
        ['1d', 'Europe/Berlin'],
        ['1h', 'Asia/Kolkata'],
        ['1d', 'Asia/Kolkata'],
      ]) {
        const got = await store.groupSeries(r, { every: every!, tz: tz! })
        assert.is(got.resolution, 'raw')
        const want = expectedGroup(written, r, every!, tz!)
        assert.equal(Object.fromEntries(got.devices), Object.fromEntries(want.devices), every)
        assert.equal(got.group, want.group, `${every} ${tz}`)
      }
    },
  )

  s(
    'readRaw range :: start inclusive, end exclusive; empty range and no points answer without a query',
    async ({ store }) => {
      const t = newTenant()
      await store.write([1000, 2000, 3000].map((time) => pt(t, 'd1', 'p', time, time / 1000)))
      const got = await store.readRaw({
        tenantID: t,
        deviceID: 'd1',
        dataPointIDs: ['p'],
        start: 2000,
        end: 3000,
      })
      assert.equal(got.get('p'), { time: [2000], value: [2] })
      const empty = await store.readRaw({
        tenantID: t,
        deviceID: 'd1',
        dataPointIDs: ['p'],
        start: 3000,
        end: 3000,
      })
      assert.equal(empty.get('p'), { time: [], value: [] })
      assert.is(
        (await store.readRaw({ tenantID: t, deviceID: 'd1', dataPointIDs: [], ...ALL })).size,
        0,
      )
    },
  )

  s(
    'integer then float on one point :: no field type conflict, both stored as numbers',
    async ({ store }) => {
      const t = newTenant()
      await store.write([pt(t, 'd1', 'n', 1000, 1)])
      await store.write([pt(t, 'd1', 'n', 2000, 1.5)])
      await store.write([pt(t, 'd1', 'n', 3000, -7)])
      const got = await store.readRaw({ tenantID: t, deviceID: 'd1', dataPointIDs: ['n'], ...ALL })
      assert.equal(got.get('n'), { time: [1000, 2000, 3000], value: [1, 1.5, -7] })
    },
  )

  s(
    'same tenant, device, point and time written twice :: one value, the last written',
    async ({ store }) => {
      const t = newTenant()
      await store.write([pt(t, 'd1', 'p', 1000, 1)])
      await store.write([pt(t, 'd1', 'p', 1000, 2), pt(t, 'd1', 's', 1000, 'a')])
      await store.write([pt(t, 'd1', 's', 1000, 'b')])
      const got = await store.readRaw({
        tenantID: t,
        deviceID: 'd1',
        dataPointIDs: ['p', 's'],
        ...ALL,
      })
      assert.equal(got.get('p'), { time: [1000], value: [2] })
      assert.equal(got.get('s'), { time: [1000], value: ['b'] })
    },
  )

  s('strings and booleans :: read back verbatim with their types', async ({ store }) => {
    const t = newTenant()
    const text = 'quote " backslash \\ comma, equals= space  unicode 温度 newline\nend'
    await store.write([
      pt(t, 'd1', 's', 1000, text),
      pt(t, 'd1', 'b', 1000, true),
      pt(t, 'd1', 'b', 2000, false),
    ])
    const got = await store.readRaw({
      tenantID: t,
      deviceID: 'd1',
      dataPointIDs: ['s', 'b'],
      ...ALL,
    })
    assert.equal(got.get('s'), { time: [1000], value: [text] })
    assert.equal(got.get('b'), { time: [1000, 2000], value: [true, false] })
  })

  s(
    "a string with a carriage return :: comes back without it (InfluxDB's CSV drops \\r, README)",
    async ({ store }) => {
      const t = newTenant()
      await store.write([pt(t, 'd1', 's', 1000, 'a\r\nb\rc')])
      const got = await store.readRaw({ tenantID: t, deviceID: 'd1', dataPointIDs: ['s'], ...ALL })
      assert.equal(got.get('s'), { time: [1000], value: ['a\nbc'] })
    },
  )

  s(
    'latest :: the last value of each point with one; other devices and tenants not mixed in',
    async ({ store }) => {
      const t = newTenant()
      const other = newTenant()
      await store.write([
        pt(t, 'd1', 'a', 1000, 1),
        pt(t, 'd1', 'a', 5000, 5),
        pt(t, 'd1', 'b', 2000, 'x'),
      ])
      await store.write([
        pt(t, 'd2', 'a', 9000, 9),
        pt(other, 'd1', 'a', 9000, 99),
        pt(other, 'd1', 'c', 1, 1),
      ])
      const got = await store.latest(t, 'd1')
      assert.equal(Object.fromEntries(got), {
        a: { time: 5000, value: 5 },
        b: { time: 2000, value: 'x' },
      })
      assert.equal((await store.latest(t, 'nobody')).size, 0)
    },
  )

  s('the same deviceID in two tenants :: reads never mix them', async ({ store }) => {
    const a = newTenant()
    const b = newTenant()
    await store.write([pt(a, 'shared', 'p', 1000, 1), pt(b, 'shared', 'p', 1000, 2)])
    const got = await store.readRaw({
      tenantID: a,
      deviceID: 'shared',
      dataPointIDs: ['p'],
      ...ALL,
    })
    assert.equal(got.get('p'), { time: [1000], value: [1] })
  })

  s(
    'hostile deviceID and dataPointID :: stored and read verbatim, Flux injection harmless',
    async ({ store }) => {
      const t = newTenant()
      const device = 'x") |> drop() //'
      const point = 'p" or r.point != "'
      await store.write([
        pt(t, device, point, 1000, 1),
        pt(t, 'plain', 'p', 1000, 2),
        pt(t, 'a b,c=d"e\\f', 'q', 1, true),
      ])
      const got = await store.readRaw({
        tenantID: t,
        deviceID: device,
        dataPointIDs: [point, 'p'],
        ...ALL,
      })
      assert.equal(got.get(point), { time: [1000], value: [1] })
      assert.equal(got.get('p'), { time: [], value: [] })
      assert.equal(Object.fromEntries(await store.latest(t, device)), {
        [point]: { time: 1000, value: 1 },
      })
      assert.equal(Object.fromEntries(await store.latest(t, 'a b,c=d"e\\f')), {
        q: { time: 1, value: true },
      })
      const injected = await store.readRaw({
        tenantID: t,
        deviceID: 'plain" or r.device != "',
        dataPointIDs: ['p'],
        ...ALL,
      })
      assert.equal(injected.get('p'), { time: [], value: [] })
      assert.equal((await store.latest(`${t}" or true or "`, 'plain')).size, 0)
    },
  )

  s(
    'aggregate and count with hostile ids, windows and zones :: harmless; bad windows and functions refused before Flux',
    async ({ store }) => {
      const t = newTenant()
      const device = 'x") |> drop() //'
      const point = 'p" or r.point != "'
      await store.write([
        pt(t, device, point, 1000, 4),
        pt(t, device, point, 2000, 6),
        pt(t, 'plain', 'p', 1000, 100),
      ])
      const range = {
        tenantID: t,
        deviceID: device,
        dataPointIDs: [point],
        start: 0,
        end: 3_600_000,
      }
      assert.equal((await store.aggregate(range, 'sum', { every: '1h', tz: 'UTC' })).get(point), {
        time: [0],
        value: [10],
      })
      assert.is(await store.count(range), 2)
      assert.is(
        await store.count({ ...range, deviceID: 'plain" or r.device != "', dataPointIDs: ['p'] }),
        0,
      )
      for (const every of ['1h) |> drop(', '1h, fn: sum', '', '1w'])
        await rejects(store.aggregate(range, 'sum', { every, tz: 'UTC' }), Error, /duration/)
      await rejects(
        store.aggregate(range, 'drop' as never, { every: '1h', tz: 'UTC' }),
        TypeError,
        /not an aggregate/,
      )
      // a zone name is a Flux string literal: a quoted one is just an unknown zone, which Flux refuses
      await rejects(store.aggregate(range, 'sum', { every: '1h', tz: 'UTC") |> drop() //' }), Error)
    },
  )

  s('deleteDevice :: removes only that device of that tenant, over all time', async ({ store }) => {
    const t = newTenant()
    const other = newTenant()
    await store.write([
      pt(t, 'gone', 'p', 1, 1),
      pt(t, 'gone', 'p', Date.parse('2090-01-01'), 2),
      pt(t, 'kept', 'p', 1, 3),
    ])
    await store.write([pt(other, 'gone', 'p', 1, 4)])
    await store.deleteDevice(t, 'gone')
    assert.equal((await store.latest(t, 'gone')).size, 0)
    assert.equal(Object.fromEntries(await store.latest(t, 'kept')), { p: { time: 1, value: 3 } })
    assert.equal(Object.fromEntries(await store.latest(other, 'gone')), {
      p: { time: 1, value: 4 },
    })
  })

  s(
    'deleteDevice with a hostile deviceID :: deletes that device only, the predicate is not injectable',
    async ({ store }) => {
      const t = newTenant()
      const hostile = 'x" AND device!="y'
      await store.write([pt(t, hostile, 'p', 1, 1), pt(t, 'x', 'p', 1, 2), pt(t, 'z', 'p', 1, 3)])
      await store.deleteDevice(t, hostile)
      await store.deleteDevice(t, 'q\\" AND tenant!="none')
      assert.equal((await store.latest(t, hostile)).size, 0)
      assert.equal(Object.fromEntries(await store.latest(t, 'x')), { p: { time: 1, value: 2 } })
      assert.equal(Object.fromEntries(await store.latest(t, 'z')), { p: { time: 1, value: 3 } })
    },
  )

  s(
    'deleteDataPoint with hostile ids :: deletes that point of that product only, the predicate is not injectable',
    async ({ store }) => {
      const t = newTenant()
      const [product, point] = ['p" AND point!="none', 'x" AND product!="y\\z']
      const at = (productID: string, dataPointID: string, value: number) => ({
        ...pt(t, 'd1', dataPointID, value, value),
        productID,
      })
      await store.write([
        at(product, point, 1),
        at(product, 'x', 2),
        at('p', point, 3),
        at('p', 'x', 4),
      ])
      await store.deleteDataPoint(t, product, point)
      await store.deleteDataPoint(t, 'q\\" AND tenant!="none', 'x')
      await store.deleteDataPoint(t, 'p', 'x") |> drop() //')
      const got = await store.readRaw({
        tenantID: t,
        deviceID: 'd1',
        dataPointIDs: [point, 'x'],
        ...ALL,
      })
      assert.equal(Object.fromEntries(got), {
        [point]: { time: [3], value: [3] },
        x: { time: [2, 4], value: [2, 4] },
      })
    },
  )

  s(
    'values before 1970 and far ahead :: latest() answers them, deleteDataPoint and deleteDevice remove them',
    async ({ store }) => {
      const t = newTenant()
      const times = [Date.parse('1700-01-01'), -1, 0, Date.parse('2200-01-01')]
      const old = pt(t, 'd3', 'x', times[0]!, 3)
      await store.write([
        ...times.flatMap((time) => [
          pt(t, 'd1', 'x', time, 1),
          { ...pt(t, 'd2', 'x', time, 2), productID: 'other' },
        ]),
        old,
      ])
      assert.equal((await store.latest(t, 'd3')).get('x'), { time: old.time, value: 3 })
      assert.equal((await store.latest(t, 'd1')).get('x'), { time: times[3], value: 1 })
      await store.deleteDataPoint(t, 'prod-1', 'x')
      await store.deleteDevice(t, 'd2')
      const all = { dataPointIDs: ['x'], start: old.time, end: Date.parse('2261-01-01') }
      for (const deviceID of ['d1', 'd2', 'd3']) {
        const got = await store.readRaw({ tenantID: t, deviceID, ...all })
        assert.equal(got.get('x'), { time: [], value: [] }, deviceID)
        assert.is((await store.latest(t, deviceID)).size, 0, deviceID)
      }
    },
  )

  s(
    'deleteDataPoint of a device that changed product :: values are deleted by the product they were written with',
    async ({ store }) => {
      const t = newTenant()
      await store.write([{ ...pt(t, 'd1', 'x', 1000, 1), productID: 'old' }])
      await store.write([{ ...pt(t, 'd1', 'x', 2000, 2), productID: 'new' }])
      await store.deleteDataPoint(t, 'old', 'x')
      assert.equal(Object.fromEntries(await store.latest(t, 'd1')), {
        x: { time: 2000, value: 2 },
      })
      const got = await store.readRaw({ tenantID: t, deviceID: 'd1', dataPointIDs: ['x'], ...ALL })
      assert.equal(got.get('x'), { time: [2000], value: [2] })
    },
  )

  s(
    '20 concurrent write calls :: each resolves after its points are readable',
    async ({ store }) => {
      const t = newTenant()
      await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          await store.write([pt(t, 'd1', `p${i}`, 1000, i), pt(t, 'd1', `p${i}`, 2000, i + 0.5)])
          const got = await store.readRaw({
            tenantID: t,
            deviceID: 'd1',
            dataPointIDs: [`p${i}`],
            ...ALL,
          })
          assert.equal(got.get(`p${i}`), { time: [1000, 2000], value: [i, i + 0.5] })
        }),
      )
    },
  )

  s(
    'a write larger than one batch (12,000 points) :: resolves after all of it is stored',
    async ({ store }) => {
      const t = newTenant()
      const points = Array.from({ length: 12_000 }, (_, i) =>
        pt(t, 'd1', `p${i % 3}`, 1_000_000 + i, i),
      )
      await store.write(points)
      const got = await store.readRaw({
        tenantID: t,
        deviceID: 'd1',
        dataPointIDs: ['p0', 'p1', 'p2'],
        ...ALL,
      })
      assert.equal(
        [0, 1, 2].map((k) => got.get(`p${k}`)!.time.length),
        [4000, 4000, 4000],
      )
      assert.equal(got.get('p2')!.value.slice(0, 3), [2, 5, 8])
    },
  )

  s(
    'points InfluxDB cannot represent :: Invalid naming the field, nothing of the call stored',
    async ({ store }) => {
      const t = newTenant()
      const good = pt(t, 'd1', 'p', 1000, 1)
      const err = await rejects(store.write([good, pt(t, 'd1', 'p', 2000, Number.NaN)]), Invalid)
      assert.is((err as Invalid).field, 'value')
      assert.is(
        ((await rejects(store.write([pt(t, 'd1', '', 1, 1)]), Invalid)) as Invalid).field,
        'dataPointID',
      )
      assert.is(
        ((await rejects(store.write([pt(t, 'd\\', 'p', 1, 1)]), Invalid)) as Invalid).field,
        'deviceID',
      )
      assert.is(
        ((await rejects(store.write([pt(t, 'd1', 'p', 1.5, 1)]), Invalid)) as Invalid).field,
        'time',
      )
      assert.equal((await store.latest(t, 'd1')).size, 0)
    },
  )

  s.run()
}

/** A TCP server that accepts connections and never answers: the "InfluxDB hangs" case. */
async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>()
  const server = createServer((sock) => void sockets.add(sock))
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      for (const sock of sockets) sock.destroy()
      return new Promise((res) => server.close(() => res()))
    },
  }
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res))
  const { port } = server.address() as { port: number }
  await new Promise((res) => server.close(res))
  return port
}

function failureSuite(opts: InfluxOptions, stop: () => Promise<void>) {
  const f = suite('InfluxTelemetryStore failures')
  f.after(stop)
  const p = pt('t', 'd1', 'p', 1000, 1)
  const range = { tenantID: 't', deviceID: 'd1', dataPointIDs: ['p'], ...ALL }

  f('URL on a closed port :: every call rejects with Unavailable within 2 s', async () => {
    const store = await InfluxTelemetryStore.open({
      ...opts,
      url: `http://127.0.0.1:${await closedPort()}`,
    })
    const t0 = Date.now()
    await rejects(store.write([p]), Unavailable, /ECONNREFUSED/)
    await rejects(store.readRaw(range), Unavailable)
    await rejects(store.latest('t', 'd1'), Unavailable)
    await rejects(store.deleteDevice('t', 'd1'), Unavailable)
    await rejects(store.deleteDataPoint('t', 'p', 'x'), Unavailable)
    await store.deleteDataPoint('t', '', 'x') // an id no tag can hold: nothing stored, nothing sent
    assert.ok(Date.now() - t0 < 2000, `took ${Date.now() - t0} ms`)
    await store.close()
  })

  f(
    'an InfluxDB that accepts and never answers :: Unavailable after the request timeout, no hang',
    async () => {
      const silent = await silentServer()
      const store = await InfluxTelemetryStore.open({ ...opts, url: silent.url, timeoutMs: 300 })
      const t0 = Date.now()
      await rejects(store.write([p]), Unavailable)
      await rejects(store.readRaw(range), Unavailable)
      const took = Date.now() - t0
      assert.ok(took >= 500 && took < 3000, `took ${took} ms`)
      await store.close()
      await silent.close()
    },
  )

  f('a bad token :: write and read reject with Unavailable naming the 401', async () => {
    const store = await InfluxTelemetryStore.open({ ...opts, token: 'not-a-token' })
    await rejects(store.write([p]), Unavailable, /401/)
    await rejects(store.readRaw(range), Unavailable, /401/)
    await store.close()
  })

  f('a bucket that does not exist :: write rejects with Unavailable naming the 404', async () => {
    const store = await InfluxTelemetryStore.open({ ...opts, bucket: 'no-such-bucket' })
    await rejects(store.write([p]), Unavailable, /404/)
    await store.close()
  })

  f('write after close :: rejects with Unavailable', async () => {
    const store = await InfluxTelemetryStore.open(opts)
    await store.close()
    await rejects(store.write([p]), Unavailable, /closed/)
  })

  f.run()
}

const influx = await influxOrMissing()

if (influx) {
  const opts: InfluxOptions = bucketOf(influx)
  // the contract runs with rollups, as the service does; settling rolls every pending hour up
  telemetryContract(
    'influxdb',
    () => InfluxTelemetryStore.open({ ...opts, rollupBucket: influx.rollupBucket }),
    { settle: (s) => s.rollUp().then(() => {}) },
  )
  storeSuite(opts)
  failureSuite(opts, () => influx.stop())
}
