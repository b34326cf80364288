import * as assert from 'uvu/assert'
import { gzipSync } from 'node:zlib'
import { Client, type TestService } from '../../_support/service.ts'
import type { Wire } from '../../_support/wire.ts'
import type { IngestRejection } from '../../../src/schemas/ingest.ts'
import { basic, buildWorld, eventsOf, stored, worldSuite, type World } from './_ingest.ts'
import { mqttBody, newDevice, newGateway } from './devices-helpers.ts'

let t: TestService
let w: World
let dev: Client
const post = (c: Client, body: unknown, headers: Record<string, string> = {}) =>
  c.call(
    'POST',
    '/api/v1/ingest',
    typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
    {
      'content-type': 'application/json',
      ...headers,
    },
  )

/** Keeps the suite's service and world, and a client of the world's device. */
const ready = (svc: TestService, world: World) => {
  t = svc
  w = world
  dev = new Client(t.url, basic(w.device))
}

const forms = worldSuite(
  'POST /api/v1/ingest: payload forms',
  { INGEST_LINGER_MS: '2' },
  ready,
).test

forms(
  'form 1 plain with device credentials :: 202, values stored at receipt time, event status 1',
  async () => {
    const before = Date.now()
    const r = await post(dev, {
      topic: 'telemetry',
      payload: {
        temp: 21.5,
        hum: 40,
        name: "x'; DROP TABLE events; --",
        on: 1,
        loc: { lon: 116.4, lat: 39.9 },
      },
    })
    assert.is(r.status, 202, r.text)
    assert.equal(r.body, { accepted: 5, rejected: [] })
    const s = await stored(t, w.tenantID, w.device.deviceID, ['temp', 'name', 'on', 'loc'])
    assert.equal(
      [s.temp![0]![1], s.name![0]![1], s.on![0]![1], s.loc![0]![1]],
      [21.5, "x'; DROP TABLE events; --", true, '116.4,39.9'],
    )
    assert.ok(s.temp![0]![0] >= before - 1000 && s.temp![0]![0] <= Date.now())
    const e = (await eventsOf(t.admin, w.device.deviceID))[0]!
    assert.equal(
      [e.status, e.reason, e.topic, e.deviceName],
      [1, null, 'telemetry', w.device.deviceName],
    )
    assert.equal(JSON.parse(e.payload!).temp, 21.5)
  },
)

forms(
  'model edit :: a data point added to the stream is accepted at once (no stale cache)',
  async () => {
    const first = await post(dev, { topic: 'telemetry', payload: { secret: 1 } })
    assert.is(first.body.accepted, 0)
    const stream = (await t.admin.get(`/api/v1/data_streams/${w.stream.id}`)).body
    const points = (
      await t.admin.get(`/api/v1/data_points?productID=${w.product.productID}&dataPointID=secret`)
    ).body.items
    const edit = await t.admin.put(`/api/v1/data_streams/${w.stream.id}`, {
      dataPoints: [...stream.dataPoints, points[0].id],
    })
    assert.is(edit.status, 200, edit.text)
    const second = await post(dev, { topic: 'telemetry', payload: { secret: 2 } })
    assert.equal(second.body, { accepted: 1, rejected: [] })
    const back = await t.admin.put(`/api/v1/data_streams/${w.stream.id}`, {
      dataPoints: stream.dataPoints,
    })
    assert.is(back.status, 200)
    assert.is((await post(dev, { topic: 'telemetry', payload: { secret: 3 } })).body.accepted, 0)
  },
)

forms('two plain uplinks in the same millisecond :: both stored, a millisecond apart', async () => {
  const r = await post(dev, {
    messages: [
      { topic: 'telemetry', payload: { hum: 1 } },
      { topic: 'telemetry', payload: { hum: 2 } },
      { topic: 'telemetry', payload: { hum: 3 } },
    ],
  })
  assert.equal(r.body, { accepted: 3, rejected: [] })
  const s = await stored(t, w.tenantID, w.device.deviceID, ['hum'])
  const last3 = s.hum!.slice(-3)
  assert.equal(
    last3.map((x) => x[1]),
    [1, 2, 3],
  )
  assert.ok(last3[1]![0] > last3[0]![0] && last3[2]![0] > last3[1]![0])
})

forms(
  'form 2 event :: times in s and ms kept, bare values at receipt; payload as JSON text works',
  async () => {
    const payload = JSON.stringify({
      data_type: 'event',
      stream_id: 's1',
      data: { temp: { time: 1700000000, value: 20 }, hum: { time: 1700000000123, value: 7 } },
    })
    const r = await post(dev, { topic: 'telemetry', payload })
    assert.equal([r.status, r.body], [202, { accepted: 2, rejected: [] }])
    const s = await stored(t, w.tenantID, w.device.deviceID, ['temp', 'hum'])
    assert.ok(
      s.temp!.some(([time, v]) => time === 1700000000000 && v === 20),
      JSON.stringify(s),
    )
    assert.ok(
      s.hum!.some(([time, v]) => time === 1700000000123 && v === 7),
      JSON.stringify(s),
    )
    const e = (await eventsOf(t.admin, w.device.deviceID))[0]!
    assert.is(e.payload, payload)
  },
)

forms(
  'form 3 gateway fan-out :: own and child values stored, unknown and foreign children rejected, one event per device',
  async () => {
    const gw = new Client(t.url, basic(w.gateway))
    const payload = {
      data_type: 'event',
      data: {
        gateway: { up: { time: 1700000100, value: 1 } },
        devices: [
          {
            device_id: w.child.deviceID,
            data: { temp: { time: 1700000100, value: 30 }, hum: 'lots' },
          },
          { device_id: 'nope-device', data: { temp: 1 } },
          { device_id: w.other.deviceID, data: { temp: 2 } },
        ],
      },
    }
    const r = await post(gw, { topic: 'gw', payload })
    assert.is(r.status, 202, r.text)
    assert.is(r.body.accepted, 2)
    assert.is(r.body.rejected.length, 1)
    const rej = r.body.rejected[0]
    assert.equal([rej.index, rej.errorCode], [0, 'DATA_NOT_FOUND'])
    for (const part of ['nope-device', w.other.deviceID, 'hum: expected a number'])
      assert.match(rej.message, part)
    assert.equal((await stored(t, w.tenantID, w.gateway.deviceID, ['up'])).up, [[1700000100000, 1]])
    assert.equal((await stored(t, w.tenantID, w.child.deviceID, ['temp'])).temp, [
      [1700000100000, 30],
    ])
    assert.equal((await stored(t, w.tenantID, w.other.deviceID, ['temp'])).temp, [])
    const ge = (await eventsOf(t.admin, w.gateway.deviceID))[0]!
    assert.is(ge.status, 0)
    assert.match(ge.reason!, 'nope-device is not a device of this gateway')
    const ce = (await eventsOf(t.admin, w.child.deviceID))[0]!
    assert.equal(
      [ce.status, ce.reason, JSON.parse(ce.payload!)],
      [0, 'hum: expected a number, got "lots"', payload.data.devices[0]],
    )
    assert.equal(await eventsOf(t.admin, w.other.deviceID), [])
  },
)

forms(
  'a device that is not a gateway sending devices :: children rejected, own values kept',
  async () => {
    const r = await post(dev, {
      topic: 'telemetry',
      payload: {
        data_type: 'event',
        data: { devices: [{ device_id: w.other.deviceID, data: { temp: 1 } }] },
      },
    })
    assert.is(r.status, 202)
    assert.equal(
      r.body.rejected.map((x: Wire<typeof IngestRejection>) => x.errorCode),
      ['DATA_NOT_FOUND'],
    )
    assert.match(r.body.rejected[0].message, 'only a gateway may send for other devices')
  },
)

forms(
  'malformed JSON and non-object payloads :: rejected with a reason, event status 0, nothing stored',
  async () => {
    for (const [payload, reason] of [
      ['{"temp": ', 'payload is not valid JSON'],
      [[1, 2], 'payload is not a JSON object'],
      ['"just text"', 'payload is not a JSON object'],
      [{ data_type: 'telemetry' }, 'unknown data_type "telemetry"'],
    ] as const) {
      const r = await post(dev, { topic: 'telemetry', payload })
      assert.equal(
        [r.status, r.body],
        [
          202,
          { accepted: 0, rejected: [{ index: 0, errorCode: 'FORM_INVALID', message: reason }] },
        ],
      )
      const e = (await eventsOf(t.admin, w.device.deviceID))[0]!
      assert.equal([e.status, e.reason], [0, reason])
    }
  },
)

forms('unknown topic :: DATA_NOT_FOUND no data stream, event status 0 with the topic', async () => {
  const r = await post(dev, { topic: 'nowhere/x', payload: { temp: 1 } })
  assert.equal(r.body, {
    accepted: 0,
    rejected: [
      { index: 0, errorCode: 'DATA_NOT_FOUND', message: 'no data stream for topic nowhere/x' },
    ],
  })
  const e = (await eventsOf(t.admin, w.device.deviceID))[0]!
  assert.equal(
    [e.status, e.reason, e.topic],
    [0, 'no data stream for topic nowhere/x', 'nowhere/x'],
  )
})

forms(
  'type mismatches, unknown points, points of no stream :: each rejected with its reason, the rest stored',
  async () => {
    const r = await post(dev, {
      topic: 'telemetry',
      payload: { temp: 'hot', hum: -1, secret: 5, zzz: 1, on: true },
    })
    assert.is(r.body.accepted, 1)
    const { errorCode, message } = r.body.rejected[0]
    assert.is(errorCode, 'FORM_INVALID')
    const reasons = [
      'temp: expected a number, got "hot"',
      'hum: -1 is out of range [0, 4294967295]',
      'secret: not a data point of the stream on topic telemetry',
      'zzz: no such data point',
    ]
    assert.is(message, reasons.join('; '))
    const e = (await eventsOf(t.admin, w.device.deviceID))[0]!
    assert.equal([e.status, e.reason], [0, reasons.join('; ')])
  },
)

forms('value outside the limits :: stored, event status 1 notes the violation', async () => {
  const r = await post(dev, {
    topic: 'telemetry',
    payload: { data_type: 'event', data: { temp: { time: 1700000200, value: 150 } } },
  })
  assert.equal(r.body, { accepted: 1, rejected: [] })
  assert.ok(
    (await stored(t, w.tenantID, w.device.deviceID, ['temp'])).temp!.some(
      ([time, v]) => time === 1700000200000 && v === 150,
    ),
  )
  const e = (await eventsOf(t.admin, w.device.deviceID))[0]!
  assert.equal([e.status, e.reason], [1, 'temp: 150 above upperLimit 100'])
})

forms(
  'oversized payload :: PAYLOAD_TOO_LARGE, event keeps the first 64 KiB and a marker',
  async () => {
    const big = JSON.stringify({ name: 'x'.repeat(300 * 1024) })
    const r = await post(dev, { topic: 'telemetry', payload: big })
    assert.is(r.body.rejected[0].errorCode, 'PAYLOAD_TOO_LARGE')
    assert.match(r.body.rejected[0].message, 'over the limit of 262144')
    const e = (await eventsOf(t.admin, w.device.deviceID))[0]!
    assert.is(e.status, 0)
    assert.is(e.payload!.length, 64 * 1024 + '...[truncated]'.length)
    assert.ok(e.payload!.endsWith('...[truncated]'))
  },
)

forms(
  'an object payload :: its event holds its JSON text, non-ASCII kept; over the limit in UTF-8 bytes :: PAYLOAD_TOO_LARGE',
  async () => {
    const payload = { temp: 3, name: 'température ✓ 😀' }
    const ok = await post(dev, { topic: 'telemetry', payload })
    assert.equal([ok.status, ok.body.rejected], [202, []])
    const e = (await eventsOf(t.admin, w.device.deviceID))[0]!
    assert.is(e.payload, JSON.stringify(payload))
    // 140,000 characters, 280,000 bytes: under the limit by length, over it in bytes
    const wide = await post(dev, {
      topic: 'telemetry',
      payload: { temp: 4, name: 'é'.repeat(140_000) },
    })
    assert.equal(wide.body.rejected[0].errorCode, 'PAYLOAD_TOO_LARGE')
    assert.match(wide.body.rejected[0].message, /^payload of 280020 bytes is over the limit/)
  },
)

forms(
  'the same device, data point and time sent twice :: stored once, both events logged',
  async () => {
    const msg = {
      topic: 'telemetry',
      payload: { data_type: 'event', data: { hum: { time: 1700000300, value: 9 } } },
    }
    const n = (await eventsOf(t.admin, w.device.deviceID)).length
    assert.is((await post(dev, msg)).body.accepted, 1)
    assert.is((await post(dev, msg)).body.accepted, 1)
    const s = await stored(t, w.tenantID, w.device.deviceID, ['hum'])
    assert.equal(
      s.hum!.filter(([time]) => time === 1700000300000),
      [[1700000300000, 9]],
    )
    assert.is((await eventsOf(t.admin, w.device.deviceID)).length, n + 2)
  },
)

forms(
  'command response (form 4) :: the command succeeds with its code, no values stored',
  async () => {
    const cmd = await t.admin.post('/api/v1/device_publish', {
      deviceID: w.device.deviceID,
      payload: 'ping',
      ttl: 60,
    })
    assert.is(cmd.status, 201, cmd.text)
    const taskID = cmd.body.taskID
    assert.is((await dev.get('/api/v1/ingest/commands')).body.items[0].taskID, taskID)
    const r = await post(dev, {
      topic: 'inbox',
      payload: { data_type: 'response', result: { task_id: taskID, code: 200 } },
    })
    assert.equal(r.body, { accepted: 0, rejected: [] })
    let row: Record<string, unknown> | undefined
    for (let i = 0; i < 40 && row?.command_status !== 'succeeded'; i++) {
      await new Promise((ok) => setTimeout(ok, 25))
      row = await t.db.one(
        'SELECT publish_status, command_status, response_code FROM control_logs WHERE task_id = ?',
        [taskID],
      )
    }
    assert.equal(row, { publish_status: 2, command_status: 'succeeded', response_code: 200 })
    const e = (await eventsOf(t.admin, w.device.deviceID))[0]!
    assert.equal([e.status, e.topic], [1, 'inbox'])
  },
)

forms('a full mountpoint topic :: made relative', async () => {
  const full = `/mqtt/${w.tenantID}/${w.product.productID}/${w.device.deviceID}/telemetry`
  const r = await post(dev, { topic: full, payload: { hum: 3 } })
  assert.equal(r.body, { accepted: 1, rejected: [] })
})

forms.run()

const bodies = worldSuite(
  'POST /api/v1/ingest: batches, NDJSON, gzip, callers',
  { INGEST_LINGER_MS: '2', INGEST_BODY_LIMIT: String(4 * 1024 * 1024) },
  ready,
).test

bodies(
  '{messages} from an API caller :: deviceID required and must be the tenant’s; per-message rejections',
  async () => {
    const other = await t.newTenant()
    const foreign = await buildWorld(other, t)
    const r = await post(t.admin, {
      messages: [
        { deviceID: w.device.deviceID, topic: 'telemetry', payload: { temp: 1 } },
        { topic: 'telemetry', payload: { temp: 1 } },
        { deviceID: foreign.device.deviceID, topic: 'telemetry', payload: { temp: 1 } },
        { deviceID: 'no-such', topic: 'telemetry', payload: { temp: 1 } },
        { deviceID: w.child.deviceID, topic: 'telemetry', payload: { hum: 2, name: 'n' } },
        'junk',
        { deviceID: w.device.deviceID, topic: 'a/+', payload: {} },
      ],
    })
    assert.is(r.status, 202, r.text)
    assert.is(r.body.accepted, 3)
    assert.equal(r.body.rejected, [
      { index: 1, errorCode: 'FORM_INVALID', message: 'deviceID: required with API credentials' },
      {
        index: 2,
        errorCode: 'DATA_NOT_FOUND',
        message: `deviceID: no device ${foreign.device.deviceID}`,
      },
      { index: 3, errorCode: 'DATA_NOT_FOUND', message: 'deviceID: no device no-such' },
      {
        index: 5,
        errorCode: 'BAD_REQUEST',
        message: 'a message must be a JSON object {deviceID?, topic, payload}',
      },
      { index: 6, errorCode: 'FORM_INVALID', message: 'topic: must not contain wildcards' },
    ])
    assert.equal(await eventsOf(other, foreign.device.deviceID), [])
  },
)

bodies(
  'gateway credentials with a child deviceID :: accepted; another device’s deviceID :: DATA_NOT_FOUND',
  async () => {
    const gw = new Client(t.url, basic(w.gateway))
    const r = await post(gw, {
      messages: [
        { deviceID: w.child.deviceID, topic: 'telemetry', payload: { temp: 5 } },
        { deviceID: w.other.deviceID, topic: 'telemetry', payload: { temp: 5 } },
      ],
    })
    assert.is(r.body.accepted, 1)
    assert.equal(r.body.rejected, [
      { index: 1, errorCode: 'DATA_NOT_FOUND', message: `deviceID: no device ${w.other.deviceID}` },
    ])
    const d = await post(dev, {
      deviceID: w.other.deviceID,
      topic: 'telemetry',
      payload: { temp: 5 },
    })
    assert.equal(
      d.body.rejected.map((x: Wire<typeof IngestRejection>) => x.errorCode),
      ['DATA_NOT_FOUND'],
    )
  },
)

bodies(
  'NDJSON :: one message per non-empty line; a bad line is that message’s rejection',
  async () => {
    const lines = [
      JSON.stringify({ topic: 'telemetry', payload: { temp: 1 } }),
      '',
      '{not json',
      JSON.stringify({ topic: 'telemetry' }),
      JSON.stringify({ topic: 'telemetry', payload: { hum: 1, on: false } }),
    ].join('\n')
    const r = await post(dev, lines, { 'content-type': 'application/x-ndjson' })
    assert.is(r.status, 202, r.text)
    assert.equal(r.body, {
      accepted: 3,
      rejected: [
        { index: 1, errorCode: 'BAD_REQUEST', message: 'the line is not valid JSON' },
        {
          index: 2,
          errorCode: 'FORM_INVALID',
          message: 'payload: required: an uplink payload (object or JSON text)',
        },
      ],
    })
  },
)

bodies(
  'gzip body :: accepted; one that inflates past INGEST_BODY_LIMIT :: 413; bad gzip :: 400',
  async () => {
    const body = gzipSync(
      JSON.stringify({ messages: [{ topic: 'telemetry', payload: { temp: 2, hum: 3 } }] }),
    )
    const r = await post(dev, new Uint8Array(body), { 'content-encoding': 'gzip' })
    assert.equal([r.status, r.body], [202, { accepted: 2, rejected: [] }])
    const bomb = gzipSync(Buffer.alloc(5 * 1024 * 1024, 32))
    const b = await post(dev, new Uint8Array(bomb), { 'content-encoding': 'gzip' })
    assert.equal([b.status, b.body.errorCode], [413, 'PAYLOAD_TOO_LARGE'])
    const g = await post(dev, 'not gzip at all', { 'content-encoding': 'gzip' })
    assert.equal(
      [g.status, g.body.errorCode, g.body.errors],
      [400, 'BAD_REQUEST', { body: 'not valid gzip' }],
    )
  },
)

bodies(
  'bad bodies :: not JSON 400, not an object 400, messages not an array 422, over 10,000 messages 422',
  async () => {
    const cases: Array<[unknown, number, string, object]> = [
      ['{oops', 400, 'BAD_REQUEST', { body: 'not valid JSON' }],
      ['[1]', 400, 'BAD_REQUEST', { body: 'must be a JSON object' }],
      [{ messages: 5 }, 422, 'FORM_INVALID', { messages: 'must be an array of messages' }],
      [
        { messages: Array.from({ length: 10_001 }, () => ({})) },
        422,
        'FORM_INVALID',
        { messages: 'at most 10000 messages, got 10001' },
      ],
    ]
    for (const [body, status, code, errors] of cases) {
      const r = await post(dev, typeof body === 'string' ? body : JSON.stringify(body))
      assert.equal([r.status, r.body.errorCode, r.body.errors], [status, code, errors], r.text)
    }
  },
)

bodies(
  'credentials :: none or wrong 401, blocked device 403, viewer 403, application 202',
  async () => {
    const msg = { topic: 'telemetry', payload: { temp: 1 } }
    const none = await post(t.anon, msg)
    assert.equal([none.status, none.body.errorCode], [401, 'AUTH_FAILED'])
    const wrong = await post(
      new Client(
        t.url,
        basic({ deviceUsername: w.device.deviceUsername, token: 'x' + w.device.token }),
      ),
      msg,
    )
    assert.equal([wrong.status, wrong.body.errorCode], [401, 'AUTH_FAILED'])
    const unknown = await post(
      new Client(t.url, basic({ deviceUsername: 'nobody', token: 'x' })),
      msg,
    )
    assert.is(unknown.status, 401)
    const bearer = await post(new Client(t.url, 'Bearer nonsense'), msg)
    assert.is(bearer.status, 401)
    // through the API: the device directory HTTP ingest reads forgets a device on its change event
    const block = await t.admin.put(`/api/v1/devices/${w.other.id}`, { blocked: 1 })
    assert.is(block.status, 200, block.text)
    const blocked = await post(new Client(t.url, basic(w.other)), msg)
    assert.equal([blocked.status, blocked.body.errorCode], [403, 'PERMISSION_DENIED'])
    const byCaller = await post(t.admin, { ...msg, deviceID: w.other.deviceID })
    assert.equal(byCaller.body.rejected, [
      {
        index: 0,
        errorCode: 'PERMISSION_DENIED',
        message: `deviceID: ${w.other.deviceID} is blocked`,
      },
    ])
    const viewer = await t.userWithRole('viewer')
    const v = await post(viewer, { ...msg, deviceID: w.device.deviceID })
    assert.equal([v.status, v.body.errorCode], [403, 'PERMISSION_DENIED'])
    const app = await t.admin.post('/api/v1/applications', {
      appName: `ingest-app-${Date.now()}`,
      role: 'user',
    })
    assert.is(app.status, 201, app.text)
    const a = await post(
      new Client(t.url, basic({ deviceUsername: app.body.appID, token: app.body.appToken })),
      { ...msg, deviceID: w.device.deviceID },
    )
    assert.equal([a.status, a.body], [202, { accepted: 1, rejected: [] }])
  },
)

bodies(
  'events of HTTP ingest :: listed in /device_events with IP, status and reason, tenant-scoped',
  async () => {
    await post(dev, { topic: 'telemetry', payload: { temp: 'bad' } })
    const e = (await eventsOf(t.admin, w.device.deviceID))[0]!
    assert.equal([e.status, e.reason], [0, 'temp: expected a number, got "bad"'])
    assert.ok(e.IP === '127.0.0.1' || e.IP === '::ffff:127.0.0.1', e.IP!)
    const other = await t.newTenant()
    assert.equal(await eventsOf(other, w.device.deviceID), [])
  },
)

bodies(
  'certificate devices (authType 2) over HTTP :: ingest and command poll 401, also a cert gateway for its child and another tenant’s; a token device still 202',
  async () => {
    const msg = { topic: 'telemetry', payload: { temp: 1 } }
    const cert = await newDevice(t.admin, mqttBody(w.product.productID, { authType: 2 }))
    const certGw = await newGateway(t.admin, w.gwProduct.productID, { authType: 2 })
    const certChild = await newDevice(
      t.admin,
      mqttBody(w.product.productID, { upLinkSystem: 2, gateway: certGw.id }),
    )
    const other = await t.newTenant()
    const otherWorld = await buildWorld(other, t)
    const foreignCert = await newDevice(
      other,
      mqttBody(otherWorld.product.productID, { authType: 2 }),
    )
    const refused = { errorCode: 'AUTH_FAILED' }
    for (const d of [cert, certGw, foreignCert]) {
      assert.type(d.token, 'string', 'an admin reads the token of a certificate device')
      const c = new Client(t.url, basic(d))
      const up = await post(c, { ...msg, deviceID: d === certGw ? certChild.deviceID : undefined })
      assert.equal([up.status, up.body.errorCode], [401, refused.errorCode], up.text)
      const poll = await c.get('/api/v1/ingest/commands')
      assert.equal([poll.status, poll.body.errorCode], [401, refused.errorCode], poll.text)
    }
    assert.equal(await eventsOf(t.admin, cert.deviceID), [])
    assert.equal(await eventsOf(t.admin, certChild.deviceID), [])
    const ok = await post(dev, msg)
    assert.equal([ok.status, ok.body], [202, { accepted: 1, rejected: [] }])
    const poll = await dev.get('/api/v1/ingest/commands')
    assert.equal([poll.status, poll.body], [200, { items: [] }])
  },
)

bodies.run()
