/**
 * The record types of store/fields/products.ts (`RecordOf`) are compile-time claims: repositories do not parse
 * rows. These cases read real records through the ports and check each holds exactly its table's fields, of the
 * types the table declares, so a column that answers another type than declared fails here.
 */
import * as assert from 'uvu/assert'
import { all, holds, holdsRead, newPoint, newProduct, rawDevice, recordsSuite } from './_records.ts'
import { GROUP_MEMBER_TABLE, GROUP_TABLE, PRODUCT_TABLE } from '../../store/fields/products.ts'
import {
  APP_TEMPLATE_TABLE,
  DATA_POINT_TABLE,
  DATA_STREAM_DETAIL_TABLE,
  DATA_STREAM_TABLE,
  METRIC_TABLE,
  PRODUCT_RESOURCE_TABLE,
} from '../../store/fields/product-model.ts'
import {
  DEVICE_TABLE,
  GATEWAY_TABLE,
  type DeviceFields,
  type GatewayFields,
} from '../../store/fields/devices.ts'
import { emptyValues } from '../../store/fields/table.ts'
import { ALERT_RULE_TABLE } from '../../store/fields/alert-rules.ts'
import { DELIVERY_TABLE, OUTBOX_EVENT_TABLE, WEBHOOK_TABLE } from '../../store/fields/webhooks.ts'
import {
  CERT_DETAIL_TABLE,
  CERT_DEVICE_TABLE,
  CERT_TABLE,
  POLICY_CANDIDATE_TABLE,
  POLICY_DETAIL_TABLE,
  POLICY_DEVICE_TABLE,
  POLICY_TABLE,
  SUBSCRIPTION_TABLE,
} from '../../store/fields/access.ts'
import { NotFound, Referenced } from '../../store/errors.ts'

const { records, ctx } = recordsSuite('typed records (store/fields/products.ts)')

records(
  'products :: list, get, byProductID, create and update answer the table record',
  async () => {
    const p = ctx.meta.products
    const created = await p.create('T1', null, { productName: 'p1', cloudProtocol: 1 })
    const updated = await p.update('T1', created.id, { description: 'd' })
    assert.is(updated.description, 'd')
    assert.type(updated.updateAt, 'number')
    await p.create('T2', null, { productName: 'p1', cloudProtocol: 1, description: null })
    await holdsRead(PRODUCT_TABLE, p, [
      created,
      updated,
      await p.byProductID('T1', created.productID),
    ])
    assert.equal(
      (await p.list('T1', all)).items.map((r) => r.productName),
      ['p1'],
    )
  },
)

records('groups and members :: the table records, counts as numbers', async () => {
  const product = await newProduct(ctx.meta, 'p2')
  const d = await rawDevice(ctx.db, product.id, 1)
  const g = ctx.meta.groups
  const created = await g.create('T1', null, { productID: product.productID, groupName: 'g1' })
  await g.members.add('T1', created.id, [d])
  const got = await g.get('T1', created.id)
  assert.is(got.deviceCount, 1)
  holds(GROUP_TABLE, [
    created,
    got,
    await g.update('T1', created.id, {}),
    ...(await g.list('T1', all)).items,
  ])
  holds(GROUP_MEMBER_TABLE, (await g.members.list('T1', created.id, all)).items)
})

records('deletes refused or missing :: each repository keeps its message', async () => {
  const product = await newProduct(ctx.meta, 'p3')
  const group = await ctx.meta.groups.create('T1', null, {
    productID: product.productID,
    groupName: 'g3',
  })
  const refused = await ctx.meta.products.delete('T1', [product.id]).catch((e: unknown) => e)
  assert.instance(refused, Referenced)
  assert.is((refused as Referenced).message, `product ${product.id} (p3) still has 1 groups`)
  const missing = await ctx.meta.groups.delete('T1', [group.id, 999_999]).catch((e: unknown) => e)
  assert.instance(missing, NotFound)
  assert.is((missing as NotFound).message, 'no group 999999')
  await ctx.meta.groups.delete('T1', [group.id])
  await ctx.meta.products.delete('T1', [product.id])
  assert.is(
    (await ctx.meta.products.list('T1', all)).items.some((r) => r.id === product.id),
    false,
  )
})

records('data points :: list, get, create and update answer the table record', async () => {
  const product = await newProduct(ctx.meta, 'p4')
  const x = ctx.meta.dataPoints
  const created = await x.create('T1', null, product.id, {
    dataPointID: 'temp',
    dataPointName: 'Temperature',
    pointDataType: 1,
    dataTransType: 1,
    upperLimit: 40.5,
    enum: [{ code: 1 }],
  })
  const updated = await x.update('T1', created.id, { unitName: 'C', enum: null })
  assert.is(created.enum, '[{"code":1}]')
  assert.is(updated.unitName, 'C')
  assert.is(updated.enum, null)
  assert.is(updated.cloudProtocol, 1)
  await holdsRead(DATA_POINT_TABLE, x, [created, updated])
})

records('data streams :: the list and detail records, point links as JSON text', async () => {
  const product = await newProduct(ctx.meta, 'p5')
  const point = await newPoint(ctx.meta, product.id, 'hum', 'Humidity')
  const s = ctx.meta.dataStreams
  const created = await s.create('T1', null, product, {
    streamName: 's1',
    streamType: 1,
    streamDataType: 1,
    topic: 'telemetry',
    dataPoints: [point.id],
  })
  assert.is(created.dataPoints, `[${point.id}]`)
  assert.is(created.dataPointNames, '["Humidity"]')
  const updated = await s.update('T1', created.id, { detail: 'd', dataPoints: [] })
  assert.is(updated.dataPoints, '[]')
  holds(DATA_STREAM_DETAIL_TABLE, [created, updated, await s.get('T1', created.id)])
  holds(DATA_STREAM_TABLE, (await s.list('T1', all)).items)
})

records('metrics :: list, forProduct, get, create and update answer the table record', async () => {
  const product = await newProduct(ctx.meta, 'p6')
  const point = await newPoint(ctx.meta, product.id, 'temp', 'Temperature')
  const m = ctx.meta.metrics
  const { point: ref } = await m.pointsFor('T1', point.id)
  const created = await m.create(
    'T1',
    null,
    ref,
    { metricName: 'm1', metricType: 1, dataPointIntID: point.id, isShow: 1, expressions: 'value' },
    [point.id],
  )
  const updated = await m.update('T1', created.id, { remark: 'r', chartType: 1 }, [point.id])
  assert.is(updated.dataPointID, 'temp')
  assert.is(updated.remark, 'r')
  await holdsRead(METRIC_TABLE, m, [created, updated, ...(await m.forProduct('T1', product.id))])
})

records('product resources :: list, get, create and update answer the table record', async () => {
  const product = await newProduct(ctx.meta, 'p7')
  const point = await newPoint(ctx.meta, product.id, 'relay', 'Relay')
  const r = ctx.meta.productResources
  const created = await r.create('T1', null, product.id, { codeValue: 'c1' })
  assert.is(created.codeValueLabel, 'c1')
  assert.is(created.dataPointName, null)
  const updated = await r.update('T1', created.id, {
    itemName: 'Relay 1',
    dataPointIntID: point.id,
  })
  assert.is(updated.codeValueLabel, 'Relay 1')
  assert.is(updated.dataPointName, 'Relay')
  await holdsRead(PRODUCT_RESOURCE_TABLE, r, [created, updated])
})

records(
  'app templates :: list, ofDevice, get, create and update answer the table record',
  async () => {
    const product = await newProduct(ctx.meta, 'p8')
    const point = await newPoint(ctx.meta, product.id, 'lamp', 'Lamp')
    const d = await rawDevice(ctx.db, product.id, 8)
    const a = ctx.meta.appTemplates
    const created = await a.create('T1', null, product.id, {
      templateName: 't1',
      templateType: 1,
      dataPointIntID: point.id,
      places: [1, 2],
      defaultValues: [{ value: 1 }],
    })
    assert.is(created.places, '[1,2]')
    assert.is(created.dataPointID, 'lamp')
    const updated = await a.update('T1', created.id, { enum: [], topic: 'telemetry' })
    assert.is(updated.enum, '[]')
    await holdsRead(APP_TEMPLATE_TABLE, a, [
      created,
      updated,
      ...(await a.ofDevice('T1', d, all)).items,
    ])
  },
)

records('policies and bindings :: the table records, mqtt_acl as JSON text', async () => {
  const product = await newProduct(ctx.meta, 'p24')
  const d = await rawDevice(ctx.db, product.id, 4)
  await rawDevice(ctx.db, product.id, 5)
  const p = ctx.meta.policies
  const input = { name: 'pol', topic: 'a/#', access: 0, allow: 1 }
  const created = await p.create('T1', null, input)
  const other = await p.create('T1', null, { ...input, name: 'pol2', description: 'x' })
  await p.bindings.bindDevices('T1', created.id, [d])
  const got = await p.get('T1', created.id)
  assert.is(got.mqtt_acl, JSON.stringify([{ id: d }]))
  const updated = await p.update('T1', other.id, { description: null })
  assert.is(updated.description, null)
  holds(POLICY_DETAIL_TABLE, [created, got, updated])
  holds(POLICY_TABLE, [
    ...(await p.list('T1', all)).items,
    ...(await p.bindings.policies('T1', d, all)).items,
    ...(await p.bindings.candidatePolicies('T1', d, all)).items,
  ])
  holds(POLICY_DEVICE_TABLE, (await p.bindings.devices('T1', created.id, all)).items)
  holds(POLICY_CANDIDATE_TABLE, (await p.bindings.candidateDevices('T1', created.id, all)).items)
})

records('subscriptions :: the table records, ofDevice the stored fields', async () => {
  const product = await newProduct(ctx.meta, 'p25')
  const d = await rawDevice(ctx.db, product.id, 6)
  const s = ctx.meta.subscriptions
  const created = await s.create('T1', d, { topic: 'cfg/#', qos: 2 })
  holds(SUBSCRIPTION_TABLE, [created, ...(await s.list('T1', d, all)).items])
  assert.equal(await s.ofDevice(d), [{ topic: 'cfg/#', qos: 2 }])
})

records('certs :: the table records; a bound certificate is refused with its message', async () => {
  const product = await newProduct(ctx.meta, 'p26')
  const d = await rawDevice(ctx.db, product.id, 7)
  const c = ctx.meta.certs
  const created = await c.create('T1', null, { name: 'c1', enable: 1, CN: 'cn-1' })
  assert.is(created.CN, 'cn-1')
  const updated = await c.update('T1', created.id, { enable: 0 })
  assert.is(updated.enable, 0)
  assert.is(updated.cert, created.cert)
  await c.bindDevices('T1', created.id, [d])
  holds(CERT_DETAIL_TABLE, [created, updated, await c.get('T1', created.id)])
  holds(CERT_TABLE, (await c.list('T1', all)).items)
  holds(CERT_DEVICE_TABLE, (await c.devices('T1', created.id, all)).items)
  const refused = await c.delete('T1', [created.id]).catch((e: unknown) => e)
  assert.instance(refused, Referenced)
  assert.is(
    (refused as Referenced).message,
    `certificate ${created.id} (c1) is still bound to 1 devices`,
  )
})

records(
  'webhooks, deliveries and outbox events :: the table records, events as JSON text',
  async () => {
    const w = ctx.meta.webhooks
    const input = { url: 'http://127.0.0.1:9/h', events: ['alert.raised' as const], enable: 1 }
    const created = await w.create('T1', { ...input, secret: 's', userIntID: null }, 1)
    assert.is(created.events, '["alert.raised"]')
    const updated = await w.update('T1', created.id, { ...input, enable: 0 }, 2)
    assert.is(updated.updateAt, 2)
    await w.update('T1', created.id, input, 3)
    holds(WEBHOOK_TABLE, [created, updated, ...(await w.list('T1', all)).items])
    const event = {
      tenantID: 'T1',
      type: 'alert.raised' as const,
      time: 5,
      deviceID: null,
      data: '{}',
    }
    const [stored] = await w.append([event], 4)
    holds(OUTBOX_EVENT_TABLE, [
      ...(await w.eventsAfter('T1', 0, {}, 10)),
      ...(await w.eventsSince(stored!.id - 1, 10)),
    ])
    const deliveries = (await w.deliveries('T1', created.id, all)).items
    holds(DELIVERY_TABLE, deliveries)
    holds(DELIVERY_TABLE, [await w.retry('T1', created.id, deliveries[0]!.id, 6)])
  },
)

records('alert rules :: the table record, deviceIntIDs parsed once', async () => {
  const product = await newProduct(ctx.meta, 'p27')
  const r = ctx.meta.alertRules
  const input = {
    ruleName: 'hot',
    productIntID: product.id,
    deviceIntIDs: [3, 1],
    condition: 't > 1',
    alertSeverity: 2,
    forSeconds: 0,
    clearCondition: null,
    clearForSeconds: 0,
    noDataSeconds: null,
    alertContent: null,
    enable: 1,
  }
  const created = await r.create('T1', null, input, 1)
  assert.equal(created.deviceIntIDs, [3, 1])
  const updated = await r.update('T1', created.id, { ...input, deviceIntIDs: null }, 2)
  assert.is(updated.deviceIntIDs, null)
  const stored = (rule: { deviceIntIDs: number[] | null }) => ({
    ...rule,
    deviceIntIDs: rule.deviceIntIDs && JSON.stringify(rule.deviceIntIDs),
  })
  holds(
    ALERT_RULE_TABLE,
    [
      created,
      updated,
      await r.get('T1', created.id),
      ...(await r.list('T1', all)).items,
      ...(await r.enabledOf(product.id)),
    ].map(stored),
  )
})

records(
  'devices and gateways :: list, get, getAny, create and update answer the table record, a gateway read as a device too',
  async () => {
    const product = await newProduct(ctx.meta, 'p44')
    const repo = ctx.meta.devices
    const creds = (id: string) => ({ deviceID: id, deviceUsername: `u-${id}`, token: `t-${id}` })
    const gateway = await repo.gateways.create('T1', null, {
      ...(emptyValues(GATEWAY_TABLE) as GatewayFields),
      ...creds('gw-4'),
      productIntID: product.id,
      gatewayName: 'gw-4',
      location: 'roof',
    })
    const fields = {
      ...(emptyValues(DEVICE_TABLE) as DeviceFields),
      productIntID: product.id,
      gateway: gateway.id,
      location: { room: 2 },
      lora: { type: 'otaa' },
      metaData: { a: 1 },
      scopes: ['x'],
    }
    const parent = await repo.create('T1', null, { ...fields, ...creds('d-4'), deviceName: 'd-4' })
    const child = await repo.create('T1', null, {
      ...fields,
      ...creds('d-5'),
      deviceName: 'd-5',
      parentDevice: parent.id,
    })
    assert.is(child.parentDeviceName, 'd-4')
    assert.is(child.gatewayName, 'gw-4')
    assert.is(child.location, '{"room":2}')
    const updated = await repo.update('T1', child.id, {
      ...fields,
      ...creds('d-5'),
      deviceName: 'd-6',
    })
    assert.is(updated.deviceName, 'd-6')
    assert.type(updated.updateAt, 'number')
    const asDevice = await repo.getAny('T1', gateway.id)
    assert.is(asDevice.kind, 'gateway')
    assert.is(asDevice.deviceType, null)
    holds(DEVICE_TABLE, [
      parent,
      updated,
      asDevice,
      await repo.get('T1', parent.id),
      ...(await repo.list('T1', all, { kinds: ['device', 'gateway'] })).items,
    ])
    const gw = await repo.gateways.get('T1', gateway.id)
    assert.is(gw.deviceCount, 2)
    holds(GATEWAY_TABLE, [
      gateway,
      gw,
      await repo.gateways.update('T1', gateway.id, {
        ...(await repo.gateways.current('T1', gateway.id)),
        mac: null,
      }),
      ...(await repo.gateways.list('T1', all)).items,
    ])
  },
)

records.run()
