/**
 * The TelemetryStore contract (store/telemetry.ts): every implementation runs these suites.
 *
 * `open()` returns a store on the SAME persistent storage every time it is called (a file, a bucket); cases
 * never keep two stores open at once and use fresh random tenant ids, so storage shared between cases and
 * runs does no harm. Nothing here depends on timing beyond what the port promises: once write() (or
 * deleteDevice(), deleteDataPoint()) resolves, reads see its effect.
 */
import { randomUUID } from 'node:crypto'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { TelemetryPoint, TelemetryStore, TelemetryValue } from '../../store/telemetry.ts'
import { aggregateSorted, windowBounds } from '../../store/windows.ts'
import { downsample as downsampleRaw } from '../../store/downsample.ts'
import { groupCases } from './telemetry-group.cases.ts'

export interface ContractOptions<S extends TelemetryStore = TelemetryStore> {
  /** Skip every case (e.g. no InfluxDB reachable), naming why. */
  skip?: string
  /**
   * Moves what the store holds in memory to its long-term form (the embedded store: flush the memtable to chunks
   * and compact them), so cases cover values in both forms; absent when every value is stored one way.
   */
  settle?: (store: S) => Promise<void>
}

const HOUR = 3_600_000
const DAY = 24 * HOUR
/** Two days ago, on an hour boundary: recent enough for any retention, past enough for any compaction. */
const BASE = Math.floor(Date.now() / HOUR) * HOUR - 2 * DAY

const uid = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`

/** Points of one device: [dataPointID, time offset from BASE, value]. */
function pts(
  tenantID: string,
  deviceID: string,
  rows: Array<[string, number, TelemetryValue]>,
): TelemetryPoint[] {
  return rows.map(([dataPointID, dt, value]) => ({
    tenantID,
    productID: 'p1',
    deviceID,
    dataPointID,
    time: BASE + dt,
    value,
  }))
}

/** Points of several products and devices: [productID, deviceID, dataPointID, time offset from BASE, value]. */
function productPts(
  tenantID: string,
  rows: Array<[string, string, string, number, TelemetryValue]>,
): TelemetryPoint[] {
  return rows.map(([productID, deviceID, dataPointID, dt, value]) => ({
    tenantID,
    productID,
    deviceID,
    dataPointID,
    time: BASE + dt,
    value,
  }))
}

export function telemetryContract<S extends TelemetryStore>(
  name: string,
  open: () => Promise<S>,
  opts: ContractOptions<S> = {},
) {
  const test = suite(`telemetry contract: ${name}`)
  let store: S

  if (opts.skip) {
    test.skip(`every case :: skipped (${opts.skip})`, () => {})
    test.run()
    return
  }
  test.before(async () => {
    store = await open()
  })
  test.after(async () => {
    await store?.close()
  })

  const read = (
    tenantID: string,
    deviceID: string,
    dataPointIDs: string[],
    start = BASE,
    end = BASE + DAY,
  ) => store.readRaw({ tenantID, deviceID, dataPointIDs, start, end })
  const settle = async () => opts.settle?.(store)
  /** Every read of a device's data points over [BASE - DAY, BASE + 2 DAY): raw, count, extent, hourly sums. */
  const everything = async (tenantID: string, deviceID: string, dataPointIDs: string[]) => {
    const range = { tenantID, deviceID, dataPointIDs, start: BASE - DAY, end: BASE + 2 * DAY }
    return {
      raw: Object.fromEntries(await store.readRaw(range)),
      count: await store.count(range),
      extent: (await store.extent(range)) !== undefined,
      // what served them (resolution) is checked by the rollup tests
      sums: Object.fromEntries(
        [...(await store.aggregate(range, 'sum', { every: '1h', tz: 'UTC' }))].map(([dp, s]) => [
          dp,
          { time: s.time, value: s.value },
        ]),
      ),
      latest: Object.fromEntries(await store.latest(tenantID, deviceID)),
    }
  }

  test('ping :: resolves while the store answers', async () => {
    await store.ping()
  })

  test('numbers round trip :: same values and times, numbers stay numbers', async () => {
    const [t, d] = [uid('t'), uid('d')]
    const values = [0, 1, -1, 21.5, -273.15, 1e15, 0.1 + 0.2, 123456789.125]
    await store.write(
      pts(
        t,
        d,
        values.map((v, i) => ['temp', i * 1000, v]),
      ),
    )
    const r = await read(t, d, ['temp'])
    assert.equal(r.get('temp'), { time: values.map((_, i) => BASE + i * 1000), value: values })
  })

  test('strings round trip :: unicode, quotes and SQL-looking text verbatim', async () => {
    const [t, d] = [uid('t'), uid('d')]
    const values = [
      'on',
      'héllo 温度 ✓',
      'a "quoted", \\ back\\slash',
      "x'); DROP TABLE chunks; --",
      'line\nbreak',
      '42',
    ]
    await store.write(
      pts(
        t,
        d,
        values.map((v, i) => ['state', i, v]),
      ),
    )
    const r = await read(t, d, ['state'])
    assert.equal(r.get('state'), { time: values.map((_, i) => BASE + i), value: values })
  })

  test('booleans round trip :: true and false stay booleans', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await store.write(
      pts(t, d, [
        ['on', 0, true],
        ['on', 10, false],
        ['on', 20, true],
      ]),
    )
    const r = await read(t, d, ['on'])
    assert.equal(r.get('on'), { time: [BASE, BASE + 10, BASE + 20], value: [true, false, true] })
  })

  test('types side by side :: each data point keeps its own type', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await store.write(
      pts(t, d, [
        ['n', 5, 1],
        ['s', 5, '1'],
        ['b', 5, true],
        ['n', 6, 0],
        ['s', 6, ''],
        ['b', 6, false],
      ]),
    )
    const r = await read(t, d, ['n', 's', 'b'])
    assert.equal(r.get('n'), { time: [BASE + 5, BASE + 6], value: [1, 0] })
    assert.equal(r.get('s'), { time: [BASE + 5, BASE + 6], value: ['1', ''] })
    assert.equal(r.get('b'), { time: [BASE + 5, BASE + 6], value: [true, false] })
  })

  test('range edges :: start inclusive, end exclusive', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await store.write(
      pts(
        t,
        d,
        [0, 1000, 2000, 3000, 4000].map((dt) => ['x', dt, dt / 1000]),
      ),
    )
    const r = await read(t, d, ['x'], BASE + 1000, BASE + 3000)
    assert.equal(r.get('x'), { time: [BASE + 1000, BASE + 2000], value: [1, 2] })
    const one = await read(t, d, ['x'], BASE + 4000, BASE + 4001)
    assert.equal(one.get('x')!.value, [4])
    const none = await read(t, d, ['x'], BASE + 4001, BASE + 10_000)
    assert.equal(none.get('x'), { time: [], value: [] })
    const empty = await read(t, d, ['x'], BASE + 2000, BASE + 2000)
    assert.equal(empty.get('x'), { time: [], value: [] })
  })

  test('range across days :: values outside are left out, inside all there', async () => {
    const [t, d] = [uid('t'), uid('d')]
    const offsets = [-DAY, -1, 0, HOUR, DAY - 1, DAY, 2 * DAY]
    await store.write(
      pts(
        t,
        d,
        offsets.map((dt, i) => ['x', dt, i]),
      ),
    )
    const r = await read(t, d, ['x'])
    assert.equal(r.get('x'), { time: [BASE, BASE + HOUR, BASE + DAY - 1], value: [2, 3, 4] })
    const all = await read(t, d, ['x'], BASE - 2 * DAY, BASE + 3 * DAY)
    assert.equal(
      all.get('x')!.time,
      offsets.map((dt) => BASE + dt),
    )
  })

  test('unknown data points and devices :: every requested id gets empty arrays', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await store.write(pts(t, d, [['known', 0, 1]]))
    const r = await read(t, d, ['known', 'nope', 'other'])
    assert.equal([...r.keys()], ['known', 'nope', 'other'])
    assert.equal(r.get('nope'), { time: [], value: [] })
    assert.equal(r.get('known')!.value, [1])
    const unknown = await read(t, uid('ghost'), ['known'])
    assert.equal([...unknown.entries()], [['known', { time: [], value: [] }]])
    assert.is((await read(t, d, [])).size, 0)
  })

  test('many series :: 20 devices x 10 data points each read back their own values', async () => {
    const t = uid('t')
    const devices = Array.from({ length: 20 }, (_, i) => `dev-${i}`)
    const dps = Array.from({ length: 10 }, (_, i) => `dp${i}`)
    const points = devices.flatMap((d, di) =>
      pts(
        t,
        d,
        dps.flatMap((dp, pi) =>
          [0, 1, 2].map((k) => [dp, k * 1000, di * 1000 + pi * 10 + k] as [string, number, number]),
        ),
      ),
    )
    await store.write(points)
    for (const [di, d] of devices.entries()) {
      const r = await read(t, d, dps)
      for (const [pi, dp] of dps.entries())
        assert.equal(
          r.get(dp)!.value,
          [0, 1, 2].map((k) => di * 1000 + pi * 10 + k),
          `${d}/${dp}`,
        )
    }
  })

  test('same time written again later :: one value, the last written', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await store.write(
      pts(t, d, [
        ['x', 0, 1],
        ['x', 1000, 2],
        ['s', 0, 'old'],
      ]),
    )
    await store.write(
      pts(t, d, [
        ['x', 1000, 20],
        ['s', 0, 'new'],
      ]),
    )
    await store.write(pts(t, d, [['x', 1000, 200]]))
    const r = await read(t, d, ['x', 's'])
    assert.equal(r.get('x'), { time: [BASE, BASE + 1000], value: [1, 200] })
    assert.equal(r.get('s'), { time: [BASE], value: ['new'] })
  })

  test('same time twice in one call :: the later one in the call wins', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await store.write(
      pts(t, d, [
        ['x', 0, 1],
        ['x', 0, 2],
        ['x', 5, 3],
        ['x', 0, 4],
      ]),
    )
    const r = await read(t, d, ['x'])
    assert.equal(r.get('x'), { time: [BASE, BASE + 5], value: [4, 3] })
  })

  test('out-of-order writes :: read time ascending', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await store.write(
      pts(t, d, [
        ['x', 5000, 5],
        ['x', 1000, 1],
        ['x', 3000, 3],
      ]),
    )
    await store.write(
      pts(t, d, [
        ['x', 4000, 4],
        ['x', 0, 0],
        ['x', HOUR + 2, 9],
      ]),
    )
    await store.write(pts(t, d, [['x', 2000, 2]]))
    const r = await read(t, d, ['x'])
    assert.equal(r.get('x'), {
      time: [0, 1000, 2000, 3000, 4000, 5000, HOUR + 2].map((x) => BASE + x),
      value: [0, 1, 2, 3, 4, 5, 9],
    })
  })

  test('latest :: newest value per data point, older late writes do not replace it', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await store.write(
      pts(t, d, [
        ['a', 0, 1],
        ['a', 2000, 3],
        ['a', 1000, 2],
        ['b', 500, 'x'],
        ['c', 7, true],
      ]),
    )
    let last = await store.latest(t, d)
    assert.equal(Object.fromEntries(last), {
      a: { time: BASE + 2000, value: 3 },
      b: { time: BASE + 500, value: 'x' },
      c: { time: BASE + 7, value: true },
    })
    await store.write(
      pts(t, d, [
        ['a', 1500, 99],
        ['b', 600, 'y'],
      ]),
    )
    await store.write(pts(t, d, [['a', 2000, 4]]))
    last = await store.latest(t, d)
    assert.equal(last.get('a'), { time: BASE + 2000, value: 4 })
    assert.equal(last.get('b'), { time: BASE + 600, value: 'y' })
    assert.is((await store.latest(t, uid('ghost'))).size, 0)
  })

  test('latestOf :: many devices in one call, each as latest(); other tenants and unknown ids absent', async () => {
    const [t, u] = [uid('t'), uid('u')]
    const ids = Array.from({ length: 230 }, (_, i) => uid(`d${i}`))
    await store.write(ids.flatMap((d, i) => pts(t, d, [['a', i, i]])))
    await store.write(pts(u, ids[0]!, [['a', 5000, 'foreign']]))
    await settle() // some values in chunks, newer ones only in memory
    await store.write(
      pts(t, ids[1]!, [
        ['a', 3000, 31],
        ['b', 10, 'x'],
      ]),
    )
    await store.write(pts(t, ids[229]!, [['c', 9, false]]))
    const all = await store.latestOf(t, [...ids, uid('ghost'), ids[0]!])
    assert.is(all.size, 230)
    assert.equal(Object.fromEntries(all.get(ids[0]!)!), { a: { time: BASE, value: 0 } })
    assert.equal(Object.fromEntries(all.get(ids[1]!)!), {
      a: { time: BASE + 3000, value: 31 },
      b: { time: BASE + 10, value: 'x' },
    })
    assert.equal(Object.fromEntries(all.get(ids[229]!)!), {
      a: { time: BASE + 229, value: 229 },
      c: { time: BASE + 9, value: false },
    })
    for (const d of [ids[0]!, ids[1]!, ids[150]!])
      assert.equal(all.get(d), await store.latest(t, d), d)
    const other = await store.latestOf(u, [ids[0]!, ids[1]!])
    assert.equal([...other.keys()], [ids[0]])
    assert.equal(other.get(ids[0]!)!.get('a'), { time: BASE + 5000, value: 'foreign' })
    assert.is((await store.latestOf(t, [])).size, 0)
  })

  test('deleteDevice :: values and latest gone, other devices kept, new writes stored', async () => {
    const [t, d, keep] = [uid('t'), uid('d'), uid('keep')]
    await store.write([
      ...pts(t, d, [
        ['x', 0, 1],
        ['y', 1, 'a'],
      ]),
      ...pts(t, keep, [['x', 0, 5]]),
    ])
    await store.deleteDevice(t, d)
    const r = await read(t, d, ['x', 'y'])
    assert.equal(Object.fromEntries(r), { x: { time: [], value: [] }, y: { time: [], value: [] } })
    assert.is((await store.latest(t, d)).size, 0)
    assert.equal((await read(t, keep, ['x'])).get('x')!.value, [5])
    await store.write(pts(t, d, [['x', 10, 7]]))
    assert.equal((await read(t, d, ['x'])).get('x'), { time: [BASE + 10], value: [7] })
    await store.deleteDevice(t, uid('ghost'))
  })

  test('tenant isolation :: the same deviceID in two tenants never mixes', async () => {
    const [a, b, d] = [uid('ta'), uid('tb'), uid('d')]
    await store.write([
      ...pts(a, d, [
        ['x', 0, 1],
        ['only-a', 0, 'a'],
      ]),
      ...pts(b, d, [['x', 0, 2]]),
    ])
    assert.equal((await read(a, d, ['x'])).get('x')!.value, [1])
    assert.equal((await read(b, d, ['x', 'only-a'])).get('x')!.value, [2])
    assert.equal((await read(b, d, ['only-a'])).get('only-a')!.value, [])
    assert.equal([...(await store.latest(b, d)).keys()], ['x'])
    await store.deleteDevice(a, d)
    assert.equal((await read(b, d, ['x'])).get('x')!.value, [2])
    assert.equal((await read(a, d, ['x'])).get('x')!.value, [])
  })

  test('deleteDevice, then the same deviceID written again :: only the new values answer, also after reopen', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await store.write(
      pts(t, d, [
        ['x', 0, 1],
        ['x', 1000, 2],
        ['y', 0, 'a'],
      ]),
    )
    await settle()
    await store.write(
      pts(t, d, [
        ['x', 2000, 3],
        ['y', HOUR, 'b'],
      ]),
    )
    await store.deleteDevice(t, d)
    await store.write(
      pts(t, d, [
        ['x', 1000, 20],
        ['z', 500, true],
      ]),
    )
    const want = {
      raw: {
        x: { time: [BASE + 1000], value: [20] },
        y: { time: [], value: [] },
        z: { time: [BASE + 500], value: [true] },
      },
      count: 2,
      extent: true,
      sums: {
        x: { time: [BASE], value: [20] },
        y: { time: [], value: [] },
        z: { time: [], value: [] },
      },
      latest: { x: { time: BASE + 1000, value: 20 }, z: { time: BASE + 500, value: true } },
    }
    assert.equal(await everything(t, d, ['x', 'y', 'z']), want, 'new values in memory')
    await settle()
    assert.equal(await everything(t, d, ['x', 'y', 'z']), want, 'settled')
    await store.close()
    store = await open()
    assert.equal(await everything(t, d, ['x', 'y', 'z']), want, 'reopened')
  })

  test("deleteBefore :: a rule deletes its product's older values in its tenant only; younger values, other products and tenants stay", async () => {
    const [t, other, pa, pb] = [uid('t'), uid('t'), uid('pa'), uid('pb')]
    const [d1, d2] = [uid('d1'), uid('d2')]
    const OLD = -DAY + 600_000 // an hour that ends before the limit
    const rows = (tenant: string) =>
      productPts(tenant, [
        [pa, d1, 'temp', OLD, 1],
        [pa, d1, 'temp', OLD + 60_000, 2],
        [pa, d1, 'temp', 0, 3],
        [pa, d1, 'hum', OLD, 40],
        [pb, d2, 'temp', OLD, 5],
        [pb, d2, 'temp', 0, 6],
      ])
    await store.write([...rows(t), ...rows(other)])
    await settle() // the embedded store deletes stored chunks; values still in its memtable wait for their flush
    const limit = BASE - 12 * HOUR
    const n = await store.deleteBefore([{ tenantID: t, productID: pa, before: limit }])
    assert.ok(n === -1 || n === 3, `values deleted: ${n}`)
    const r1 = await everything(t, d1, ['temp', 'hum'])
    assert.equal(r1.raw, {
      temp: { time: [BASE], value: [3] },
      hum: { time: [], value: [] },
    })
    assert.equal(r1.latest, { temp: { time: BASE, value: 3 } })
    assert.equal(
      (await everything(t, d2, ['temp'])).raw.temp,
      { time: [BASE + OLD, BASE], value: [5, 6] },
      'another product of the tenant keeps its values',
    )
    assert.equal(
      (await everything(other, d1, ['temp'])).raw.temp,
      { time: [BASE + OLD, BASE + OLD + 60_000, BASE], value: [1, 2, 3] },
      'the same product id in another tenant keeps its values',
    )
    assert.is(await store.deleteBefore([]), 0, 'no rule: nothing to do')
  })

  test('deleteDataPoint :: that point of every device of that product goes; other points, products and tenants stay', async () => {
    const [t, other, pa, pb] = [uid('t'), uid('t'), uid('pa'), uid('pb')]
    const [d1, d2, d3] = [uid('d1'), uid('d2'), uid('d3')]
    const first = (tenant: string) =>
      productPts(tenant, [
        [pa, d1, 'temp', 0, 1],
        [pa, d1, 'hum', 0, 50],
        [pa, d2, 'temp', 0, 2],
        [pb, d3, 'temp', 0, 3],
      ])
    await store.write([...first(t), ...first(other)])
    await settle()
    // a second chunk of the same hours, merged by the next settle; then values only in memory (write-ahead log)
    await store.write(
      productPts(t, [
        [pa, d1, 'temp', 1000, 11],
        [pa, d2, 'temp', HOUR, 12],
      ]),
    )
    await settle()
    await store.write([
      ...productPts(t, [
        [pa, d1, 'temp', 2000, 21],
        [pa, d1, 'hum', 2000, 51],
        [pa, d2, 'temp', 2000, 22],
        [pb, d3, 'temp', 2000, 23],
      ]),
      ...productPts(other, [[pa, d1, 'temp', 2000, 31]]),
    ])
    await store.deleteDataPoint(t, pa, 'temp')
    const none = { time: [], value: [] }
    const check = async (when: string) => {
      assert.equal(
        await everything(t, d1, ['temp', 'hum']),
        {
          raw: { temp: none, hum: { time: [BASE, BASE + 2000], value: [50, 51] } },
          count: 2,
          extent: true,
          sums: { temp: none, hum: { time: [BASE], value: [101] } },
          latest: { hum: { time: BASE + 2000, value: 51 } },
        },
        `${when}: d1 keeps hum only`,
      )
      assert.equal(
        await everything(t, d2, ['temp']),
        { raw: { temp: none }, count: 0, extent: false, sums: { temp: none }, latest: {} },
        `${when}: d2 has nothing left`,
      )
      assert.equal(
        (await everything(t, d3, ['temp'])).raw.temp,
        { time: [BASE, BASE + 2000], value: [3, 23] },
        `${when}: the same dataPointID of another product stays`,
      )
      assert.equal(
        (await everything(other, d1, ['temp'])).latest,
        { temp: { time: BASE + 2000, value: 31 }, hum: { time: BASE, value: 50 } },
        `${when}: another tenant's product of the same ids stays`,
      )
      assert.equal(
        (await read(other, d2, ['temp'])).get('temp'),
        { time: [BASE], value: [2] },
        `${when}: another tenant's device stays`,
      )
    }
    await check('in memory')
    await settle()
    await check('settled')
    await store.write(productPts(t, [[pa, d1, 'temp', 3000, 41]]))
    assert.equal((await read(t, d1, ['temp'])).get('temp'), { time: [BASE + 3000], value: [41] })
    assert.equal((await store.latest(t, d1)).get('temp'), { time: BASE + 3000, value: 41 })
    assert.is((await read(t, d2, ['temp'])).get('temp')!.time.length, 0)
    await store.deleteDataPoint(t, uid('nope'), 'temp')
    await store.deleteDataPoint(uid('t'), pa, 'temp')
    await store.deleteDataPoint(t, pa, 'never-written')
    assert.equal((await read(t, d3, ['temp'])).get('temp')!.value, [3, 23])
  })

  test('deleteDataPoint of values only in memory, then close and reopen :: they stay deleted, the rest survives', async () => {
    const [t, p, d] = [uid('t'), uid('p'), uid('d')]
    await store.write(
      productPts(t, [
        [p, d, 'x', 0, 1],
        [p, d, 'x', 1000, 2],
        [p, d, 'y', 0, 'kept'],
      ]),
    )
    await store.deleteDataPoint(t, p, 'x')
    await store.close()
    store = await open()
    assert.equal(Object.fromEntries(await read(t, d, ['x', 'y'])), {
      x: { time: [], value: [] },
      y: { time: [BASE], value: ['kept'] },
    })
    assert.equal(Object.fromEntries(await store.latest(t, d)), {
      y: { time: BASE, value: 'kept' },
    })
  })

  test('a day at 1 Hz (86,400 values) :: read back complete and in order', async () => {
    const [t, d] = [uid('t'), uid('d')]
    const n = 86_400
    for (let s = 0; s < n; s += 5000) {
      const rows = Array.from(
        { length: Math.min(5000, n - s) },
        (_, i) => ['v', (s + i) * 1000, (s + i) % 1000] as [string, number, number],
      )
      await store.write(pts(t, d, rows))
    }
    const r = (await read(t, d, ['v'])).get('v')!
    assert.is(r.time.length, n)
    assert.is(r.value.length, n)
    let ok = true
    for (let i = 0; i < n && ok; i++) ok = r.time[i] === BASE + i * 1000 && r.value[i] === i % 1000
    assert.ok(ok, 'every time and value in place')
  })

  test('concurrent writes :: all stored', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await Promise.all(
      Array.from({ length: 20 }, (_, k) =>
        store.write(
          pts(
            t,
            d,
            [0, 1, 2].map((i) => ['x', k * 10 + i, k * 10 + i]),
          ),
        ),
      ),
    )
    const r = (await read(t, d, ['x'])).get('x')!
    assert.equal(
      r.value,
      Array.from({ length: 60 }, (_, i) => Math.floor(i / 3) * 10 + (i % 3)),
    )
    await store.write([])
  })

  test('close and reopen :: values and latest survive', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await store.write(
      pts(t, d, [
        ['x', 0, 1.25],
        ['x', 1000, 2.5],
        ['s', 0, 'kept'],
        ['b', 0, false],
      ]),
    )
    await store.close()
    store = await open()
    const r = await read(t, d, ['x', 's', 'b'])
    assert.equal(r.get('x'), { time: [BASE, BASE + 1000], value: [1.25, 2.5] })
    assert.equal(r.get('s')!.value, ['kept'])
    assert.equal(r.get('b')!.value, [false])
    assert.equal((await store.latest(t, d)).get('x'), { time: BASE + 1000, value: 2.5 })
  })

  // ---- aggregates, counts and streams ----------------------------------------------------------------------

  const MIN = 60_000
  /** Writes [time, value] pairs of one data point at absolute times; returns the range helper. */
  const writeAt = async (t: string, d: string, dp: string, rows: Array<[number, TelemetryValue]>) =>
    store.write(
      rows.map(([time, value]) => ({
        tenantID: t,
        productID: 'p1',
        deviceID: d,
        dataPointID: dp,
        time,
        value,
      })),
    )
  const agg = (
    t: string,
    d: string,
    dps: string[],
    start: number,
    end: number,
    fn: 'max' | 'min' | 'mean' | 'sum',
    every: string,
    tz = 'UTC',
  ) =>
    store.aggregate({ tenantID: t, deviceID: d, dataPointIDs: dps, start, end }, fn, { every, tz })

  test('aggregate 1h in UTC :: max, min, mean, sum of hand-computed windows, labelled by start, empty omitted', async () => {
    const [t, d] = [uid('t'), uid('d')]
    // hour 0: 1, 2, 6 | hour 1: nothing | hour 2: -4, 10.5 | a string and a boolean in hour 0 are ignored
    await writeAt(t, d, 'x', [
      [BASE, 1],
      [BASE + 20 * MIN, 2],
      [BASE + 59 * MIN, 6],
      [BASE + 2 * HOUR, -4],
      [BASE + 2 * HOUR + 1, 10.5],
    ])
    await writeAt(t, d, 'y', [
      [BASE + 5 * MIN, 'on'],
      [BASE + 6 * MIN, true],
    ])
    const range = [BASE, BASE + 3 * HOUR] as const
    const expect = { max: [6, 10.5], min: [1, -4], mean: [3, 3.25], sum: [9, 6.5] } as const
    for (const fn of ['max', 'min', 'mean', 'sum'] as const) {
      const r = await agg(t, d, ['x', 'y', 'none'], ...range, fn, '1h')
      assert.equal(r.get('x'), { time: [BASE, BASE + 2 * HOUR], value: [...expect[fn]] }, fn)
      assert.equal(r.get('y'), { time: [], value: [] }, `${fn}: non-numeric values ignored`)
      assert.equal(r.get('none'), { time: [], value: [] })
    }
  })

  test('aggregate windows :: 15m windows on the quarter hours; a range starting mid-window labels its true start', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await writeAt(t, d, 'x', [
      [BASE + 10 * MIN, 1],
      [BASE + 14 * MIN, 3],
      [BASE + 15 * MIN, 5],
      [BASE + 44 * MIN, 7],
      [BASE + 45 * MIN, 9],
    ])
    const r = await agg(t, d, ['x'], BASE + 12 * MIN, BASE + HOUR, 'sum', '15m')
    assert.equal(r.get('x'), {
      time: [BASE, BASE + 15 * MIN, BASE + 30 * MIN, BASE + 45 * MIN],
      value: [3, 5, 7, 9],
    })
  })

  test('aggregate 1h in Asia/Kolkata :: windows start at local full hours (UTC :30)', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await writeAt(t, d, 'x', [
      [BASE + 10 * MIN, 1],
      [BASE + 29 * MIN, 2],
      [BASE + 30 * MIN, 3],
      [BASE + 89 * MIN, 4],
      [BASE + 90 * MIN, 5],
    ])
    const r = await agg(t, d, ['x'], BASE, BASE + 3 * HOUR, 'sum', '1h', 'Asia/Kolkata')
    assert.equal(r.get('x'), {
      time: [BASE - 30 * MIN, BASE + 30 * MIN, BASE + 90 * MIN],
      value: [3, 7, 5],
    })
  })

  // 2026-03-29 (23 h) and 2026-10-25 (25 h) in Europe/Berlin: a value every 30 minutes from 3 h before the local
  // midnight starting the day to 2 h after the one ending it
  for (const [day, start, hours] of [
    ['2026-03-29', '2026-03-28T23:00:00Z', 23],
    ['2026-10-25', '2026-10-24T22:00:00Z', 25],
  ] as const) {
    test(`aggregate 1d across DST in Europe/Berlin :: ${day} is ${hours} hours long`, async () => {
      const [t, d] = [uid('t'), uid('d')]
      const midnight = Date.parse(start)
      const next = midnight + hours * HOUR
      const [from, to] = [midnight - 3 * HOUR, next + 2 * HOUR]
      const rows: Array<[number, number]> = []
      for (let time = from; time < to; time += 30 * MIN) rows.push([time, 1])
      await writeAt(t, d, 'x', rows)
      const r = await agg(t, d, ['x'], from, to, 'sum', '1d', 'Europe/Berlin')
      assert.equal(
        r.get('x'),
        { time: [midnight - DAY, midnight, next], value: [6, hours * 2, 4] },
        'labels: local midnights',
      )
    })
  }

  test('aggregate 1h across the autumn change in Europe/Berlin :: the repeated local hour 02:00 holds two real hours', async () => {
    const [t, d] = [uid('t'), uid('d')]
    const from = Date.parse('2026-10-24T22:00:00Z')
    const rows: Array<[number, number]> = []
    for (let i = 0; i < 5 * 6; i++) rows.push([from + i * 10 * MIN, 1])
    await writeAt(t, d, 'x', rows)
    const r = await agg(t, d, ['x'], from, from + 5 * HOUR, 'sum', '1h', 'Europe/Berlin')
    assert.equal(r.get('x'), {
      time: [from, from + HOUR, from + 2 * HOUR, from + 4 * HOUR],
      value: [6, 6, 12, 6],
    })
  })

  test('aggregate 1mo in Europe/Berlin :: windows at local first days of months', async () => {
    const [t, d] = [uid('t'), uid('d')]
    const feb1 = Date.parse('2026-01-31T23:00:00Z')
    const mar1 = Date.parse('2026-02-28T23:00:00Z')
    const apr1 = Date.parse('2026-03-31T22:00:00Z')
    await writeAt(t, d, 'x', [
      [feb1, 4],
      [feb1 + DAY, 8],
      [mar1 - 1, 99],
      [mar1, 1],
      [apr1 - 1, 3],
      [apr1, 50],
    ])
    const r = await agg(t, d, ['x'], feb1, apr1 + DAY, 'max', '1mo', 'Europe/Berlin')
    assert.equal(r.get('x'), { time: [feb1, mar1, apr1], value: [99, 3, 50] })
    const m = await agg(t, d, ['x'], feb1, apr1 + DAY, 'mean', '1mo', 'Europe/Berlin')
    assert.equal(m.get('x')!.value, [37, 2, 50])
  })

  test('aggregate of an empty range or unknown device :: empty series, not an error', async () => {
    const [t, d] = [uid('t'), uid('d')]
    const r = await agg(t, d, ['x', 'y'], BASE, BASE + DAY, 'mean', '1h')
    assert.equal(
      [...r.entries()],
      [
        ['x', { time: [], value: [] }],
        ['y', { time: [], value: [] }],
      ],
    )
  })

  test('count :: values in [start, end) of the requested data points together', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await writeAt(
      t,
      d,
      'x',
      Array.from({ length: 100 }, (_, i) => [BASE + i * 60_000, i] as [number, number]),
    )
    await writeAt(
      t,
      d,
      'y',
      Array.from({ length: 50 }, (_, i) => [BASE + i * 60_000, `s${i}`] as [number, string]),
    )
    const range = (dps: string[], start: number, end: number) => ({
      tenantID: t,
      deviceID: d,
      dataPointIDs: dps,
      start,
      end,
    })
    assert.is(await store.count(range(['x', 'y'], BASE, BASE + DAY)), 150)
    assert.is(await store.count(range(['x'], BASE + 10 * MIN, BASE + 20 * MIN)), 10)
    assert.is(await store.count(range(['y', 'nope'], BASE + 40 * MIN, BASE + DAY)), 10)
    assert.is(await store.count(range(['x'], BASE + DAY, BASE + 2 * DAY)), 0)
    assert.is(
      await store.count({ ...range(['x'], BASE, BASE + DAY), tenantID: uid('t') }),
      0,
      'another tenant sees nothing',
    )
  })

  test('stream :: every value once, data point by data point, time ascending, in bounded slices', async () => {
    const [t, d] = [uid('t'), uid('d')]
    const n = 3 * 24 * 60
    await writeAt(
      t,
      d,
      'x',
      Array.from({ length: n }, (_, i) => [BASE - DAY + i * MIN, i] as [number, number]),
    )
    await writeAt(t, d, 'y', [
      [BASE, 'a'],
      [BASE + 1, 'b'],
    ])
    const seen: Array<[string, number, number]> = []
    let x = 0
    let last = -Infinity
    for await (const s of store.stream({
      tenantID: t,
      deviceID: d,
      dataPointIDs: ['x', 'y', 'z'],
      start: BASE - DAY,
      end: BASE + 2 * DAY,
    })) {
      seen.push([s.dataPointID, s.time.length, s.value.length])
      assert.ok(s.time.length <= 86_400 * 1.01, 'a slice is bounded')
      if (s.dataPointID === 'x') {
        for (const tm of s.time) {
          assert.ok(tm > last, 'ascending')
          last = tm
        }
        x += s.time.length
      }
    }
    assert.is(x, n)
    assert.equal(
      seen.filter(([dp]) => dp !== 'x'),
      [['y', 2, 2]],
    )
    assert.equal(
      seen.map(([dp]) => dp),
      [...seen.filter(([dp]) => dp === 'x').map(() => 'x'), 'y'],
    )
  })

  test("downsample :: a point over maxPoints keeps each bucket's min and max (first and last for strings), others whole", async () => {
    const [t, d] = [uid('t'), uid('d')]
    const n = 5000
    // distinct values (no ties), with a spike and a dip; strings every 7 s; a short series
    const x = Array.from(
      { length: n },
      (_, i) =>
        [
          BASE + i * 1000,
          i === 1234 ? 1e6 : i === 4321 ? -1e6 : Math.sin(i / 37) * 100 + i / 1e4,
        ] as [number, number],
    )
    const s = Array.from({ length: 600 }, (_, i) => [BASE + i * 7000, `s${i}`] as [number, string])
    await writeAt(t, d, 'x', x)
    await writeAt(t, d, 's', s)
    await writeAt(t, d, 'few', [
      [BASE + 5, 1],
      [BASE + 6, 2],
      [BASE + 7, 3],
    ])
    const start = BASE - 500
    const end = BASE + n * 1000 + 333
    const maxPoints = 101
    const r = await store.downsample(
      { tenantID: t, deviceID: d, dataPointIDs: ['x', 's', 'few', 'none'], start, end },
      maxPoints,
    )
    // the reference: at most 50 buckets; (end - start) / 50 is 100.02 s, rounded up to whole minutes: buckets of
    // 2 minutes aligned to even UTC minutes (43 of them)
    const expect = (
      rows: Array<[number, TelemetryValue]>,
      numeric: boolean,
      key = (t: number) => Math.floor(t / 120_000),
    ) => {
      const buckets = new Map<number, Array<[number, TelemetryValue]>>()
      for (const row of rows) {
        const k = key(row[0])
        buckets.set(k, [...(buckets.get(k) ?? []), row])
      }
      const kept: Array<[number, TelemetryValue]> = []
      for (const rowsOf of buckets.values()) {
        if (numeric) {
          const lo = rowsOf.reduce((a, b) => ((b[1] as number) < (a[1] as number) ? b : a))
          const hi = rowsOf.reduce((a, b) => ((b[1] as number) > (a[1] as number) ? b : a))
          kept.push(lo, ...(hi === lo ? [] : [hi]))
        } else kept.push(rowsOf[0]!, ...(rowsOf.length > 1 ? [rowsOf[rowsOf.length - 1]!] : []))
      }
      kept.sort((a, b) => a[0] - b[0])
      return { time: kept.map((k) => k[0]), value: kept.map((k) => k[1]) }
    }
    assert.equal(r.get('x'), expect(x, true))
    assert.ok(
      r.get('x')!.time.length <= maxPoints &&
        r.get('x')!.value.includes(1e6) &&
        r.get('x')!.value.includes(-1e6),
    )
    assert.equal(r.get('s'), expect(s, false))
    assert.equal(r.get('few'), { time: [BASE + 5, BASE + 6, BASE + 7], value: [1, 2, 3] })
    assert.equal(r.get('none'), { time: [], value: [] })
    // buckets narrower than a minute: 5 of equal milliseconds from the range's start
    const shortEnd = BASE + 20_333
    const short = await store.downsample(
      { tenantID: t, deviceID: d, dataPointIDs: ['x'], start, end: shortEnd },
      10,
    )
    const width = Math.ceil((shortEnd - start) / 5)
    assert.equal(
      short.get('x'),
      expect(
        x.filter(([time]) => time < shortEnd),
        true,
        (time) => Math.floor((time - start) / width),
      ),
    )
  })

  test('extent :: a part of the range holding every value, none for empty points; long ranges read only that part', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await writeAt(t, d, 'x', [
      [BASE + 5 * MIN, 1],
      [BASE + 3 * HOUR, 2],
      [BASE + 3 * HOUR + 1, 'late'],
    ])
    const range = (dps: string[], start: number, end: number) => ({
      tenantID: t,
      deviceID: d,
      dataPointIDs: dps,
      start,
      end,
    })
    const e = await store.extent(range(['x', 'y'], BASE - 10 * DAY, BASE + 10 * DAY))
    assert.ok(e && e.start <= BASE + 5 * MIN && e.end > BASE + 3 * HOUR + 1, JSON.stringify(e))
    assert.ok(e.start >= BASE - 10 * DAY && e.end <= BASE + 10 * DAY)
    assert.is(await store.extent(range(['y'], BASE - DAY, BASE + DAY)), undefined)
    assert.is(await store.extent(range(['x'], BASE + 4 * HOUR, BASE + DAY)), undefined)
    const clipped = await store.extent(range(['x'], BASE + HOUR, BASE + DAY))
    assert.ok(
      clipped && clipped.start >= BASE + HOUR && clipped.start <= BASE + 3 * HOUR,
      JSON.stringify(clipped),
    )
    // 130 years: the stream and a monthly aggregate touch only the part with values
    const all = range(['x', 'y'], 0, Date.parse('2100-01-01'))
    const slices: Array<[string, number]> = []
    for await (const sl of store.stream(all)) slices.push([sl.dataPointID, sl.time.length])
    assert.equal(slices, [['x', 3]])
    const monthly = await store.aggregate(all, 'sum', { every: '1mo', tz: 'UTC' })
    assert.equal(monthly.get('x')!.value, [3])
  })

  test('rollups :: aggregates and downsamples equal the raw reference, written fresh and settled (rollups built)', async () => {
    const [t, d] = [uid('t'), uid('d')]
    // 2 days every 37 s, whole numbers (sums exact in any order), a few strings in one hour of `mixed`
    const from = BASE - 12 * HOUR
    const rows = Array.from(
      { length: Math.floor((48 * HOUR) / 37_000) },
      (_, i) => [from + i * 37_000, ((i * 7919) % 1000) - 500] as [number, TelemetryValue],
    )
    const mixed = rows.map(
      ([time, v], i) =>
        [time, time >= BASE + 5 * HOUR && time < BASE + 6 * HOUR && i % 5 === 0 ? `s${i}` : v] as [
          number,
          TelemetryValue,
        ],
    )
    await writeAt(t, d, 'x', rows)
    await writeAt(t, d, 'mixed', mixed)
    const dps = ['x', 'mixed']
    const ranges = [
      [from, from + 48 * HOUR],
      [from + 12_345, from + 48 * HOUR - 777],
      [BASE + 5 * HOUR + 30_001, BASE + 7 * HOUR + 59_999],
    ] as const
    const check = async (label: string) => {
      for (const [start, end] of ranges) {
        const r = { tenantID: t, deviceID: d, dataPointIDs: dps, start, end }
        const raw = await store.readRaw(r)
        for (const every of ['1m', '90s', '7m', '1h', '6h', '1d'])
          for (const fn of ['max', 'min', 'mean', 'sum'] as const) {
            const got = await store.aggregate(r, fn, { every, tz: 'UTC' })
            const bounds = windowBounds(start, end, every, 'UTC')
            for (const dp of dps) {
              const want = aggregateSorted(raw.get(dp)!.time, raw.get(dp)!.value, bounds, fn)
              const g = got.get(dp)!
              assert.equal(
                { time: g.time, value: g.value },
                want,
                `${label}: ${fn} ${every} ${dp} ${start}`,
              )
            }
          }
        for (const maxPoints of [4, 20, 100, 500, 5000]) {
          const got = await store.downsample(r, maxPoints, 'UTC')
          // (a point mixing numbers and strings in one bucket is kept differently by InfluxDB: not compared here)
          for (const dp of ['x']) {
            const want = downsampleRaw(raw.get(dp)!, start, end, maxPoints, 'UTC')
            const g = got.get(dp)!
            assert.equal(
              { time: g.time, value: g.value },
              { time: want.time, value: want.value },
              `${label}: maxPoints ${maxPoints} ${dp} ${start}`,
            )
          }
        }
      }
    }
    await check('fresh')
    await settle()
    await check('settled')
    // a late value inside a rolled-up hour answers at once, and after settling again
    await writeAt(t, d, 'x', [[BASE + 3 * HOUR + 1, 99_999]])
    await check('late write')
    await settle()
    await check('late write settled')
  })

  test('rollups :: once settled, answers name the tier that served them; with the raw values gone (retention) rollups give the same answers', async () => {
    const [t, d] = [uid('t'), uid('d')]
    const from = BASE - DAY
    const rows = Array.from(
      { length: 24 * 60 },
      (_, i) => [from + i * 60_000 + 7_000, (i * 37) % 101] as [number, TelemetryValue],
    )
    await writeAt(t, d, 'x', rows)
    await settle()
    const r = { tenantID: t, deviceID: d, dataPointIDs: ['x'], start: from, end: from + DAY }
    const answers = async () => ({
      hours: (await store.aggregate(r, 'max', { every: '1h', tz: 'UTC' })).get('x')!,
      days: (await store.aggregate(r, 'sum', { every: '1d', tz: 'UTC' })).get('x')!,
      chart: (await store.downsample(r, 100, 'UTC')).get('x')!, // 29- or 30-minute buckets
      few: (await store.downsample(r, 6, 'UTC')).get('x')!, // 8-hour buckets
    })
    const before = await answers()
    assert.is(before.hours.resolution, '1h')
    assert.is(before.hours.time.length, 24)
    assert.ok(['1h', '1d'].includes(before.days.resolution!), before.days.resolution)
    assert.is(
      before.days.value.reduce((a: number, b) => a + Number(b), 0),
      rows.reduce((a, [, v]) => a + (v as number), 0),
    )
    assert.is(before.chart.resolution, '1m')
    // the buckets of the reference downsample of the values written (29 or 30 minutes, by where the day falls)
    const reference = downsampleRaw(
      { time: rows.map(([time]) => time), value: rows.map(([, v]) => v) },
      from,
      from + DAY,
      100,
      'UTC',
    )
    assert.equal({ time: before.chart.time, value: before.chart.value }, reference)
    assert.is(before.few.resolution, '1h')
    // the product's raw values go; the rollups stay (RETENTION_ROLLUP_DAYS 0)
    await store.deleteBefore([{ tenantID: t, productID: 'p1', before: from + DAY + HOUR }])
    await settle()
    assert.equal((await store.readRaw(r)).get('x'), { time: [], value: [] })
    assert.equal(await answers(), before)
    // then the rollups of that day go too
    await store.deleteBefore([], undefined, from + 3 * DAY)
    const gone = await answers()
    assert.equal(gone.hours, { time: [], value: [] })
    assert.equal(gone.chart, { time: [], value: [] })
  })

  groupCases(test, () => store, settle)

  test.run()
}
