import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn } from 'node:child_process'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import type { Wire } from '../../_support/wire.ts'
import type { LatestValues } from '../../../src/schemas/ingest.ts'
import type { Product } from '../../../src/schemas/products.ts'
import { mqttBody, newDevice, newGateway, newProduct, type NewDevice } from './devices-helpers.ts'
import { mkPoint, mkStream } from './_product-model.ts'
import { until } from '../../ingest/_mqtt.ts'
import { tenantOf } from '../../_support/fixtures.ts'
import { examplePayload } from '../../../src/services/onboarding.ts'

let t: TestService
let product: Wire<typeof Product>
let device: NewDevice

/** Runs a command line with sh; resolves with its exit code and output (killed after `ms`). */
function run(line: string, ms = 10_000): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', line], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), ms)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, out })
    })
  })
}

const conn = serviceSuite('GET /api/v1/devices/:id/connection', async (svc) => {
  t = svc
  product = await newProduct(t.admin)
  const point = await mkPoint(t.admin, product.id, 'temp')
  await mkStream(t.admin, product.productID, [point.id], { topic: 'telemetry' })
  device = await newDevice(t.admin, mqttBody(product.productID))
})

conn('admin :: broker URLs, credentials, full topics and mosquitto lines', async () => {
  const r = await t.admin.get(`/api/v1/devices/${device.id}/connection`)
  assert.is(r.status, 200, r.text)
  const port = t.svc.deps.broker.port
  const prefix = `/mqtt/${await tenantOf(t)}/${product.productID}/${device.deviceID}/`
  const cmd = `-h 127.0.0.1 -p ${port} -i ${device.deviceID} -u ${device.deviceUsername} -P ${device.token}`
  assert.equal(r.body, {
    deviceIntID: device.id,
    deviceID: device.deviceID,
    authType: 1,
    brokers: {
      mqtt: `mqtt://127.0.0.1:${port}`,
      mqtts: null,
      ws: `ws://127.0.0.1:${t.svc.deps.broker.wsPort}/mqtt`,
      wss: null,
    },
    clientID: device.deviceID,
    username: device.deviceUsername,
    password: device.token,
    passwordHint: "the device's token",
    topicPrefix: prefix,
    uplinkTopic: `${prefix}telemetry`,
    uplinkTopics: [{ topic: 'telemetry', fullTopic: `${prefix}telemetry`, dataPointIDs: ['temp'] }],
    inboxTopic: `${prefix}inbox`,
    commandResponseTopic: `${prefix}telemetry`,
    examplePayload: '{"temp":21.5}',
    mosquittoPub: `mosquitto_pub ${cmd} -q 1 -t ${prefix}telemetry -m '{"temp":21.5}'`,
    mosquittoSub: `mosquitto_sub ${cmd} -q 1 -t ${prefix}inbox -v`,
  })
})

conn('the answered mosquitto_pub line, run :: its data point shows in latest', async () => {
  const r = await t.admin.get(`/api/v1/devices/${device.id}/connection`)
  const ran = await run(r.body.mosquittoPub)
  assert.is(ran.code, 0, ran.out)
  const latest = await until(
    async () =>
      (await t.admin.get<Wire<typeof LatestValues>>(`/api/v1/devices/${device.id}/latest`)).body,
    (rows) => rows.some((x) => x.dataPointID === 'temp' && x.value !== null),
  )
  const temp = latest.find((x) => x.dataPointID === 'temp')!
  assert.is(temp.value, JSON.parse(r.body.examplePayload).temp)
})

conn('the answered mosquitto_sub line :: receives a command on the inbox', async () => {
  const r = await t.admin.get(`/api/v1/devices/${device.id}/connection`)
  // its own SUBSCRIBE, not only its CONNECT: a command sent between the two would go out on the relative topic
  // of the subscription the service made for it (ingest/broker/forms.ts)
  const subscribed = new Promise<void>((resolve) => {
    const on = (e: { deviceIntID: number; filters: string[] }) => {
      if (e.deviceIntID !== device.id || !e.filters.includes('inbox')) return
      t.svc.deps.bus.off('device.subscribed', on)
      resolve()
    }
    t.svc.deps.bus.on('device.subscribed', on)
  })
  const sub = run(`${r.body.mosquittoSub} -C 1 -W 10`, 12_000)
  const online = await until(
    async () => (await t.admin.get(`/api/v1/devices/${device.id}`)).body.deviceStatus,
    (s) => s === 1,
    5000,
  )
  assert.is(online, 1, 'mosquitto_sub connected')
  await subscribed
  const cmd = await t.admin.post('/api/v1/device_publish', {
    deviceID: device.deviceID,
    payload: { led: 'on' },
  })
  assert.is(cmd.status, 201, cmd.text)
  const got = await sub
  assert.is(got.code, 0, got.out)
  const [topic, ...rest] = got.out.trim().split(' ')
  assert.is(topic, r.body.inboxTopic)
  assert.equal(JSON.parse(rest.join(' ')), {
    data_type: 'request',
    task_id: cmd.body.taskID,
    data: { led: 'on' },
  })
})

conn('viewer :: the same answer with password null and a placeholder in the lines', async () => {
  const viewer = await t.userWithRole('viewer')
  const r = await viewer.get(`/api/v1/devices/${device.id}/connection`)
  assert.is(r.status, 200, r.text)
  assert.is(r.body.password, null)
  assert.match(r.body.passwordHint, /admin and user roles only/)
  assert.ok(r.body.mosquittoPub.includes(`-P '<token>'`), r.body.mosquittoPub)
  assert.not.ok(r.text.includes(device.token), 'the token appears nowhere')
  const user = await t.userWithRole('user')
  assert.is((await user.get(`/api/v1/devices/${device.id}/connection`)).body.password, device.token)
})

conn('product without data streams :: no uplink topic and no mosquitto_pub line', async () => {
  const bare = await newProduct(t.admin)
  const d = await newDevice(t.admin, mqttBody(bare.productID))
  const r = await t.admin.get(`/api/v1/devices/${d.id}/connection`)
  assert.is(r.status, 200, r.text)
  assert.equal(
    [r.body.uplinkTopic, r.body.uplinkTopics, r.body.examplePayload, r.body.mosquittoPub],
    [null, [], null, null],
  )
  assert.is(r.body.commandResponseTopic, `${r.body.topicPrefix}response`)
  assert.match(r.body.mosquittoSub, /^mosquitto_sub /)
})

conn('certificate device, no TLS listener :: no password, no command lines', async () => {
  const d = await newDevice(t.admin, mqttBody(product.productID, { authType: 2 }))
  const r = await t.admin.get(`/api/v1/devices/${d.id}/connection`)
  assert.is(r.status, 200, r.text)
  assert.equal(
    [r.body.authType, r.body.password, r.body.mosquittoPub, r.body.mosquittoSub],
    [2, null, null, null],
  )
  assert.match(r.body.passwordHint, /client certificate/)
})

conn('unknown id, another tenant, a gateway :: 404 DATA_NOT_FOUND', async () => {
  const other = await t.newTenant()
  const gw = await newGateway(t.admin, product.productID)
  for (const [client, id] of [
    [t.admin, 999_999],
    [other, device.id],
    [t.admin, gw.id],
  ] as const) {
    const r = await client.get(`/api/v1/devices/${id}/connection`)
    assert.is(r.status, 404, `${id}: ${r.text}`)
    assert.equal(r.body.errors, { id: 'not found' })
  }
})

conn('gateway :: /gateways/{id}/connection answers for it, not for a device', async () => {
  const gw = await newGateway(t.admin, product.productID)
  const r = await t.admin.get(`/api/v1/gateways/${gw.id}/connection`)
  assert.is(r.status, 200, r.text)
  assert.equal([r.body.deviceIntID, r.body.clientID], [gw.id, gw.deviceID])
  assert.is(r.body.uplinkTopic, `${r.body.topicPrefix}telemetry`)
  assert.is((await t.admin.get(`/api/v1/gateways/${device.id}/connection`)).status, 404)
})

conn('OpenAPI document :: both routes with the DeviceConnection answer', async () => {
  const doc = (await t.anon.get('/api/v1/openapi.json')).body
  const paths = Object.keys(doc.paths).filter((p) => p.endsWith('/connection'))
  assert.equal(paths.sort(), [
    '/api/v1/devices/{id}/connection',
    '/api/v1/gateways/{id}/connection',
  ])
  const answer = JSON.stringify(doc.paths['/api/v1/devices/{id}/connection'].get.responses)
  for (const field of ['mosquittoPub', 'inboxTopic', 'topicPrefix', 'brokers'])
    assert.ok(answer.includes(field) || JSON.stringify(doc.components ?? {}).includes(field), field)
})

conn.run()

const sample = suite('examplePayload')
const point = (dataPointID: string, pointDataType: number, extra: object = {}) =>
  [
    dataPointID,
    {
      id: 0,
      dataPointID,
      dataPointName: dataPointID,
      pointDataType,
      upperLimit: null,
      lowerLimit: null,
      binarySize: null,
      ...extra,
    },
  ] as const

sample('each simple type :: a value it accepts, within the limits; others left out', () => {
  const points = new Map([
    point('f', 1),
    point('capped', 1, { upperLimit: 10 }),
    point('i', 15, { lowerLimit: 30.2 }),
    point('b', 5),
    point('s', 3),
    point('fixed', 11, { binarySize: 3 }),
    point('geo', 6),
  ])
  assert.is(
    examplePayload([...points.keys(), 'unknown'], points),
    '{"f":21.5,"capped":10,"i":31,"b":true,"s":"hello","fixed":"xxx"}',
  )
  assert.is(examplePayload(['geo'], points), null)
})

sample.run()
