/**
 * The TelemetryStore contract (store/telemetry.ts): every implementation runs these suites.
 *
 * `open()` returns a store on the SAME persistent storage every time it is called (a file, a bucket); cases
 * never keep two stores open at once and use fresh random tenant ids, so storage shared between cases and
 * runs does no harm. Nothing here depends on timing beyond what the port promises: once write() (or
 * deleteDevice()) resolves, reads see its effect.
 */
import { randomUUID } from 'node:crypto'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { TelemetryPoint, TelemetryStore, TelemetryValue } from '../../store/telemetry.ts'

export interface ContractOptions {
  /** Skip every case (e.g. no InfluxDB reachable), naming why. */
  skip?: string
}

const HOUR = 3_600_000
const DAY = 24 * HOUR
/** Two days ago, on an hour boundary: recent enough for any retention, past enough for any compaction. */
const BASE = Math.floor(Date.now() / HOUR) * HOUR - 2 * DAY

const uid = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`

/** Points of one device: [dataPointID, time offset from BASE, value]. */
function pts(tenantID: string, deviceID: string, rows: Array<[string, number, TelemetryValue]>): TelemetryPoint[] {
  return rows.map(([dataPointID, dt, value]) => ({ tenantID, productID: 'p1', deviceID, dataPointID, time: BASE + dt, value }))
}

export function telemetryContract(name: string, open: () => Promise<TelemetryStore>, opts: ContractOptions = {}) {
  const test = suite(`telemetry contract: ${name}`)
  let store: TelemetryStore

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

  const read = (tenantID: string, deviceID: string, dataPointIDs: string[], start = BASE, end = BASE + DAY) =>
    store.readRaw({ tenantID, deviceID, dataPointIDs, start, end })

  test('numbers round trip :: same values and times, numbers stay numbers', async () => {
    const [t, d] = [uid('t'), uid('d')]
    const values = [0, 1, -1, 21.5, -273.15, 1e15, 0.1 + 0.2, 123456789.125]
    await store.write(pts(t, d, values.map((v, i) => ['temp', i * 1000, v])))
    const r = await read(t, d, ['temp'])
    assert.equal(r.get('temp'), { time: values.map((_, i) => BASE + i * 1000), value: values })
  })

  test('strings round trip :: unicode, quotes and SQL-looking text verbatim', async () => {
    const [t, d] = [uid('t'), uid('d')]
    const values = ['on', 'héllo 温度 ✓', 'a "quoted", \\ back\\slash', "x'); DROP TABLE chunks; --", 'line\nbreak', '42']
    await store.write(pts(t, d, values.map((v, i) => ['state', i, v])))
    const r = await read(t, d, ['state'])
    assert.equal(r.get('state'), { time: values.map((_, i) => BASE + i), value: values })
  })

  test('booleans round trip :: true and false stay booleans', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await store.write(pts(t, d, [['on', 0, true], ['on', 10, false], ['on', 20, true]]))
    const r = await read(t, d, ['on'])
    assert.equal(r.get('on'), { time: [BASE, BASE + 10, BASE + 20], value: [true, false, true] })
  })

  test('types side by side :: each data point keeps its own type', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await store.write(pts(t, d, [['n', 5, 1], ['s', 5, '1'], ['b', 5, true], ['n', 6, 0], ['s', 6, ''], ['b', 6, false]]))
    const r = await read(t, d, ['n', 's', 'b'])
    assert.equal(r.get('n'), { time: [BASE + 5, BASE + 6], value: [1, 0] })
    assert.equal(r.get('s'), { time: [BASE + 5, BASE + 6], value: ['1', ''] })
    assert.equal(r.get('b'), { time: [BASE + 5, BASE + 6], value: [true, false] })
  })

  test('range edges :: start inclusive, end exclusive', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await store.write(pts(t, d, [0, 1000, 2000, 3000, 4000].map((dt) => ['x', dt, dt / 1000])))
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
    await store.write(pts(t, d, offsets.map((dt, i) => ['x', dt, i])))
    const r = await read(t, d, ['x'])
    assert.equal(r.get('x'), { time: [BASE, BASE + HOUR, BASE + DAY - 1], value: [2, 3, 4] })
    const all = await read(t, d, ['x'], BASE - 2 * DAY, BASE + 3 * DAY)
    assert.equal(all.get('x')!.time, offsets.map((dt) => BASE + dt))
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
      pts(t, d, dps.flatMap((dp, pi) => [0, 1, 2].map((k) => [dp, k * 1000, di * 1000 + pi * 10 + k] as [string, number, number]))))
    await store.write(points)
    for (const [di, d] of devices.entries()) {
      const r = await read(t, d, dps)
      for (const [pi, dp] of dps.entries()) assert.equal(r.get(dp)!.value, [0, 1, 2].map((k) => di * 1000 + pi * 10 + k), `${d}/${dp}`)
    }
  })

  test('same time written again later :: one value, the last written', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await store.write(pts(t, d, [['x', 0, 1], ['x', 1000, 2], ['s', 0, 'old']]))
    await store.write(pts(t, d, [['x', 1000, 20], ['s', 0, 'new']]))
    await store.write(pts(t, d, [['x', 1000, 200]]))
    const r = await read(t, d, ['x', 's'])
    assert.equal(r.get('x'), { time: [BASE, BASE + 1000], value: [1, 200] })
    assert.equal(r.get('s'), { time: [BASE], value: ['new'] })
  })

  test('same time twice in one call :: the later one in the call wins', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await store.write(pts(t, d, [['x', 0, 1], ['x', 0, 2], ['x', 5, 3], ['x', 0, 4]]))
    const r = await read(t, d, ['x'])
    assert.equal(r.get('x'), { time: [BASE, BASE + 5], value: [4, 3] })
  })

  test('out-of-order writes :: read time ascending', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await store.write(pts(t, d, [['x', 5000, 5], ['x', 1000, 1], ['x', 3000, 3]]))
    await store.write(pts(t, d, [['x', 4000, 4], ['x', 0, 0], ['x', HOUR + 2, 9]]))
    await store.write(pts(t, d, [['x', 2000, 2]]))
    const r = await read(t, d, ['x'])
    assert.equal(r.get('x'), { time: [0, 1000, 2000, 3000, 4000, 5000, HOUR + 2].map((x) => BASE + x), value: [0, 1, 2, 3, 4, 5, 9] })
  })

  test('latest :: newest value per data point, older late writes do not replace it', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await store.write(pts(t, d, [['a', 0, 1], ['a', 2000, 3], ['a', 1000, 2], ['b', 500, 'x'], ['c', 7, true]]))
    let last = await store.latest(t, d)
    assert.equal(Object.fromEntries(last), { a: { time: BASE + 2000, value: 3 }, b: { time: BASE + 500, value: 'x' }, c: { time: BASE + 7, value: true } })
    await store.write(pts(t, d, [['a', 1500, 99], ['b', 600, 'y']]))
    await store.write(pts(t, d, [['a', 2000, 4]]))
    last = await store.latest(t, d)
    assert.equal(last.get('a'), { time: BASE + 2000, value: 4 })
    assert.equal(last.get('b'), { time: BASE + 600, value: 'y' })
    assert.is((await store.latest(t, uid('ghost'))).size, 0)
  })

  test('deleteDevice :: values and latest gone, other devices kept, new writes stored', async () => {
    const [t, d, keep] = [uid('t'), uid('d'), uid('keep')]
    await store.write([...pts(t, d, [['x', 0, 1], ['y', 1, 'a']]), ...pts(t, keep, [['x', 0, 5]])])
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
    await store.write([...pts(a, d, [['x', 0, 1], ['only-a', 0, 'a']]), ...pts(b, d, [['x', 0, 2]])])
    assert.equal((await read(a, d, ['x'])).get('x')!.value, [1])
    assert.equal((await read(b, d, ['x', 'only-a'])).get('x')!.value, [2])
    assert.equal((await read(b, d, ['only-a'])).get('only-a')!.value, [])
    assert.equal([...(await store.latest(b, d)).keys()], ['x'])
    await store.deleteDevice(a, d)
    assert.equal((await read(b, d, ['x'])).get('x')!.value, [2])
    assert.equal((await read(a, d, ['x'])).get('x')!.value, [])
  })

  test('a day at 1 Hz (86,400 values) :: read back complete and in order', async () => {
    const [t, d] = [uid('t'), uid('d')]
    const n = 86_400
    for (let s = 0; s < n; s += 5000) {
      const rows = Array.from({ length: Math.min(5000, n - s) }, (_, i) => ['v', (s + i) * 1000, (s + i) % 1000] as [string, number, number])
      await store.write(pts(t, d, rows))
    }
    const r = (await read(t, d, ['v']))!.get('v')!
    assert.is(r.time.length, n)
    assert.is(r.value.length, n)
    let ok = true
    for (let i = 0; i < n && ok; i++) ok = r.time[i] === BASE + i * 1000 && r.value[i] === i % 1000
    assert.ok(ok, 'every time and value in place')
  })

  test('concurrent writes :: all stored', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await Promise.all(Array.from({ length: 20 }, (_, k) => store.write(pts(t, d, [0, 1, 2].map((i) => ['x', k * 10 + i, k * 10 + i])))))
    const r = (await read(t, d, ['x'])).get('x')!
    assert.equal(r.value, Array.from({ length: 60 }, (_, i) => Math.floor(i / 3) * 10 + (i % 3)))
    await store.write([])
  })

  test('close and reopen :: values and latest survive', async () => {
    const [t, d] = [uid('t'), uid('d')]
    await store.write(pts(t, d, [['x', 0, 1.25], ['x', 1000, 2.5], ['s', 0, 'kept'], ['b', 0, false]]))
    await store.close()
    store = await open()
    const r = await read(t, d, ['x', 's', 'b'])
    assert.equal(r.get('x'), { time: [BASE, BASE + 1000], value: [1.25, 2.5] })
    assert.equal(r.get('s')!.value, ['kept'])
    assert.equal(r.get('b')!.value, [false])
    assert.equal((await store.latest(t, d)).get('x'), { time: BASE + 1000, value: 2.5 })
  })

  test.run()
}
