import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  filterCovers,
  filtersIntersect,
  commandTopic,
  mountedTopic,
  mountpoint,
  normalizeTopic,
  parseMounted,
  relativeTopic,
  reportStreams,
  topicMatches,
  uplinkTopic,
} from '../../../src/kernel/topics.ts'

const device = { cloudProtocol: 1, tenantID: 'T1', productID: 'P1', deviceID: 'D1' }

const match = suite('topicMatches')

const MATCHES: Array<[string, string, boolean]> = [
  ['a/b', 'a/b', true],
  ['a/b', 'a/c', false],
  ['a/+', 'a/b', true],
  ['a/+', 'a/b/c', false],
  ['a/+', 'a', false],
  ['a/#', 'a', true], // MQTT 3.1.1 §4.7.1.2: the parent level matches too
  ['a/#', 'a/b/c', true],
  ['#', 'a/b', true],
  ['+/+', 'a/b', true],
  ['+', 'a/b', false],
  ['a/+/c', 'a/x/c', true],
  ['a/+/c', 'a/x/d', false],
  ['a//b', 'a//b', true],
  ['a/+/b', 'a//b', true], // an empty level is a level
  ['A', 'a', false], // case-sensitive
]
for (const [filter, topic, expected] of MATCHES) {
  match(`${filter} vs ${topic} :: ${expected}`, () =>
    assert.is(topicMatches(filter, topic), expected),
  )
}

const covers = suite('filterCovers')
const COVERS: Array<[string, string, boolean]> = [
  ['#', 'a/+/b', true],
  ['a/#', 'a', true],
  ['a/#', 'a/b/#', true],
  ['a/+', 'a/b', true],
  ['a/+', 'a/+', true],
  ['a/+', 'a/#', false],
  ['a/b', 'a/+', false],
  ['a/b', 'a/b', true],
  ['a/+/c', 'a/+/c', true],
  ['a/+/c', 'a/+/#', false],
  ['+', 'a/b', false],
]
for (const [outer, inner, expected] of COVERS) {
  covers(`${outer} covers ${inner} :: ${expected}`, () =>
    assert.is(filterCovers(outer, inner), expected),
  )
}

const intersect = suite('filtersIntersect')
const INTERSECT: Array<[string, string, boolean]> = [
  ['#', 'x', true],
  ['a/#', 'a', true],
  ['a/+', 'a', false],
  ['a/+', '+/b', true],
  ['a/b', 'a/c', false],
  ['secret/#', '+/x', true],
  ['secret/#', 'public/#', false],
  ['a/b/c', 'a/+', false],
]
for (const [a, b, expected] of INTERSECT) {
  intersect(`${a} ∩ ${b} :: ${expected}`, () => {
    assert.is(filtersIntersect(a, b), expected)
    assert.is(filtersIntersect(b, a), expected, 'symmetric')
  })
}

const mount = suite('mountpoint topics')

mount('full topic of a relative one :: /mqtt/T1/P1/D1/telemetry', () => {
  assert.is(mountedTopic(device, 'telemetry'), '/mqtt/T1/P1/D1/telemetry')
  assert.is(mountedTopic({ ...device, cloudProtocol: 7 }, 'x'), '/modbus/T1/P1/D1/x')
})

mount(
  'a device object asked again :: the same prefix; a field changed in place :: the new one',
  () => {
    const d = { ...device }
    const other = { ...device, deviceID: 'D2' }
    assert.is(mountpoint(d), '/mqtt/T1/P1/D1/')
    assert.is(mountpoint(other), '/mqtt/T1/P1/D2/')
    assert.is(mountpoint(d), '/mqtt/T1/P1/D1/')
    for (const [field, value, want] of [
      ['deviceID', 'D3', '/mqtt/T1/P1/D3/'],
      ['productID', 'P2', '/mqtt/T1/P2/D3/'],
      ['tenantID', 'T2', '/mqtt/T2/P2/D3/'],
      ['cloudProtocol', 3, '/lwm2m/T2/P2/D3/'],
    ] as const) {
      ;(d as Record<string, unknown>)[field] = value
      assert.is(mountpoint(d), want, field)
    }
    assert.is(mountpoint(other), '/mqtt/T1/P1/D2/')
  },
)

mount('parse a full topic :: its parts and the relative topic', () => {
  assert.equal(parseMounted('/mqtt/T1/P1/D1/a/b'), {
    protocol: 'mqtt',
    tenantID: 'T1',
    productID: 'P1',
    deviceID: 'D1',
    topic: 'a/b',
  })
  assert.equal(parseMounted('/lwm2m/T/P/D/'), {
    protocol: 'lwm2m',
    tenantID: 'T',
    productID: 'P',
    deviceID: 'D',
    topic: '',
  })
})

mount('parse topics that are not mountpoint topics :: undefined', () => {
  for (const t of [
    'mqtt/T1/P1/D1/x',
    '/mqtt/T1/P1/D1',
    '/ftp/T1/P1/D1/x',
    '/mqtt//P1/D1/x',
    '',
    '#',
  ])
    assert.is(parseMounted(t), undefined, t)
})

mount(
  'relative topic under the own prefix only :: undefined for another device, the prefix itself, outside',
  () => {
    assert.is(relativeTopic(device, '/mqtt/T1/P1/D1/telemetry'), 'telemetry')
    assert.is(relativeTopic(device, '/mqtt/T1/P1/D1/a/#'), 'a/#')
    assert.is(relativeTopic(device, '/mqtt/T1/P1/D2/telemetry'), undefined)
    assert.is(relativeTopic(device, '/mqtt/T1/P1/D1/'), undefined)
    assert.is(relativeTopic(device, '/mqtt/T1/P1/D1'), undefined)
    assert.is(relativeTopic(device, '/mqtt/T1/P1/D10/x'), undefined)
    assert.is(relativeTopic(device, 'telemetry'), undefined)
    assert.is(
      relativeTopic(device, '/coap/T1/P1/D1/x'),
      undefined,
      'another protocol is another prefix',
    )
  },
)

mount('mountpoint and normalized topics :: the protocol name, slashes trimmed', () => {
  assert.is(mountpoint(device), '/mqtt/T1/P1/D1/')
  assert.is(
    mountpoint({ ...device, cloudProtocol: 99 }),
    '/mqtt/T1/P1/D1/',
    'unknown protocol: mqtt',
  )
  assert.is(normalizeTopic('//data/t1/'), 'data/t1')
})

mount(
  'command topic :: relative or under the device, leading slashes dropped; undefined for wildcards or outside',
  () => {
    assert.is(commandTopic(device, 'inbox'), 'inbox')
    assert.is(commandTopic(device, '/mqtt/T1/P1/D1/cmd/x'), 'cmd/x')
    assert.is(commandTopic(device, '//inbox'), 'inbox')
    for (const t of ['a/+', '#', '/mqtt/T1/P1/D1/', '/mqtt/T1/P1/D2/x', '$SYS/x', '/'])
      assert.is(commandTopic(device, t), undefined, t)
  },
)

mount(
  'uplink topic over HTTP :: a full topic of the device made relative, any other taken as it is',
  () => {
    assert.is(uplinkTopic(device, 'telemetry'), 'telemetry')
    assert.is(uplinkTopic(device, '/mqtt/T1/P1/D1/telemetry'), 'telemetry')
    assert.is(uplinkTopic(device, '/mqtt/T1/P1/D1/'), '')
    assert.is(uplinkTopic(device, '/mqtt/T1/P1/D2/telemetry'), '/mqtt/T1/P1/D2/telemetry')
  },
)

mount(
  'report streams :: types 1 and 3 only, by normalized topic, the later of one topic wins, known points',
  () => {
    const points = [
      { id: 1, dataPointID: 'a' },
      { id: 2, dataPointID: 'b' },
    ]
    const streams = reportStreams(
      [
        { id: 10, topic: '/data/t1/', streamType: 1, pointIntIDs: [1, 9] },
        { id: 11, topic: 'cmd', streamType: 2, pointIntIDs: [1] },
        { id: 12, topic: 'gw', streamType: 3, pointIntIDs: [2] },
        { id: 13, topic: 'data/t1', streamType: 1, pointIntIDs: [2] },
      ],
      points,
    )
    assert.equal(
      [...streams].map(([k, s]) => [k, s.id, s.topic, [...s.dataPointIDs]]),
      [
        ['data/t1', 13, 'data/t1', ['b']],
        ['gw', 12, 'gw', ['b']],
      ],
    )
  },
)

match.run()
covers.run()
intersect.run()
mount.run()
