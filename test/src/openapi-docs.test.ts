import * as assert from 'uvu/assert'
import type { z } from 'zod'
import { createApp } from '../../src/app.ts'
import { enumerations, type EnumName } from '../../src/enums.ts'
import { parseTime, WIRE_TIME } from '../../src/kernel/time.ts'
import { buildOpenApi } from '../../src/openapi.ts'
import { wireShapes } from '../../src/wire/shapes.ts'
import type { DeviceCreate, DeviceWrite } from '../../src/schemas/devices.ts'
import type { Gateway } from '../../src/schemas/gateways.ts'
import type { Group } from '../../src/schemas/groups.ts'
import type { IngestMessage, IngestReply } from '../../src/schemas/ingest.ts'
import type { Product } from '../../src/schemas/products.ts'
import type { DeviceSchedule } from '../../src/schemas/schedules.ts'
import { ADMIN_EMAIL, ADMIN_PASSWORD, type TestService } from '../_support/service.ts'
import { serviceSuite } from '../_support/suite.ts'
import type { ErrorBody, Wire } from '../_support/wire.ts'
import { operationOf, operations, type OpenApi, type Schema } from './_openapi.ts'

let t: TestService
let doc: OpenApi

const docs = serviceSuite('openapi docs', async (svc) => {
  t = svc
  doc = (await t.anon.get<OpenApi>('/api/v1/openapi.json')).body
})

/** The JSON body of `POST path` (its schema and example). */
const jsonPost = (d: OpenApi, path: string) =>
  operationOf(d, path, 'post').requestBody!.content['application/json']!
const table = (name: EnumName) => enumerations[name] as Record<string, { en: string; zh: string }>
const nonNull = (s: Schema) => (s.anyOf ?? [s]).find((m) => m.type !== 'null') ?? s

/** Every field (body, answer, parameter) of the document named after an enumeration: where → schema. */
function enumFields(d: OpenApi, variant: 'A' | 'B' = 'A'): Array<[string, EnumName, Schema]> {
  const out: Array<[string, EnumName, Schema]> = []
  const nameOf = (field: string, path: string): EnumName | undefined =>
    variant === 'B' && field === 'deviceType'
      ? 'deviceTypeVariantB'
      : variant === 'B' && field === 'deviceStatus' && path.includes('connect_logs')
        ? 'connectStatus'
        : field in enumerations
          ? (field as EnumName)
          : undefined
  // walks every object under the bodies and answers, each of which may be a schema with `properties`
  const visit = (s: unknown, where: string, path: string) => {
    if (!s || typeof s !== 'object') return
    if (Array.isArray(s)) return s.forEach((x, i) => visit(x, `${where}[${i}]`, path))
    for (const [field, p] of Object.entries((s as Schema).properties ?? {})) {
      const name = nameOf(field, path)
      if (name) out.push([`${where}.${field}`, name, p])
    }
    for (const [k, v] of Object.entries(s))
      if (k !== 'example' && k !== 'examples') visit(v, `${where}.${k}`, path)
  }
  for (const { method, path, op } of operations(d)) {
    for (const p of op.parameters) {
      const name = nameOf(p.name, path)
      if (name) out.push([`${method} ${path} ?${p.name}`, name, p.schema])
    }
    visit(op.requestBody, `${method} ${path} body`, path)
    visit(op.responses, `${method} ${path} answer`, path)
  }
  return out
}

docs(
  'enumerations :: every field holding codes lists each code with its English and Chinese label',
  () => {
    const fields = enumFields(doc)
    assert.ok(fields.length > 100, String(fields.length))
    for (const [where, name, schema] of fields) {
      const { description } = nonNull(schema)
      assert.type(description, 'string', where)
      for (const [code, { en, zh }] of Object.entries(table(name))) {
        assert.ok(
          description!.includes(`${code} ${en}`),
          `${where}: ${code} ${en} in ${description}`,
        )
        if (zh !== en) assert.ok(description!.includes(zh), `${where}: ${zh}`)
      }
    }
    const product = jsonPost(doc, '/api/v1/products').schema!.properties!
    assert.is(
      product.cloudProtocol!.description,
      'cloudProtocol: 1 MQTT, 2 CoAP, 3 LwM2M, 4 LoRa, 5 HTTP, 6 WebSocket, 7 Modbus',
    )
    assert.equal(product.cloudProtocol!['x-enumNames'], [
      'MQTT',
      'CoAP',
      'LwM2M',
      'LoRa',
      'HTTP',
      'WebSocket',
      'Modbus',
    ])
    // every enumeration of src/enums.ts is explained somewhere (Variant B's device types in its own document)
    const text = JSON.stringify(doc)
    const { defs } = createApp(t.svc.deps, wireShapes('B'))
    const docB = buildOpenApi(defs, '0', 'B') as OpenApi
    const textB = JSON.stringify(docB)
    for (const name of Object.keys(enumerations))
      assert.ok(text.includes(`${name}: `) || textB.includes(`${name}: `), name)
    for (const [where, name, schema] of enumFields(docB, 'B'))
      for (const [code, { en }] of Object.entries(table(name)))
        assert.ok(nonNull(schema).description?.includes(`${code} ${en}`), `B ${where} ${code}`)
  },
)

const CREATES = [
  '/login',
  '/signup',
  '/users',
  '/applications',
  '/products',
  '/data_points',
  '/data_streams',
  '/devices',
  '/gateways',
  '/groups',
  '/groups/{id}/devices',
  '/metrics',
  '/product_resources',
  '/app_templates',
  '/policies',
  '/devices/{id}/policies',
  '/policies/{id}/devices',
  '/certs',
  '/certs/{id}/devices',
  '/devices/{id}/subscriptions',
  '/device_publish',
  '/group_publish',
  '/device_schedule_publish',
  '/group_schedule_publish',
  '/webhooks',
  '/alert_rules',
  '/alert_rules/test',
  '/ingest',
]

docs(
  'examples :: every JSON body, in both variants, has examples its own zod schema accepts',
  () => {
    for (const variant of ['A', 'B'] as const) {
      const { defs } = createApp(t.svc.deps, wireShapes(variant))
      const d = variant === 'A' ? doc : (buildOpenApi(defs, '0', variant) as OpenApi)
      const posts = operations(d).filter(
        ({ method, op }) =>
          method === 'post' && op.requestBody?.content['application/json']?.schema,
      )
      assert.ok(posts.length >= CREATES.length, String(posts.length))
      for (const { path, op } of posts) {
        const media = op.requestBody!.content['application/json']!
        const at = `${variant} POST ${path}`
        assert.ok('example' in media, `${at} has an example`)
        assert.equal(media.schema!.examples![0], media.example, at)
        const def = defs.find(
          (x) => x.method === 'post' && `/api/v1${x.path.replace(/:(\w+)/g, '{$1}')}` === path,
        )!
        const schema = (def.body ?? def.rawBody?.schema) as z.ZodType
        for (const example of media.schema!.examples!) {
          const parsed = schema.safeParse(example)
          assert.ok(parsed.success, `${at}: ${JSON.stringify(parsed.error?.issues)}`)
        }
      }
    }
    for (const path of CREATES) assert.ok(jsonPost(doc, `/api/v1${path}`).example, path)
  },
)

docs(
  'examples :: each create example, posted with the ids of records made before, is 2xx',
  async () => {
    const example = (path: string) => structuredClone(jsonPost(doc, `/api/v1${path}`).example)
    const posted = new Set<string>()
    /** The example with every reference replaced by a record created earlier in this test. */
    const fill = (value: unknown, refs: Record<string, unknown>): unknown => {
      if (Array.isArray(value)) return value.map((v) => fill(v, refs))
      if (!value || typeof value !== 'object') return value
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, k in refs ? refs[k] : fill(v, refs)]),
      )
    }
    const post = async <T = { id: number }>(
      path: string,
      refs: Record<string, unknown> = {},
      at = path,
      client = t.admin,
    ) => {
      const r = await client.post<T>(`/api/v1${at}`, fill(example(path), refs))
      posted.add(path)
      assert.ok(r.status >= 200 && r.status < 300, `POST ${at}: ${r.status} ${r.text}`)
      return r.body
    }
    const login = fill(example('/login'), { email: ADMIN_EMAIL, password: ADMIN_PASSWORD })
    assert.is((await t.anon.post('/api/v1/login', login)).status, 201)
    await post('/signup', {}, '/signup', t.anon)
    await post('/users')
    await post('/applications')
    const product = await post<Wire<typeof Product>>('/products')
    const byProduct = { productID: product.productID, productIntID: product.id }
    const point = await post('/data_points', byProduct)
    await post('/data_streams', { ...byProduct, dataPoints: [point.id] })
    const device = await post<Wire<typeof DeviceWrite>>('/devices', byProduct)
    const other = await post('/devices', { ...byProduct, deviceName: 'thermometer-2' })
    const gateway = await post<Wire<typeof Gateway>>('/gateways', byProduct)
    const group = await post<Wire<typeof Group>>('/groups', byProduct)
    await post('/groups/{id}/devices', { ids: [device.id] }, `/groups/${group.id}/devices`)
    await post('/metrics', { dataPointIntID: point.id })
    await post('/product_resources', byProduct)
    await post('/app_templates', { ...byProduct, dataPointIntID: point.id })
    const policy = await post('/policies')
    await post('/devices/{id}/policies', { ids: [policy.id] }, `/devices/${device.id}/policies`)
    const bind = { devicesIntID: [other.id] }
    await post('/policies/{id}/devices', bind, `/policies/${policy.id}/devices`)
    const cert = await post('/certs')
    await post('/certs/{id}/devices', bind, `/certs/${cert.id}/devices`)
    await post('/devices/{id}/subscriptions', {}, `/devices/${device.id}/subscriptions`)
    const byDevice = { deviceID: device.deviceID, deviceIntID: device.id }
    const byGroup = { groupID: group.groupID, groupIntID: group.id }
    await post('/device_publish', byDevice)
    await post('/group_publish', byGroup)
    await post('/device_schedule_publish', byDevice)
    await post('/group_schedule_publish', byGroup)
    await post('/webhooks')
    await post('/alert_rules', byProduct)
    await post('/alert_rules/test', { ...byProduct, deviceID: device.deviceID })
    // ingest: the single message (the operation's example) and the batch, from the device and the gateway made above
    const [single, batch] = structuredClone(jsonPost(doc, '/api/v1/ingest').schema!.examples!) as [
      IngestMessage,
      { messages: IngestMessage[] },
    ]
    assert.equal(single, example('/ingest'))
    const one = await t.admin.post<Wire<typeof IngestReply>>('/api/v1/ingest', {
      ...single,
      deviceID: device.deviceID,
    })
    assert.is(one.status, 202, one.text)
    assert.is(one.body.accepted, 1, one.text) // temp; humidity is no data point of the product
    for (const m of batch.messages)
      m.deviceID = m.deviceID === 'gateway-1' ? gateway.deviceID : device.deviceID
    const many = await t.admin.post<Wire<typeof IngestReply>>('/api/v1/ingest', batch)
    assert.is(many.status, 202, many.text)
    assert.ok(many.body.accepted >= 1, many.text)
    assert.equal(
      CREATES.filter((path) => !posted.has(path)),
      ['/login', '/ingest'],
    )
  },
)

docs(
  'uplink forms and commands :: documented in the ingest body, the publish operations and the info',
  () => {
    const ingest = jsonPost(doc, '/api/v1/ingest').schema!
    for (const form of [
      '{"temp":21.5',
      '{"data_type":"event","stream_id":"s1","data":{"temp":{"time":1700000000,"value":21.5}}}',
      '"devices":[{"device_id":"child-1","data":',
      '{"data_type":"response","result":{"task_id":"<taskID>","code":200}}',
    ])
      assert.ok(ingest.description!.includes(form), form)
    for (const path of ['/api/v1/device_publish', '/api/v1/group_publish']) {
      const body = jsonPost(doc, path).schema!
      assert.ok(
        body.description!.includes('{"data_type":"request","task_id":"<taskID>","data":'),
        path,
      )
      assert.ok(body.description!.includes('`inbox`'), path)
      assert.ok(body.description!.includes('{"data_type":"response"'), path)
    }
    assert.match(doc.info.description, '## Devices and MQTT')
    assert.match(doc.info.description, 'deviceUsername')
    assert.match(doc.info.description, '/{protocol}/{tenantID}/{productID}/{deviceID}/')
  },
)

docs(
  'crontabTime :: the pattern takes February 29 of leap years, as the service does',
  async () => {
    const body = jsonPost(doc, '/api/v1/device_schedule_publish')
    const pattern = new RegExp(body.schema!.properties!.crontabTime!.anyOf![0]!.pattern!)
    assert.ok(pattern.test('2028-02-29 10:00:00'))
    assert.not.ok(pattern.test('2027-02-29 10:00:00'))
    // the pattern is exactly the dates parseTime reads, over four centuries
    for (let year = 1899; year <= 2401; year++)
      for (let month = 1; month <= 12; month++)
        for (let day = 28; day <= 31; day++) {
          const text = `${year}-${String(month).padStart(2, '0')}-${day} 23:59:59`
          assert.is(pattern.test(text), parseTime(text, 'UTC') !== null, text)
        }
    assert.is(pattern.source, WIRE_TIME.source)
    const product = await t.admin.post<Wire<typeof Product>>('/api/v1/products', {
      productName: 'Leap',
      cloudProtocol: 1,
    })
    const made = await t.admin.post<Wire<typeof DeviceWrite>>('/api/v1/devices', {
      ...(jsonPost(doc, '/api/v1/devices').example as DeviceCreate),
      productID: product.body.productID,
      deviceName: 'leap',
    })
    assert.is(made.status, 201, made.text)
    const device = made.body
    const at = <T>(crontabTime: string) =>
      t.admin.post<T>('/api/v1/device_schedule_publish', {
        deviceIntID: device.id,
        scheduleName: `leap ${crontabTime}`,
        scheduleType: 1,
        crontabTime,
        payload: 'x',
      })
    const leap = await at('2028-02-29 10:00:00')
    assert.is(leap.status, 201, leap.text)
    const stored = await t.admin.get<Wire<typeof DeviceSchedule>>(leap.headers.get('location')!)
    assert.is(stored.body.crontabTime, '2028-02-29 10:00:00')
    const common = await at<ErrorBody & { errors: Record<string, string> }>('2027-02-29 10:00:00')
    assert.is(common.status, 422)
    assert.ok(common.body.errors.crontabTime)
    // every other documented time: startTime/endTime of the logs, alert rule tests, application expiry
    const patterns = new Set<string>()
    const collect = (s: unknown) => {
      if (!s || typeof s !== 'object') return
      if ('pattern' in s && typeof s.pattern === 'string' && s.pattern.includes('02-'))
        patterns.add(s.pattern)
      Object.values(s).forEach(collect)
    }
    collect(doc.paths)
    assert.equal([...patterns], [WIRE_TIME.source])
    const logs = await t.admin.get(
      '/api/v1/device_connect_logs?startTime=2028-02-29%2000:00:00&endTime=2028-02-29%2023:59:59',
    )
    assert.is(logs.status, 200, logs.text)
  },
)

docs('/docs :: renders the meanings, the payload forms and the examples', async () => {
  const r = await t.anon.get('/docs')
  assert.is(r.status, 200)
  assert.match(r.headers.get('content-type')!, /text\/html/)
  assert.match(r.text, '<h2>Devices and MQTT</h2>')
  assert.match(r.text, 'cloudProtocol: 1 MQTT, 2 CoAP')
  assert.match(r.text, 'alertSeverity: 1 Urgent (紧急)')
  assert.match(r.text, '<h4>Example</h4><pre>{\n  &#34;productName&#34;: &#34;Thermometer&#34;')
  assert.match(r.text, '&#34;data_type&#34;:&#34;response&#34;')
})

docs(
  'device state :: the worked example on /docs; the patches and the document with examples; 409 listed',
  async () => {
    const r = await t.anon.get('/docs')
    assert.match(r.text, '<h2>Device state: desired and reported</h2>')
    assert.match(r.text, 'Worked example.')
    assert.match(r.text, '409 VERSION_CONFLICT')
    const patch = operationOf(doc, '/api/v1/devices/{id}/state', 'patch')
    assert.equal(patch.requestBody!.content['application/json']!.example, {
      desired: { setpoint: 21, schedule: null },
      version: 2,
    })
    assert.ok(patch.responses['409'], 'the conflict is documented')
    assert.ok(patch.responses['413'])
    const got = operationOf(doc, '/api/v1/devices/{id}/state', 'get')
    const answer = got.responses['200']!.content!['application/json']!
    assert.ok(answer.example ?? answer.schema?.examples, 'the document has an example')
    for (const path of ['/api/v1/groups/{id}/state', '/api/v1/products/{id}/state'])
      assert.ok(operationOf(doc, path, 'patch').responses['202'], path)
    assert.ok(operationOf(doc, '/api/v1/ingest/state', 'get'))
    assert.ok(operationOf(doc, '/api/v1/ingest/state', 'post'))
  },
)

docs.run()
