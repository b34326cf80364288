import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { ConnectLog } from '../../src/schemas/logs.ts'
import { startTestService, type TestService, type Client } from '../_support/service.ts'
import type { Page, Wire } from '../_support/wire.ts'
import { mkPoint, mkStream } from '../src/routes/_product-model.ts'
import {
  mqttBody,
  newDevice,
  newProduct,
  uniq,
  type NewDevice,
} from '../src/routes/devices-helpers.ts'
import { connect, credentials, end, fullTopic, mqttUrl, until } from './_mqtt.ts'

let t: TestService
const tlsUrl = () => `mqtts://127.0.0.1:${t.svc.deps.broker.tlsPort}`

/** A certificate of the caller's tenant (POST /api/v1/certs), its detail with the PEM texts. */
async function newCert(c: Client, CN: string, enable = 1) {
  const r = await c.post('/api/v1/certs', { name: uniq('cert'), enable, CN })
  assert.is(r.status, 201, r.text)
  return r.body
}

async function bind(c: Client, certId: number, deviceId: number) {
  const r = await c.post(`/api/v1/certs/${certId}/devices`, { devicesIntID: [deviceId] })
  assert.is(r.status, 201, r.text)
}

/** A certificate (authType 2) device of a new product. */
async function certDevice(c: Client) {
  const product = await newProduct(c)
  return { product, device: await newDevice(c, mqttBody(product.productID, { authType: 2 })) }
}

const withCert = (d: NewDevice, cert: { cert: string; key: string }) => ({
  clientId: d.deviceID,
  username: d.deviceUsername,
  cert: cert.cert,
  key: cert.key,
  rejectUnauthorized: false, // the listener's default certificate is self-signed
})

const connectLogs = async (id: number) =>
  (
    await t.admin.get<Page<Wire<typeof ConnectLog>>>(
      `/api/v1/devices/${id}/connect_logs?_sort=id&_order=asc`,
    )
  ).body.items

const tls = suite('broker: MQTT over TLS, certificate devices')
tls.before(async () => {
  t = await startTestService({ MQTTS_PORT: '0' })
})
tls.after(async () => t.close())

tls('certificate bound and enabled :: connects over TLS, online', async () => {
  const { device } = await certDevice(t.admin)
  const cert = await newCert(t.admin, `cn-${device.deviceID.slice(0, 8)}`)
  await bind(t.admin, cert.id, device.id)
  const r = await connect(tlsUrl(), withCert(device, cert))
  assert.ok(r.connack, r.error?.message)
  const detail = await until(
    () => t.admin.get(`/api/v1/devices/${device.id}`),
    (x) => x.body.deviceStatus === 1,
  )
  assert.is(detail.body.deviceStatus, 1)
  end(r.client)
})

tls(
  'refusals :: unbound, disabled, another tenant CA with the same CN, no certificate, plain TCP',
  async () => {
    const { device } = await certDevice(t.admin)
    const cn = `cn-${device.deviceID.slice(0, 8)}`
    const unbound = await newCert(t.admin, cn)
    const expectRefused = async (url: string, opts: object, why: string) => {
      const r = await connect(url, opts)
      assert.is(r.connack, undefined, why)
      assert.is(r.error?.code, 5, `${why}: ${r.error?.message}`)
      r.client.end(true)
    }
    await expectRefused(tlsUrl(), withCert(device, unbound), 'not bound')
    const other = await t.newTenant()
    const foreign = await newCert(other, cn) // same CN, issued by the other tenant's CA
    const bound = await newCert(t.admin, `${cn}-b`)
    await bind(t.admin, bound.id, device.id)
    await expectRefused(
      tlsUrl(),
      withCert(device, { cert: foreign.cert, key: foreign.key }),
      'foreign CA',
    )
    await expectRefused(
      tlsUrl(),
      { clientId: device.deviceID, username: device.deviceUsername, rejectUnauthorized: false },
      'no certificate',
    )
    await expectRefused(mqttUrl(t), { ...credentials(device) }, 'plain TCP')
    assert.is((await t.admin.put(`/api/v1/certs/${bound.id}`, { enable: 0 })).status, 200)
    await expectRefused(tlsUrl(), withCert(device, bound), 'disabled')
    assert.is((await t.admin.put(`/api/v1/certs/${bound.id}`, { enable: 1 })).status, 200)
    const ok = await connect(tlsUrl(), withCert(device, bound))
    assert.ok(ok.connack, 're-enabled')
    end(ok.client)
    // the five refusals of one client id from one address are one row counting them
    const logs = await until(
      () => connectLogs(device.id),
      (x) => x.length >= 2 && x[0]?.attempts === 5,
    )
    assert.equal(
      logs.slice(0, 2).map((l) => [l.connectStatus, l.attempts]),
      [
        [2, 5],
        [1, 1],
      ],
    )
  },
)

tls(
  'token device over TLS :: accepted with its token; a certificate alone is not enough',
  async () => {
    const product = await newProduct(t.admin)
    const device = await newDevice(t.admin, mqttBody(product.productID))
    const r = await connect(tlsUrl(), { ...credentials(device), rejectUnauthorized: false })
    assert.ok(r.connack, r.error?.message)
    end(r.client)
    const cert = await newCert(t.admin, `tok-${device.deviceID.slice(0, 8)}`)
    await bind(t.admin, cert.id, device.id)
    const noToken = await connect(tlsUrl(), withCert(device, cert))
    assert.is(noToken.error?.code, 5)
    noToken.client.end(true)
  },
)

tls('uplink over TLS :: QoS 1 value stored before the PUBACK', async () => {
  const { product, device } = await certDevice(t.admin)
  const point = await mkPoint(t.admin, product.id, 'temp')
  const stream = await mkStream(t.admin, product.productID, [point.id])
  const cert = await newCert(t.admin, `up-${device.deviceID.slice(0, 8)}`)
  await bind(t.admin, cert.id, device.id)
  const r = await connect(tlsUrl(), withCert(device, cert))
  assert.ok(r.connack, r.error?.message)
  await r.client.publishAsync(
    await fullTopic(t, device, stream.topic),
    JSON.stringify({ temp: 36.6 }),
    { qos: 1 },
  )
  const tenantID = String(
    (await t.db.one('SELECT tenant_id FROM devices WHERE id = ?', [device.id]))?.tenant_id,
  )
  const series = await t.svc.deps.telemetry.readRaw({
    tenantID,
    deviceID: device.deviceID,
    dataPointIDs: ['temp'],
    start: 0,
    end: Date.now() + 1000,
  })
  assert.equal(series.get('temp')!.value, [36.6])
  end(r.client)
})

tls.run()
