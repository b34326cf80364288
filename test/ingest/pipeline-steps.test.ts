/** The named steps of ingest/pipeline.ts that write nothing: receipt times, an uplink's assessment. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  MAX_PAYLOAD_BYTES,
  assessUplink,
  bytesOverLimit,
  commandAnswer,
  receiptClock,
  storedDeviceIDs,
} from '../../ingest/pipeline.ts'
import { ModelCache, type ProductModel } from '../../ingest/model.ts'
import { EventBus } from '../../src/kernel/events.ts'
import type { Uplink } from '../../ingest/types.ts'
import type { EventInput, IngestDevice } from '../../store/types.ts'

const steps = suite('pipeline steps')

const device = (
  id: number,
  deviceID: string,
  kind: 'device' | 'gateway' = 'device',
): IngestDevice => ({
  id,
  tenantID: 't1',
  kind,
  deviceID,
  deviceName: `${deviceID} name`,
  deviceUsername: deviceID,
  token: 'x',
  authType: 1,
  blocked: 0,
  productIntID: 1,
  productID: 'p1',
  cloudProtocol: 1,
  gatewayIntID: null,
  parentDeviceIntID: null,
})

const point = (dataPointID: string, pointDataType: number) => ({
  id: 1,
  dataPointID,
  dataPointName: dataPointID,
  pointDataType,
  upperLimit: 50,
  lowerLimit: null,
  binarySize: null,
})
const model: ProductModel = {
  productIntID: 1,
  streams: new Map([
    ['telemetry', { id: 1, topic: 'telemetry', streamType: 1, dataPointIDs: new Set(['temp']) }],
  ]),
  points: new Map([['temp', point('temp', 1)]]),
}
const child = { ...device(3, 'kid'), gatewayIntID: 2 }
const models = {
  product: async () => model,
  childrenOf: async () => new Map([['kid', child]]),
}
const T = Date.UTC(2026, 0, 1)
steps(
  'bytesOverLimit :: UTF-8 bytes of a text or a buffer, undefined at or under the limit',
  () => {
    assert.is(bytesOverLimit(Buffer.alloc(MAX_PAYLOAD_BYTES)), undefined)
    assert.is(bytesOverLimit(Buffer.alloc(MAX_PAYLOAD_BYTES + 1)), MAX_PAYLOAD_BYTES + 1)
    assert.is(bytesOverLimit('a'.repeat(MAX_PAYLOAD_BYTES)), undefined)
    assert.is(bytesOverLimit('a'.repeat(MAX_PAYLOAD_BYTES + 1)), MAX_PAYLOAD_BYTES + 1)
    // two bytes a character: under the limit by length, over it in bytes
    const accents = 'é'.repeat(MAX_PAYLOAD_BYTES / 2 + 1)
    assert.is(bytesOverLimit(accents), MAX_PAYLOAD_BYTES + 2)
    assert.is(bytesOverLimit('€'.repeat(MAX_PAYLOAD_BYTES / 3)), undefined)
  },
)

const uplink = (payload: string | Buffer, d = device(1, 'd1'), topic = 'telemetry'): Uplink => ({
  device: d,
  topic,
  payload: Buffer.isBuffer(payload) ? payload : Buffer.from(payload),
  receivedAt: T,
  ip: '10.0.0.1',
})

steps(
  'receiptClock :: per device strictly increasing by a millisecond; forgets all past its limit',
  () => {
    const at = receiptClock(2)
    assert.equal([at(1, 100), at(1, 100), at(1, 99), at(2, 100)], [100, 101, 102, 100])
    assert.is(at(1, 100), 103) // two devices known: the clock forgets them, keeping only this time
    assert.is(at(2, 50), 50) // device 2 forgotten (else 101)
    assert.is(at(1, 100), 104)
  },
)

steps(
  'storedDeviceIDs :: the record ids of the events, once each, in order, none for 0 or null',
  () => {
    const ev = (deviceIntID: number | null) => ({ deviceIntID }) as EventInput
    assert.equal(storedDeviceIDs([ev(3), ev(null), ev(1), ev(3), ev(0)]), [3, 1])
  },
)

steps('commandAnswer :: the device and task, a finite numeric code or null', () => {
  const d = device(1, 'd1')
  assert.equal(commandAnswer(d, { taskID: 'k', code: 0 }, 'raw'), {
    tenantID: 't1',
    deviceIntID: 1,
    deviceID: 'd1',
    taskID: 'k',
    code: 0,
    payload: 'raw',
  })
  assert.is(commandAnswer(d, { taskID: 'k', code: '0' }, 'raw').code, null)
  assert.is(commandAnswer(d, { taskID: 'k', code: Infinity }, 'raw').code, null)
})

steps(
  'assessUplink :: too large, undecodable or on an unknown topic: one refused event, no points',
  async () => {
    const big = await assessUplink(models, uplink(Buffer.alloc(MAX_PAYLOAD_BYTES + 1, 32)))
    assert.equal(big.answer ? [] : big.rejected.map((r) => r.errorCode), ['PAYLOAD_TOO_LARGE'])
    // a text payload (HTTP ingest's JSON text) is measured in bytes too, and its event keeps the text
    const text = `{"temp":1,"note":"${'é'.repeat(MAX_PAYLOAD_BYTES / 2)}"}`
    const wide = await assessUplink(models, { ...uplink(''), payload: text })
    assert.equal(wide.answer ? [] : wide.rejected.map((r) => r.message), [
      `payload of ${Buffer.byteLength(text)} bytes is over the limit of ${MAX_PAYLOAD_BYTES}`,
    ])
    const small = await assessUplink(models, { ...uplink(''), payload: '{"temp":7}' })
    assert.equal(small.answer ? [] : [small.points[0]?.value, small.events[0]?.payload], [
      7,
      '{"temp":7}',
    ])
    const bad = await assessUplink(models, uplink('{nope'))
    assert.equal(bad.answer ? [] : [bad.rejected[0]!.errorCode, bad.events.length], [
      'FORM_INVALID',
      1,
    ])
    const topic = await assessUplink(models, uplink('{"temp":1}', device(1, 'd1'), 'other'))
    assert.ok(!topic.answer)
    assert.equal(topic.points, [])
    assert.equal(topic.rejected, [
      { deviceID: 'd1', errorCode: 'DATA_NOT_FOUND', message: 'no data stream for topic other' },
    ])
    assert.equal(
      [topic.events[0]!.status, topic.events[0]!.reason],
      [0, 'no data stream for topic other'],
    )
  },
)

steps(
  'assessUplink :: a command response is an answer and its event, nothing refused',
  async () => {
    const a = await assessUplink(
      models,
      uplink('{"data_type":"response","result":{"task_id":"k1","code":2}}'),
    )
    assert.equal(a.answer, {
      tenantID: 't1',
      deviceIntID: 1,
      deviceID: 'd1',
      taskID: 'k1',
      code: 2,
      payload: '{"data_type":"response","result":{"task_id":"k1","code":2}}',
    })
    assert.equal([a.events.length, a.events[0]!.status], [1, 1])
  },
)

steps(
  'assessUplink :: values checked, unknown points refused, over-limit noted, children of a gateway',
  async () => {
    const own = await assessUplink(models, uplink('{"temp":60,"hum":3}'))
    assert.ok(!own.answer)
    assert.equal(own.points, [
      { tenantID: 't1', productID: 'p1', deviceID: 'd1', dataPointID: 'temp', time: T, value: 60 },
    ])
    assert.equal(
      own.rejected.map((r) => [r.dataPointID, r.errorCode]),
      [['hum', 'DATA_NOT_FOUND']],
    )
    assert.equal(own.children, [])
    assert.match(own.events[0]!.reason!, /hum: no such data point; temp: 60 /)

    const payload = JSON.stringify({
      data_type: 'event',
      data: {
        gateway: {},
        devices: [
          { device_id: 'kid', data: { temp: { time: T, value: 1 } } },
          { device_id: 'stranger', data: { temp: { time: T, value: 1 } } },
        ],
      },
    })
    const gw = await assessUplink(models, uplink(payload, device(2, 'gw', 'gateway')))
    assert.ok(!gw.answer)
    assert.equal(gw.children, [3])
    assert.equal(
      gw.points.map((p) => p.deviceID),
      ['kid'],
    )
    assert.equal(
      gw.events.map((e) => e.deviceID),
      ['gw', 'kid'],
    )
    assert.equal(
      gw.rejected.map((r) => r.message),
      ['devices: stranger is not a device of this gateway'],
    )
  },
)

steps(
  'assessUplink :: a cached model answers at once (no promise), the same as a read one; children still wait',
  async () => {
    const cached = { ...models, cachedProduct: () => model }
    const payloads = [
      '{"temp":60,"hum":3}',
      JSON.stringify({
        data_type: 'event',
        data: { temp: { time: T - 5, value: 7 }, x: { time: 'no' } },
      }),
      '{nope',
      '{"data_type":"response","result":{"task_id":"k1","code":2}}',
    ]
    for (const text of payloads) {
      const now = assessUplink(cached, uplink(text))
      assert.not.instance(now, Promise, text)
      assert.equal(now, await assessUplink(models, uplink(text)), text)
    }
    const unknown = assessUplink(cached, uplink('{"temp":1}', device(1, 'd1'), 'other'))
    assert.not.instance(unknown, Promise)
    const gateway = JSON.stringify({
      data_type: 'event',
      data: { devices: [{ device_id: 'kid', data: { temp: 1 } }] },
    })
    const gw = assessUplink(cached, uplink(gateway, device(2, 'gw', 'gateway')))
    assert.instance(gw, Promise)
    const done = await gw
    assert.equal(done.answer ? [] : done.children, [3])
    // a model not cached yet is read
    const miss = assessUplink({ ...models, cachedProduct: () => undefined }, uplink('{"temp":1}'))
    assert.instance(miss, Promise)
    assert.equal((await miss).answer ? 0 : ((await miss) as { points: unknown[] }).points.length, 1)
  },
)

steps(
  'ModelCache :: cachedProduct only once the read resolved, and not after model.changed',
  async () => {
    let reads = 0
    const bus = new EventBus()
    const cache = new ModelCache(
      {
        productModel: async () => (reads++, { streams: [], points: [] }),
        childrenOf: async () => [],
      },
      bus,
    )
    assert.is(cache.cachedProduct(1), undefined)
    const read = cache.product(1)
    assert.is(cache.cachedProduct(1), undefined) // still being read
    const m = await read
    assert.is(cache.cachedProduct(1), m)
    assert.is(cache.cachedProduct(2), undefined)
    bus.emit('model.changed', { tenantID: 't1', productIntID: 1 })
    assert.is(cache.cachedProduct(1), undefined)
    assert.is(reads, 1)
    cache.close()
  },
)

steps.run()
