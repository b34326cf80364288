/**
 * GET /api/v1/devices_located: the devices a map can place (their own latitude and longitude, or a product with a
 * geolocation data point), a few fields each, paged by id; another tenant's never; bad paging parameters are a 400.
 */
import * as assert from 'uvu/assert'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import type { Wire } from '../../_support/wire.ts'
import type { DevicesLocated } from '../../../src/schemas/devices.ts'
import { assertError, mkPoint, mkProduct } from './_product-model.ts'
import { mqttBody, newDevice, newGateway } from './devices-helpers.ts'

type Located = Wire<typeof DevicesLocated>

let t: TestService
const test = serviceSuite('devices_located', (svc) => (t = svc))

test('located and geolocated devices, nothing else, nobody else’s :: their few fields, by id', async () => {
  const plain = await mkProduct(t.admin)
  const tracked = await mkProduct(t.admin)
  await mkPoint(t.admin, tracked.id, 'pos', { pointDataType: 6 })
  const placed = await newDevice(
    t.admin,
    mqttBody(plain.productID, { deviceName: 'placed', latitude: 52.52, longitude: 13.405 }),
  )
  const nowhere = await newDevice(t.admin, mqttBody(plain.productID, { deviceName: 'nowhere' }))
  const tracker = await newDevice(t.admin, mqttBody(tracked.productID, { deviceName: 'tracker' }))
  const trackerPlaced = await newDevice(
    t.admin,
    mqttBody(tracked.productID, { deviceName: 'tracker-placed', latitude: -33.9, longitude: 18.4 }),
  )
  // a gateway with a position is no device of the map; another tenant's located device never shows
  await newGateway(t.admin, plain.productID, { latitude: 1, longitude: 2 })
  const other = await t.newTenant()
  const otherProduct = await mkProduct(other)
  const far = await newDevice(
    other,
    mqttBody(otherProduct.productID, { deviceName: 'far', latitude: 10, longitude: 10 }),
  )

  const r = await t.admin.get<Located>('/api/v1/devices_located')
  assert.is(r.status, 200, r.text)
  assert.is(r.body.next, null)
  assert.equal(r.body.items, [
    {
      id: placed.id,
      deviceID: placed.deviceID,
      deviceName: 'placed',
      deviceStatus: 0,
      productID: plain.productID,
      latitude: 52.52,
      longitude: 13.405,
    },
    {
      id: tracker.id,
      deviceID: tracker.deviceID,
      deviceName: 'tracker',
      deviceStatus: 0,
      productID: tracked.productID,
      latitude: null,
      longitude: null,
    },
    {
      id: trackerPlaced.id,
      deviceID: trackerPlaced.deviceID,
      deviceName: 'tracker-placed',
      deviceStatus: 0,
      productID: tracked.productID,
      latitude: -33.9,
      longitude: 18.4,
    },
  ])
  assert.not.ok(r.body.items.some((d) => d.id === nowhere.id))
  const theirs = await other.get<Located>('/api/v1/devices_located')
  assert.equal(
    theirs.body.items.map((d) => d.id),
    [far.id],
  )
  // a viewer reads it too
  const viewer = await t.userWithRole('viewer')
  assert.is((await viewer.get<Located>('/api/v1/devices_located')).body.items.length, 3)
})

test('paging :: _limit devices a page, next chains the pages to null, every device once', async () => {
  const tenant = await t.newTenant()
  const product = await mkProduct(tenant)
  const ids: number[] = []
  for (let i = 0; i < 5; i++)
    ids.push(
      (
        await newDevice(
          tenant,
          mqttBody(product.productID, { deviceName: `p${i}`, latitude: i, longitude: i }),
        )
      ).id,
    )
  const seen: number[] = []
  let after: number | null = 0
  let pages = 0
  while (after !== null) {
    const r: { status: number; text: string; body: Located } = await tenant.get<Located>(
      `/api/v1/devices_located?_limit=2&afterID=${after}`,
    )
    assert.is(r.status, 200, r.text)
    assert.ok(r.body.items.length <= 2)
    seen.push(...r.body.items.map((d) => d.id))
    after = r.body.next
    pages++
  }
  assert.equal(seen, ids)
  assert.is(pages, 3)
})

test('bad paging parameters :: 400 naming them', async () => {
  for (const [q, field] of [
    ['_limit=0', '_limit'],
    ['_limit=5001', '_limit'],
    ['_limit=two', '_limit'],
    ['afterID=-1', 'afterID'],
    ['afterID=1.5', 'afterID'],
    ['afterID=99999999999999999999', 'afterID'],
  ] as const)
    assertError(await t.admin.get(`/api/v1/devices_located?${q}`), 400, 'PARAMETER_INVALID', [
      field,
    ])
  assertError(await t.anon.get('/api/v1/devices_located'), 401, 'AUTH_FAILED', ['authorization'])
})

test.run()
