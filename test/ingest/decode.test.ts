import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { decodePayload, payloadTime, type Decoded, type RawValues } from '../../ingest/decode.ts'

const NOW = 1_700_000_500_000
const decode = suite('decodePayload (pure)')

/** Values as one object a value, the columns of RawValues side by side (equal lengths, or an error). */
function listed(v: RawValues) {
  assert.ok(
    v.times.length === v.ids.length && v.values.length === v.ids.length,
    'columns of one length',
  )
  return v.ids.map((dataPointID, i) => ({ dataPointID, time: v.times[i], value: v.values[i] }))
}

/** A decoded payload with its values (its own and each child's) listed. */
const decoded = (text: string) => {
  const d: Decoded = decodePayload(text, NOW)
  if (!('values' in d)) return d
  return {
    ...d,
    values: listed(d.values),
    devices: d.devices.map((c) => ({ ...c, values: listed(c.values) })),
  }
}

decode('form 1 plain :: every key a value at receivedAt', () => {
  const d = decoded('{"temp": 21.5, "hum": 40}')
  assert.equal(d, {
    form: 'plain',
    values: [
      { dataPointID: 'temp', time: NOW, value: 21.5 },
      { dataPointID: 'hum', time: NOW, value: 40 },
    ],
    devices: [],
    problems: [],
  })
})

decode('form 2 event :: {time, value} in s or ms, bare values at receivedAt', () => {
  const d = decoded(
    JSON.stringify({
      data_type: 'event',
      stream_id: 's1',
      data: {
        temp: { time: 1700000000, value: 21.5 },
        hum: { time: 1700000000123, value: 40 },
        on: true,
        loc: { lon: 1, lat: 2 },
      },
    }),
  )
  assert.equal(d, {
    form: 'event',
    values: [
      { dataPointID: 'temp', time: 1700000000000, value: 21.5 },
      { dataPointID: 'hum', time: 1700000000123, value: 40 },
      { dataPointID: 'on', time: NOW, value: true },
      { dataPointID: 'loc', time: NOW, value: { lon: 1, lat: 2 } },
    ],
    devices: [],
    problems: [],
  })
})

decode('form 2 with an unreadable time :: the value is a problem, the others stay', () => {
  const d = decoded('{"data_type":"event","data":{"a":{"time":"soon","value":1},"b":{"value":2}}}')
  if (d.form !== 'event') return assert.unreachable()
  assert.equal(d.values, [{ dataPointID: 'b', time: NOW, value: 2 }])
  assert.equal(d.problems, [
    {
      dataPointID: 'a',
      deviceID: undefined,
      errorCode: 'FORM_INVALID',
      message: 'a: unreadable time',
    },
  ])
})

decode('form 3 gateway :: own points and one list per child; bad entries are problems', () => {
  const payload = {
    data_type: 'event',
    data: {
      gateway: { up: { time: 1700000000, value: 1 } },
      devices: [
        { device_id: 'c1', data: { temp: { time: 1700000001, value: 3 } } },
        { device_id: 'c2', data: { temp: 4 } },
        { nope: true },
        'x',
      ],
    },
  }
  const d = decoded(JSON.stringify(payload))
  if (d.form !== 'gateway') return assert.unreachable()
  assert.equal(d.values, [{ dataPointID: 'up', time: 1700000000000, value: 1 }])
  assert.equal(
    d.devices.map((c) => [c.deviceID, c.values, JSON.parse(c.raw)]),
    [
      ['c1', [{ dataPointID: 'temp', time: 1700000001000, value: 3 }], payload.data.devices[0]],
      ['c2', [{ dataPointID: 'temp', time: NOW, value: 4 }], payload.data.devices[1]],
    ],
  )
  assert.equal(
    d.problems.map((p) => p.message),
    ['devices[2]: expected {device_id, data}', 'devices[3]: expected {device_id, data}'],
  )
})

decode('form 3 without gateway points :: devices only', () => {
  const d = decoded('{"data_type":"event","data":{"devices":[]}}')
  assert.equal(d, { form: 'gateway', values: [], devices: [], problems: [] })
})

decode('a data point named gateway with {time, value} :: still form 2', () => {
  const d = decodePayload('{"data_type":"event","data":{"gateway":{"value":5}}}', NOW)
  assert.is(d.form, 'event')
})

decode('form 4 response :: task id and code', () => {
  assert.equal(
    decodePayload('{"data_type":"response","result":{"task_id":"t-1","code":200}}', NOW),
    {
      form: 'response',
      taskID: 't-1',
      code: 200,
    },
  )
  assert.equal(decodePayload('{"data_type":"response","result":{}}', NOW), {
    form: 'invalid',
    reason: 'response without result.task_id',
  })
})

decode('malformed and non-object payloads :: invalid with a reason, never a throw', () => {
  const cases: Array<[string, string]> = [
    ['{"temp": ', 'payload is not valid JSON'],
    ['', 'payload is not valid JSON'],
    ['[1,2]', 'payload is not a JSON object'],
    ['42', 'payload is not a JSON object'],
    ['null', 'payload is not a JSON object'],
    ['{"data_type":"event"}', 'event payload without a data object'],
    ['{"data_type":"event","data":[1]}', 'event payload without a data object'],
    ['{"data_type":"bogus"}', 'unknown data_type "bogus"'],
  ]
  for (const [text, reason] of cases)
    assert.equal(decodePayload(text, NOW), { form: 'invalid', reason }, text)
})

decode('payloadTime :: s, ms, numeric text, ISO text; garbage undefined', () => {
  assert.is(payloadTime(1700000000), 1700000000000)
  assert.is(payloadTime(1700000000999), 1700000000999)
  assert.is(payloadTime('1700000000'), 1700000000000)
  assert.is(payloadTime('2024-01-01T00:00:00Z'), Date.UTC(2024, 0, 1))
  assert.is(payloadTime('later'), undefined)
  assert.is(payloadTime(-5), undefined)
  assert.is(payloadTime({}), undefined)
})

decode.run()
