import * as assert from 'uvu/assert'
import { startTestService, type TestService } from '../_support/service.ts'
import { serviceSuite } from '../_support/suite.ts'
import { mkPoint, mkStream } from './routes/_product-model.ts'
import { mqttBody, newDevice, newProduct } from './routes/devices-helpers.ts'
import {
  connect,
  connectDevice,
  credentials,
  end,
  fullTopic,
  mqttUrl,
  until,
} from '../ingest/_mqtt.ts'

const TOKEN = 'metrics-token-0123456789'

/** `name{labels} value` lines of a Prometheus text exposition, comments left out. */
function samples(text: string) {
  return text
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(l)
      if (!m) throw new Error(`not a sample line: ${l}`)
      const labels: Record<string, string> = {}
      for (const [, k, v] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!
      return { name: m[1]!, labels, value: Number(m[3]) }
    })
}

/** The value of the sample with that name and those labels (0 when absent). */
function value(text: string, name: string, labels: Record<string, string> = {}) {
  const s = samples(text).find(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  )
  return s?.value ?? 0
}

let t: TestService
const scrape = () => t.anon.get('/metrics', { authorization: `Bearer ${TOKEN}` })

const metrics = serviceSuite('GET /metrics', (svc) => (t = svc), { METRICS_TOKEN: TOKEN })

metrics('no token, a wrong token :: 401 AUTH_FAILED in the API error shape', async () => {
  for (const headers of [
    {} as Record<string, string>,
    { authorization: 'Bearer wrong-token-0123456789' },
    { authorization: TOKEN },
  ]) {
    const r = await t.anon.get('/metrics', headers)
    assert.is(r.status, 401)
    assert.equal(r.body, {
      errorCode: 'AUTH_FAILED',
      message: 'Authentication failed',
      errors: { authorization: 'a valid metrics token is required' },
    })
    assert.is(r.headers.get('www-authenticate'), 'Bearer')
  }
})

metrics(
  'after HTTP traffic, an MQTT device, a refused connect, telemetry and a command :: every family, route templates, no device ids',
  async () => {
    const product = await newProduct(t.admin)
    const point = await mkPoint(t.admin, product.id, 'temp')
    const stream = await mkStream(t.admin, product.productID, [point.id])
    const device = await newDevice(t.admin, mqttBody(product.productID))
    assert.is((await t.admin.get(`/api/v1/devices/${device.id}`)).status, 200)
    assert.is((await t.anon.get('/no/such/path')).status, 404)

    const refused = await connect(mqttUrl(t), { ...credentials(device), password: 'wrong' })
    assert.ok(!refused.connack)
    end(refused.client)
    const c = await connectDevice(t, device)
    const topic = await fullTopic(t, device, stream.topic)
    await c.publishAsync(topic, JSON.stringify({ temp: 21.5 }), { qos: 1 })
    await c.publishAsync(topic, JSON.stringify({ temp: 'hot' }), { qos: 1 })
    const cmd = await t.admin.post('/api/v1/device_publish', {
      deviceID: device.deviceID,
      payload: { led: 'on' },
      wait: 5,
    })
    assert.is(cmd.status, 201, cmd.text)

    const r = await until(
      scrape,
      (r) => value(r.text, 'devicecloud_command_transitions_total', { status: 'delivered' }) >= 1,
    )
    assert.is(r.status, 200, r.text)
    assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
    const text = r.text
    for (const family of [
      'devicecloud_http_requests_total counter',
      'devicecloud_http_request_duration_seconds histogram',
      'devicecloud_mqtt_connections_open gauge',
      'devicecloud_mqtt_connections_total counter',
      'devicecloud_mqtt_connections_refused_total counter',
      'devicecloud_mqtt_messages_in_total counter',
      'devicecloud_mqtt_messages_out_total counter',
      'devicecloud_ingest_queue_points gauge',
      'devicecloud_ingest_batch_points histogram',
      'devicecloud_ingest_batch_duration_seconds histogram',
      'devicecloud_ingest_rejected_total counter',
      'devicecloud_command_transitions_total counter',
      'devicecloud_alert_transitions_total counter',
      'devicecloud_alert_queue_values gauge',
      'devicecloud_alert_values_dropped_total counter',
      'devicecloud_nodejs_eventloop_lag_seconds gauge',
      'devicecloud_process_cpu_seconds_total counter',
    ])
      assert.ok(text.includes(`# TYPE ${family}\n`), `missing ${family}`)

    const route = { method: 'GET', route: '/api/v1/devices/:id', status: '200' }
    assert.is(value(text, 'devicecloud_http_requests_total', route), 1)
    assert.is(value(text, 'devicecloud_http_requests_total', { route: '/no/such/path' }), 0)
    assert.ok(
      value(text, 'devicecloud_http_requests_total', { route: 'unmatched', status: '404' }) >= 1,
    )
    assert.ok(
      value(text, 'devicecloud_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/api/v1/device_publish',
      }) >= 1,
    )
    assert.is(value(text, 'devicecloud_mqtt_connections_open'), 1)
    assert.is(value(text, 'devicecloud_mqtt_connections_total'), 1)
    assert.is(
      value(text, 'devicecloud_mqtt_connections_refused_total', { reason: 'bad-credentials' }),
      1,
    )
    assert.is(value(text, 'devicecloud_mqtt_messages_in_total'), 2)
    assert.is(value(text, 'devicecloud_mqtt_messages_out_total'), 1)
    assert.ok(value(text, 'devicecloud_ingest_batch_points_count', { store: 'embedded' }) >= 1)
    assert.is(value(text, 'devicecloud_ingest_batch_points_sum', { store: 'embedded' }), 1)
    assert.is(value(text, 'devicecloud_ingest_rejected_total', { reason: 'FORM_INVALID' }), 1)
    assert.is(value(text, 'devicecloud_command_transitions_total', { status: 'sent' }), 1)
    assert.is(value(text, 'devicecloud_ingest_queue_points'), 0)
    assert.is(value(text, 'devicecloud_alert_queue_values'), 0)
    assert.is(value(text, 'devicecloud_alert_values_dropped_total'), 0)

    for (const id of [
      device.deviceID,
      device.deviceUsername,
      device.token,
      product.productID,
      TOKEN,
    ])
      assert.not.ok(text.includes(id), `${id} appears in the metrics`)
    const routes = new Set(samples(text).flatMap((s) => (s.labels.route ? [s.labels.route] : [])))
    for (const r of routes) assert.ok(r === 'unmatched' || !/\/\d+(\/|$)/.test(r), `route ${r}`)

    end(c)
    const after = await until(
      scrape,
      (r) => value(r.text, 'devicecloud_mqtt_connections_open') === 0,
    )
    assert.is(value(after.text, 'devicecloud_mqtt_connections_open'), 0)
  },
)

/** `# TYPE name type` lines of an exposition, as [name, type]. */
const families = (text: string) =>
  [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!] as const)

metrics(
  'families :: every # TYPE once; no family X beside a counter X_total or a histogram X_count/_sum/_bucket',
  async () => {
    const r = await scrape()
    assert.is(r.status, 200, r.text)
    const all = families(r.text)
    const names = all.map(([n]) => n)
    assert.equal(
      names.filter((n, i) => names.indexOf(n) !== i),
      [],
      'a # TYPE given twice',
    )
    // what Prometheus' parser folds into one family: a counter's name without _total, a histogram's series
    // (prom-client's gauges nodejs_active_handles and nodejs_active_handles_total are two gauges: no fold)
    const folded = new Map<string, string>()
    for (const [n, type] of all) {
      const base = type === 'counter' ? n.replace(/_total$/, '') : n
      const derived =
        type === 'histogram' ? [base, `${base}_count`, `${base}_sum`, `${base}_bucket`] : [base]
      for (const d of derived) {
        assert.not.ok(folded.has(d), `${n} (${type}) collides with ${folded.get(d)}`)
        folded.set(d, `${n} (${type})`)
      }
    }
  },
)

metrics(
  'state gauges :: queued and sent commands, open alerts by severity, read from the store',
  async () => {
    const product = await newProduct(t.admin)
    const device = await newDevice(t.admin, mqttBody(product.productID))
    for (let i = 0; i < 3; i++) {
      const r = await t.admin.post('/api/v1/device_publish', {
        deviceID: device.deviceID,
        payload: 'x',
        ttl: 600,
      })
      assert.is(r.status, 201, r.text)
    }
    const now = Date.now()
    for (const [name, severity] of [
      ['a', 1],
      ['b', 3],
      ['c', 3],
    ] as const)
      await t.db.run(
        `INSERT INTO current_alerts (tenant_id, alert_name, alert_severity, device_id, start_time, create_at)
       SELECT tenant_id, ?, ?, ?, ?, ? FROM users LIMIT 1`,
        [name, severity, device.deviceID, now, now],
      )
    // states are read at most every 5 s: wait for a fresh read
    const r = await until(
      scrape,
      (r) => value(r.text, 'devicecloud_alerts_current', { severity: '3' }) === 2,
      8000,
      250,
    )
    assert.ok(r.text.includes('# TYPE devicecloud_commands_pending gauge\n'))
    assert.is(value(r.text, 'devicecloud_commands_pending', { status: 'queued' }), 3)
    assert.is(value(r.text, 'devicecloud_commands_pending', { status: 'sent' }), 0)
    assert.is(value(r.text, 'devicecloud_alerts_current', { severity: '1' }), 1)
    assert.is(value(r.text, 'devicecloud_alerts_current', { severity: '2' }), 0)
    assert.is(value(r.text, 'devicecloud_alerts_current', { severity: '3' }), 2)
  },
)

metrics('METRICS=false :: /metrics is 404 and requests still carry a request id', async () => {
  const off = await startTestService({ METRICS: 'false' })
  try {
    const r = await off.anon.get('/metrics')
    assert.is(r.status, 404)
    assert.is(r.body.errorCode, 'DATA_NOT_FOUND')
    assert.ok(r.headers.get('x-request-id'))
  } finally {
    await off.close()
  }
})

metrics.run()
