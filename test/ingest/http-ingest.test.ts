import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createHttpIngest, type HttpDevices } from '../../ingest/http-ingest.ts'
import {
  Backpressure,
  type DeviceIdentity,
  type HttpMessage,
  type Pipeline,
  type Uplink,
} from '../../ingest/types.ts'

const base: DeviceIdentity = {
  id: 1,
  tenantID: 'T1',
  kind: 'device',
  deviceID: 'D1',
  deviceName: 'd1',
  deviceUsername: 'u1',
  token: 'tok1',
  authType: 1,
  blocked: 0,
  productIntID: 1,
  productID: 'P1',
  cloudProtocol: 1,
  gatewayIntID: null,
  parentDeviceIntID: null,
}
const dev = (over: Partial<DeviceIdentity>): DeviceIdentity => ({ ...base, ...over })

const D1 = dev({})
const GW = dev({ id: 2, kind: 'gateway', deviceID: 'G1', deviceUsername: 'g', token: 'gt' })
const CHILD = dev({ id: 3, deviceID: 'C1', deviceUsername: 'c', gatewayIntID: 2 })
const OTHER = dev({ id: 4, tenantID: 'T2', deviceID: 'X1', deviceUsername: 'x' })
const BLOCKED = dev({ id: 5, deviceID: 'B1', deviceUsername: 'b', token: 'bt', blocked: 1 })
const CERT = dev({ id: 6, deviceID: 'K1', deviceUsername: 'k', token: 'kt', authType: 2 })
// two devices sharing a username: the token tells them apart
const TWIN = dev({ id: 7, deviceID: 'W1', deviceUsername: 'u1', token: 'tok7' })
// blocked and a certificate device: its token opens nothing, so its holder is not told it is blocked
const BLOCKED_CERT = dev({
  id: 8,
  deviceID: 'K2',
  deviceUsername: 'k2',
  token: 'k2t',
  authType: 2,
  blocked: 1,
})
const ALL = [D1, GW, CHILD, OTHER, BLOCKED, CERT, TWIN, BLOCKED_CERT]

/** Every device lookup of a submit: the tenant and the deviceIDs asked for. */
const lookups: Array<[string, string[]]> = []
const devices: HttpDevices = {
  credentials: { devicesByUsername: async (u) => ALL.filter((d) => d.deviceUsername === u) },
  directory: {
    byDeviceIDs: async (tenant, ids) => {
      lookups.push([tenant, [...ids]])
      return new Map(
        ALL.filter((d) => d.tenantID === tenant && [...ids].includes(d.deviceID)).map((d) => [
          d.deviceID,
          d,
        ]),
      )
    },
  },
}

/** A pipeline that records what it is given; `full` makes every submit throw Backpressure. */
function fakePipeline(full = false) {
  const submitted: Uplink[] = []
  const pipeline = {
    submit: async (u: Uplink) => {
      if (full) throw new Backpressure()
      submitted.push(u)
      return { accepted: 2, rejected: [] }
    },
  } as unknown as Pipeline
  return { pipeline, submitted }
}

const msg = (m: { deviceID?: string; topic: string; payload: unknown }): HttpMessage => ({
  ok: true,
  message: m,
})

const login = suite('HTTP ingest login (checkBasicCredentials)')

login(
  'username and token of a device :: that device; a shared username picks by token',
  async () => {
    const { pipeline } = fakePipeline()
    const ingest = createHttpIngest({ ...devices, pipeline })
    assert.equal(await ingest.login('u1', 'tok1'), { ok: true, device: D1 })
    assert.equal(await ingest.login('u1', 'tok7'), { ok: true, device: TWIN })
  },
)

login('wrong token, unknown username :: bad-credentials', async () => {
  const ingest = createHttpIngest({ ...devices, pipeline: fakePipeline().pipeline })
  assert.equal(await ingest.login('u1', 'nope'), { ok: false, reason: 'bad-credentials' })
  assert.equal(await ingest.login('nobody', 'tok1'), { ok: false, reason: 'bad-credentials' })
})

login('a certificate device by its token :: certificate; a blocked one :: blocked', async () => {
  const ingest = createHttpIngest({ ...devices, pipeline: fakePipeline().pipeline })
  assert.equal(await ingest.login('k', 'kt'), { ok: false, reason: 'certificate', device: CERT })
  assert.equal(await ingest.login('b', 'bt'), { ok: false, reason: 'blocked', device: BLOCKED })
  assert.equal(await ingest.login('b', 'wrong'), { ok: false, reason: 'bad-credentials' })
  assert.equal(await ingest.login('k2', 'k2t'), {
    ok: false,
    reason: 'certificate',
    device: BLOCKED_CERT,
  })
})

const submit = suite('HTTP ingest submit')
submit.before.each(() => {
  lookups.length = 0
})

submit(
  'messages of a device and a gateway :: own and child accepted, topics made relative',
  async () => {
    const { pipeline, submitted } = fakePipeline()
    const ingest = createHttpIngest({ ...devices, pipeline })
    const out = await ingest.submit(
      { kind: 'device', device: GW },
      [
        msg({ topic: '/mqtt/T1/P1/G1/telemetry', payload: { a: 1 } }),
        msg({ deviceID: 'C1', topic: 'telemetry', payload: '{"a":2}' }),
        msg({ deviceID: 'D1', topic: 'telemetry', payload: {} }),
        msg({ deviceID: 'X1', topic: 'telemetry', payload: {} }),
      ],
      '10.0.0.1',
    )
    assert.equal(out, {
      accepted: 4,
      rejected: [
        { index: 2, errorCode: 'DATA_NOT_FOUND', message: 'deviceID: no device D1' },
        { index: 3, errorCode: 'DATA_NOT_FOUND', message: 'deviceID: no device X1' },
      ],
      busy: false,
      full: false,
    })
    assert.equal(
      submitted.map((u) => [u.device.deviceID, u.topic, u.payload.toString(), u.ip]),
      [
        ['G1', 'telemetry', '{"a":1}', '10.0.0.1'],
        ['C1', 'telemetry', '{"a":2}', '10.0.0.1'],
      ],
    )
    // the named devices are looked up once, in the gateway's tenant
    assert.equal(lookups, [['T1', ['C1', 'D1', 'X1']]])
  },
)

submit(
  'messages of an API caller :: its tenant only, a deviceID required, blocked refused',
  async () => {
    const { pipeline, submitted } = fakePipeline()
    const ingest = createHttpIngest({ ...devices, pipeline })
    const out = await ingest.submit(
      { kind: 'caller', tenantID: 'T1' },
      [
        msg({ deviceID: 'D1', topic: 'telemetry', payload: {} }),
        msg({ topic: 'telemetry', payload: {} }),
        msg({ deviceID: 'X1', topic: 'telemetry', payload: {} }),
        msg({ deviceID: 'B1', topic: 'telemetry', payload: {} }),
        { ok: false, errorCode: 'BAD_REQUEST', message: 'the line is not valid JSON' },
      ],
      null,
    )
    assert.equal(out.rejected, [
      { index: 1, errorCode: 'FORM_INVALID', message: 'deviceID: required with API credentials' },
      { index: 2, errorCode: 'DATA_NOT_FOUND', message: 'deviceID: no device X1' },
      { index: 3, errorCode: 'PERMISSION_DENIED', message: 'deviceID: B1 is blocked' },
      { index: 4, errorCode: 'BAD_REQUEST', message: 'the line is not valid JSON' },
    ])
    assert.equal(
      submitted.map((u) => u.device.deviceID),
      ['D1'],
    )
    assert.equal(lookups, [['T1', ['D1', 'X1', 'B1']]])
  },
)

submit(
  'payloads :: an object carried parsed beside its text, a string as given, an object with a null as text',
  async () => {
    const { pipeline, submitted } = fakePipeline()
    const ingest = createHttpIngest({ ...devices, pipeline })
    const object = { data_type: 'event', data: { a: { time: 1, value: 2 } } }
    await ingest.submit(
      { kind: 'device', device: D1 },
      [
        msg({ topic: 'telemetry', payload: object }),
        msg({ topic: 'telemetry', payload: '{"a":1}' }),
        msg({ topic: 'telemetry', payload: { a: null } }),
      ],
      null,
    )
    assert.equal(
      submitted.map((u) => [u.payload.toString(), u.parsed]),
      [
        [JSON.stringify(object), object],
        ['{"a":1}', undefined],
        ['{"a":null}', undefined],
      ],
    )
    assert.is(submitted[0]!.parsed, object)
  },
)

submit('a full queue for every message :: busy, each rejected TOO_MANY_REQUESTS', async () => {
  const ingest = createHttpIngest({ ...devices, pipeline: fakePipeline(true).pipeline })
  const out = await ingest.submit(
    { kind: 'device', device: D1 },
    [msg({ topic: 'telemetry', payload: {} })],
    null,
  )
  assert.equal(out, {
    accepted: 0,
    rejected: [
      {
        index: 0,
        errorCode: 'TOO_MANY_REQUESTS',
        message: 'the ingest queue is full; retry later',
      },
    ],
    busy: true,
    full: false,
  })
})

login.run()
submit.run()
