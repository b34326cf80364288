import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { EventBus } from '../../src/kernel/events.ts'
import { LatestValuesCache } from '../../ingest/latest.ts'
import type { LastValue, TelemetryPoint } from '../../store/telemetry.ts'

/** A telemetry store whose latest() and latestOf() answer `stored` and count their reads. */
function storeOf(stored: Record<string, Record<string, LastValue>> = {}) {
  const reads: string[] = []
  const of = (tenantID: string, deviceID: string) =>
    new Map(Object.entries(stored[`${tenantID}/${deviceID}`] ?? {}))
  return {
    reads,
    async latest(tenantID: string, deviceID: string) {
      reads.push(`${tenantID}/${deviceID}`)
      return of(tenantID, deviceID)
    },
    async latestOf(tenantID: string, deviceIDs: readonly string[]) {
      reads.push(`${tenantID}/[${deviceIDs.join(',')}]`)
      return new Map(
        deviceIDs.flatMap((d) => (of(tenantID, d).size ? [[d, of(tenantID, d)] as const] : [])),
      )
    },
  }
}

const point = (
  deviceID: string,
  dataPointID: string,
  time: number,
  over: Partial<TelemetryPoint> = {},
): TelemetryPoint => ({
  tenantID: 'T1',
  productID: 'P1',
  deviceID,
  dataPointID,
  time,
  value: time,
  ...over,
})

const ids = (m: Map<string, LastValue>) => [...m.keys()].sort()

const latest = suite('LatestValuesCache: deletes on the bus')

latest('device.deleted :: the device is forgotten, the next read asks the store', async () => {
  const store = storeOf()
  const bus = new EventBus()
  const values = new LatestValuesCache(store)
  values.listen(bus)
  values.update([point('d1', 'temp', 1000)])
  assert.equal(ids(await values.get('T1', 'd1')), ['temp'])
  bus.emit('device.deleted', { tenantID: 'T1', id: 7, deviceID: 'd1', kind: 'device' })
  assert.equal(ids(await values.get('T1', 'd1')), [])
  assert.equal(store.reads, ['T1/d1', 'T1/d1'])
})

latest('dataPoint.deleted :: the point goes from that product’s devices only', async () => {
  const bus = new EventBus()
  const values = new LatestValuesCache(storeOf())
  values.listen(bus)
  values.update([
    point('d1', 'temp', 1000),
    point('d1', 'hum', 1000),
    point('d2', 'temp', 1000, { productID: 'P2' }),
    point('d3', 'temp', 1000, { tenantID: 'T2' }),
  ])
  for (const d of ['d1', 'd2']) await values.get('T1', d)
  await values.get('T2', 'd3')
  bus.emit('dataPoint.deleted', {
    tenantID: 'T1',
    productIntID: 1,
    productID: 'P1',
    dataPointID: 'temp',
  })
  assert.equal(ids(await values.get('T1', 'd1')), ['hum'])
  assert.equal(ids(await values.get('T1', 'd2')), ['temp'])
  assert.equal(ids(await values.get('T2', 'd3')), ['temp'])
})

latest('dataPoint.deleted, a device read from the store only :: read again', async () => {
  const store = storeOf({ 'T1/d1': { temp: { time: 5, value: 1 }, hum: { time: 5, value: 2 } } })
  const bus = new EventBus()
  const values = new LatestValuesCache(store)
  values.listen(bus)
  assert.equal(ids(await values.get('T1', 'd1')), ['hum', 'temp'])
  bus.emit('dataPoint.deleted', {
    tenantID: 'T1',
    productIntID: 1,
    productID: 'P1',
    dataPointID: 'temp',
  })
  await values.get('T1', 'd1')
  assert.equal(store.reads, ['T1/d1', 'T1/d1'])
})

latest('unsubscribed :: events no longer reach it', async () => {
  const bus = new EventBus()
  const values = new LatestValuesCache(storeOf())
  const off = values.listen(bus)
  values.update([point('d1', 'temp', 1000)])
  off()
  bus.emit('device.deleted', { tenantID: 'T1', id: 7, deviceID: 'd1', kind: 'device' })
  assert.equal(ids(await values.get('T1', 'd1')), ['temp'])
  assert.is(bus.listenerCount('device.deleted'), 0)
  assert.is(bus.listenerCount('dataPoint.deleted'), 0)
})

latest(
  'getMany :: held devices from memory, the rest in one store read merged with newer writes',
  async () => {
    const store = storeOf({
      'T1/d2': { temp: { time: 5, value: 1 }, hum: { time: 5, value: 2 } },
      'T1/d3': { temp: { time: 7, value: 3 } },
    })
    const values = new LatestValuesCache(store)
    await values.get('T1', 'd1') // held, complete
    values.update([point('d2', 'temp', 9)]) // held, partial: newer than the stored temp
    const many = await values.getMany('T1', ['d1', 'd2', 'd3', 'd4', 'd2'])
    assert.equal(store.reads, ['T1/d1', 'T1/[d2,d3,d4]'])
    assert.equal(Object.fromEntries([...many].map(([d, m]) => [d, Object.fromEntries(m)])), {
      d1: {},
      d2: { temp: { time: 9, value: 9 }, hum: { time: 5, value: 2 } },
      d3: { temp: { time: 7, value: 3 } },
      d4: {},
    })
    await values.getMany('T1', ['d2', 'd3'])
    assert.is(store.reads.length, 2, 'now held complete')
  },
)

latest(
  'two tenants, one deviceID :: each tenant reads its own values, a delete forgets one',
  async () => {
    const values = new LatestValuesCache(storeOf())
    await values.get('T1', 'd1')
    await values.get('T2', 'd1')
    values.update([point('d1', 'temp', 5), point('d1', 'temp', 8, { tenantID: 'T2', value: -1 })])
    assert.equal((await values.get('T1', 'd1')).get('temp'), { time: 5, value: 5 })
    assert.equal((await values.get('T2', 'd1')).get('temp'), { time: 8, value: -1 })
    values.forget('T2', 'd1')
    assert.is((await values.get('T2', 'd1')).size, 0, 'read again from the store, which holds none')
    assert.equal((await values.get('T1', 'd1')).get('temp'), { time: 5, value: 5 })
  },
)

latest(
  'bounded :: past maxDevices the oldest device is forgotten first and read again',
  async () => {
    const store = storeOf({ 'T1/d1': { temp: { time: 1, value: 10 } } })
    const values = new LatestValuesCache(store, 2)
    await values.get('T1', 'd1')
    values.update([point('d2', 'temp', 2, { tenantID: 'T2' })])
    values.update([point('d3', 'temp', 3)]) // a third device: d1, the oldest, goes
    assert.equal(store.reads, ['T1/d1'])
    assert.equal((await values.get('T1', 'd1')).get('temp'), { time: 1, value: 10 })
    assert.equal(store.reads, ['T1/d1', 'T1/d1'], 'd1 was read again')
    // d2 was the oldest now and went for d1: d3 (partial) is still held, its value kept while it is completed
    assert.equal((await values.get('T1', 'd3')).get('temp'), { time: 3, value: 3 })
    assert.equal((await values.get('T2', 'd2')).size, 0, 'd2 was forgotten: the store holds none')
  },
)

latest(
  'slots :: a run in another order, a point twice, an older value, a text after numbers: each slot right',
  async () => {
    const values = new LatestValuesCache(storeOf())
    await values.get('T1', 'd1') // complete: no store read later
    await values.get('T2', 'd1')
    values.update([point('d1', 'a', 10), point('d1', 'b', 10), point('d1', 'c', 10)])
    values.update([
      point('d1', 'c', 20),
      point('d1', 'a', 20),
      point('d1', 'a', 15, { value: -15 }), // older than the a just taken: kept out
      point('d1', 'd', 20, { value: 'on' }),
      point('d1', 'b', 5), // older than the stored b
      point('d1', 'b', 30, { tenantID: 'T2', value: 'other tenant' }),
    ])
    values.update([point('d1', 'a', 40, { value: 'text' }), point('d1', 'c', 40)])
    assert.equal(Object.fromEntries(await values.get('T1', 'd1')), {
      a: { time: 40, value: 'text' },
      b: { time: 10, value: 10 },
      c: { time: 40, value: 40 },
      d: { time: 20, value: 'on' },
    })
    assert.equal(Object.fromEntries(await values.get('T2', 'd1')), {
      b: { time: 30, value: 'other tenant' },
    })
  },
)

latest('completed from the store :: at an equal time the value written here stays', async () => {
  const store = storeOf({ 'T1/d1': { a: { time: 5, value: 1 }, b: { time: 9, value: 2 } } })
  const values = new LatestValuesCache(store)
  values.update([point('d1', 'a', 5, { value: 'written' }), point('d1', 'b', 7)])
  assert.equal(Object.fromEntries(await values.get('T1', 'd1')), {
    a: { time: 5, value: 'written' },
    b: { time: 9, value: 2 },
  })
})

latest('get :: answers a map of its own, which later writes do not change', async () => {
  const values = new LatestValuesCache(storeOf())
  values.update([point('d1', 'a', 10)])
  const before = await values.get('T1', 'd1')
  values.update([point('d1', 'a', 20), point('d1', 'b', 20)])
  before.delete('a')
  assert.equal([...before.keys()], [])
  assert.equal(Object.fromEntries(await values.get('T1', 'd1')), {
    a: { time: 20, value: 20 },
    b: { time: 20, value: 20 },
  })
})

latest('dataPoint.deleted :: the slots after the deleted one keep their values', async () => {
  const bus = new EventBus()
  const values = new LatestValuesCache(storeOf())
  values.listen(bus)
  values.update([point('d1', 'a', 1), point('d1', 'b', 2), point('d1', 'c', 3)])
  bus.emit('dataPoint.deleted', {
    tenantID: 'T1',
    productIntID: 1,
    productID: 'P1',
    dataPointID: 'a',
  })
  values.update([point('d1', 'b', 4), point('d1', 'c', 5), point('d1', 'a', 6)])
  assert.equal(Object.fromEntries(await values.get('T1', 'd1')), {
    b: { time: 4, value: 4 },
    c: { time: 5, value: 5 },
    a: { time: 6, value: 6 },
  })
})

latest.run()
