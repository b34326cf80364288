import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { TestService } from '../_support/service.ts'
import { serviceSuite } from '../_support/suite.ts'
import { loadConfig, ConfigError } from '../../src/kernel/config.ts'
import { pickLang } from '../../src/http/env.ts'

let t: TestService

const http = serviceSuite('http conventions', (svc) => (t = svc), { BODY_LIMIT: '2048' })

http('unknown path :: 404 DATA_NOT_FOUND errors.url in the error shape', async () => {
  const r = await t.admin.get('/api/v1/nothing-here')
  assert.is(r.status, 404)
  assert.equal(r.body, {
    errorCode: 'DATA_NOT_FOUND',
    message: r.body.message,
    errors: { url: 'no such path: /api/v1/nothing-here' },
  })
  assert.match(r.headers.get('content-type')!, /application\/json/)
})

http('wrong method :: 405 METHOD_NOT_ALLOWED with Allow', async () => {
  const r = await t.admin.call('PATCH', '/api/v1/products')
  assert.is(r.status, 405)
  assert.is(r.body.errorCode, 'METHOD_NOT_ALLOWED')
  assert.match(r.headers.get('allow')!, /GET/)
})

http(
  'a method another route serves at a path that also fits `:id` :: 405 with Allow, not 404',
  async () => {
    // PUT /alert_rules/:id is routed, but "test" is no record id and POST /alert_rules/test exists
    const r = await t.admin.put('/api/v1/alert_rules/test', {})
    assert.is(r.status, 405, r.text)
    assert.is(r.body.errorCode, 'METHOD_NOT_ALLOWED')
    assert.is(r.headers.get('allow'), 'POST')
    // a method no route has: the same Allow, without the methods of /alert_rules/{id}
    const options = await t.admin.call('OPTIONS', '/api/v1/alert_rules/test')
    assert.is(options.status, 405)
    assert.is(options.headers.get('allow'), 'POST')
    // a non-numeric id where no other route has the path stays a 404 naming the id
    const missing = await t.admin.get('/api/v1/device_consoles/abc')
    assert.is(missing.status, 404)
    assert.equal(missing.body.errors, { id: 'not found' })
    assert.is((await t.admin.get('/api/v1/alert_rules/12345678901234567')).status, 404)
  },
)

http('body over the limit :: 413 PAYLOAD_TOO_LARGE', async () => {
  const r = await t.admin.post('/api/v1/products', {
    productName: 'x'.repeat(5000),
    cloudProtocol: 1,
  })
  assert.is(r.status, 413)
  assert.is(r.body.errorCode, 'PAYLOAD_TOO_LARGE')
})

http('health :: 200', async () => {
  const r = await t.anon.get('/health')
  assert.is(r.status, 200)
  assert.is(r.body.status, 'ok')
})

http('pickLang :: English only when preferred', () => {
  assert.is(pickLang(undefined), 'zh')
  assert.is(pickLang('en'), 'en')
  assert.is(pickLang('zh-CN,zh;q=0.9,en;q=0.8'), 'zh')
  assert.is(pickLang('fr;q=0.5, en-GB;q=0.8'), 'en')
})

const config = suite('config')

config('defaults :: the README table', () => {
  const c = loadConfig({})
  assert.is(c.PORT, 8080)
  assert.is(c.HOST, '0.0.0.0')
  assert.is(c.DATA_DIR, './data')
  assert.is(c.DATABASE_URL, 'file:./data/devicecloud.db')
  assert.is(c.MQTT_PORT, 1883)
  assert.is(c.MQTT_WS_PORT, 8083)
  assert.is(c.TIMEZONE, 'UTC')
  assert.is(c.ALLOW_SIGNUP, false)
  assert.is(c.INFLUX_URL, undefined)
  assert.is(c.MQTT_MAX_PACKET_BYTES, 1024 * 1024)
  assert.is(c.MQTT_MAX_CONNECTIONS, 100_000)
})

config(
  'WEBHOOK_ALLOW_PRIVATE :: true by default, false with ALLOW_SIGNUP, an explicit value wins',
  () => {
    assert.is(loadConfig({}).WEBHOOK_ALLOW_PRIVATE, true)
    assert.is(loadConfig({ ALLOW_SIGNUP: 'true' }).WEBHOOK_ALLOW_PRIVATE, false)
    assert.is(
      loadConfig({ ALLOW_SIGNUP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' }).WEBHOOK_ALLOW_PRIVATE,
      true,
    )
    assert.is(loadConfig({ WEBHOOK_ALLOW_PRIVATE: '0' }).WEBHOOK_ALLOW_PRIVATE, false)
  },
)

config('bad keys :: one error listing every bad key', () => {
  try {
    loadConfig({ PORT: 'abc', TIMEZONE: 'Mars/Base', INFLUX_URL: 'http://x:8086' })
    assert.unreachable()
  } catch (e) {
    assert.instance(e, ConfigError)
    const msg = (e as Error).message
    for (const key of ['PORT', 'TIMEZONE', 'INFLUX_URL']) assert.match(msg, key)
  }
})

http.run()
config.run()
