import * as assert from 'uvu/assert'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { ProductListItem } from '../../../src/schemas/products.ts'
import type { ProductListItem as ProductListItemB } from '../../../src/variant-b/schemas/products.ts'
import { kits, variants } from './_variant.ts'
import { assertBadIds, assertTaken, postNotJson } from '../../_support/asserts.ts'

const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/

/** A product in a list, in either variant's form; the suite also reads its counts by name. */
type ProductItem = (Wire<typeof ProductListItem> | Wire<typeof ProductListItemB>) &
  Record<string, unknown>

for (const v of variants) {
  const k = kits[v]
  /** Registers a case only under Variant A (cloud protocols are Variant A's). */
  const onlyA = (name: string, fn: () => Promise<void>) => {
    if (k.v === 'A') products(name, fn)
  }
  let t: TestService

  const products = serviceSuite(`products (Variant ${v})`, (svc) => (t = svc), k.env)

  products('create :: 201 with the stored record, zh label, updateAt null', async () => {
    const r = await t.admin.post(
      '/api/v1/products',
      k.productBody({ productName: 'Thermo', cloudProtocol: 1, description: 'a' }),
    )
    assert.is(r.status, 201)
    const { id, productID, createAt, ...rest } = r.body
    assert.type(id, 'number')
    assert.match(productID, /^[A-Za-z0-9]{6}$/)
    assert.match(createAt, TIME)
    assert.equal(
      rest,
      k.v === 'A'
        ? {
            productName: 'Thermo',
            description: 'a',
            cloudProtocol: 1,
            cloudProtocolLabel: 'MQTT',
            deviceCount: 0,
            createUser: 'admin',
            userIntID: rest.userIntID,
            updateAt: null,
            rawRetentionDays: null,
            eventRetentionDays: null,
          }
        : {
            productName: 'Thermo',
            description: 'a',
            deviceCount: 0,
            devices: [],
            userIntID: rest.userIntID,
            createUser: 'admin',
            updateAt: null,
            rawRetentionDays: null,
            eventRetentionDays: null,
          },
    )
    assert.type(rest.userIntID, 'number')
  })

  products(
    'retention days :: set on create, kept by an edit without them, reset by null, bad values 422',
    async () => {
      const c = await t.admin.post(
        '/api/v1/products',
        k.productBody({ productName: 'Kept', cloudProtocol: 1, description: 'r' }),
      )
      const id = c.body.id
      const set = await t.admin.put(`/api/v1/products/${id}`, {
        rawRetentionDays: 7,
        eventRetentionDays: 400,
      })
      assert.is(set.status, 200)
      assert.is(set.body.rawRetentionDays, 7)
      assert.is(set.body.eventRetentionDays, 400)
      const kept = await t.admin.put(`/api/v1/products/${id}`, { productName: 'Kept2' })
      assert.is(kept.body.rawRetentionDays, 7, 'an edit without the field keeps it')
      const reset = await t.admin.put(`/api/v1/products/${id}`, { rawRetentionDays: null })
      assert.is(reset.body.rawRetentionDays, null)
      assert.is(reset.body.eventRetentionDays, 400)
      for (const bad of [0, -1, 1.5, '7', 36_501]) {
        const r = await t.admin.put(`/api/v1/products/${id}`, { eventRetentionDays: bad })
        assert.is(r.status, 422, `eventRetentionDays ${bad}`)
        assert.is(r.body.errorCode, 'FORM_INVALID')
        assert.type(r.body.errors.eventRetentionDays, 'string')
      }
      const detail = await t.admin.get(`/api/v1/products/${id}`)
      assert.is(detail.body.eventRetentionDays, 400, 'a refused edit changed nothing')
    },
  )

  onlyA('detail in English :: label from Accept-Language', async () => {
    const c = await t.admin.post(
      '/api/v1/products',
      k.productBody({ productName: 'Modbus box', cloudProtocol: 7 }),
    )
    const r = await t.admin.get(`/api/v1/products/${c.body.id}`, {
      'accept-language': 'en-US,en;q=0.9',
    })
    assert.is(r.status, 200)
    assert.is(r.body.cloudProtocolLabel, 'Modbus')
    assert.is(r.body.description, null)
  })

  products('missing fields :: 422 FORM_INVALID naming every field', async () => {
    const r = await t.admin.post('/api/v1/products', {})
    assert.is(r.status, 422)
    assert.is(r.body.errorCode, 'FORM_INVALID')
    assert.equal(Object.keys(r.body.errors).sort(), k.requiredProductFields)
  })

  onlyA('cloudProtocol out of range :: 422 errors.cloudProtocol', async () => {
    const r = await t.admin.post(
      '/api/v1/products',
      k.productBody({ productName: 'x1', cloudProtocol: 9 }),
    )
    assert.is(r.status, 422)
    assert.match(r.body.errors.cloudProtocol, /one of 1, 2, 3, 4, 5, 6, 7/)
  })

  products('wrong type :: 422', async () => {
    const r = await t.admin.post('/api/v1/products', {
      productName: 5,
      cloudProtocol: '1',
      description: 6,
    })
    assert.is(r.status, 422)
    assert.ok(r.body.errors.productName && r.body.errors.description)
    if (k.v === 'A') assert.ok(r.body.errors.cloudProtocol)
  })

  products('non-JSON body :: 400 BAD_REQUEST', async () => {
    await postNotJson(t.admin, '/api/v1/products', '{nope')
    const arr = await t.admin.post('/api/v1/products', [1, 2])
    assert.is(arr.status, 400)
    assert.is(arr.body.errorCode, 'BAD_REQUEST')
  })

  products('duplicate name :: 400 DATA_EXISTED errors.productName', async () => {
    await t.admin.post('/api/v1/products', k.productBody({ productName: 'Dup', cloudProtocol: 1 }))
    const r = await t.admin.post(
      '/api/v1/products',
      k.productBody({ productName: 'Dup', cloudProtocol: 2 }),
    )
    assertTaken(r, 'productName')
  })

  products('SQL-looking name :: stored verbatim', async () => {
    const name = "x'); DROP TABLE products; --"
    const r = await t.admin.post(
      '/api/v1/products',
      k.productBody({ productName: name, cloudProtocol: 1 }),
    )
    assert.is(r.status, 201)
    const back = await t.admin.get(
      `/api/v1/products?productName_like=${encodeURIComponent('DROP TABLE')}`,
    )
    assert.is(back.body.meta.count, 1)
    assert.is(back.body.items[0].productName, name)
  })

  products('edit :: 200, updateAt set, whole record sent back accepted', async () => {
    const c = await t.admin.post(
      '/api/v1/products',
      k.productBody({ productName: 'Edit me', cloudProtocol: 1 }),
    )
    const r = await t.admin.put(`/api/v1/products/${c.body.id}`, {
      ...c.body,
      productName: 'Edited',
      description: 'd',
    })
    assert.is(r.status, 200)
    assert.is(r.body.productName, 'Edited')
    assert.is(r.body.description, 'd')
    assert.match(r.body.updateAt, TIME)
    assert.is(r.body.productID, c.body.productID)
  })

  products('edit unknown id :: 404 DATA_NOT_FOUND', async () => {
    const r = await t.admin.put('/api/v1/products/999999', { productName: 'zz' })
    assert.is(r.status, 404)
    assert.is(r.body.errorCode, 'DATA_NOT_FOUND')
    const bad = await t.admin.get('/api/v1/products/abc')
    assert.is(bad.status, 404)
  })

  products('list :: page envelope, filters, sorting', async () => {
    for (const n of ['Alpha', 'Beta', 'Gamma'])
      await t.admin.post(
        '/api/v1/products',
        k.productBody({ productName: `L-${n}`, cloudProtocol: 5 }),
      )
    const r = await t.admin.get<Page<ProductItem>>(
      '/api/v1/products?productName_like=l-&_sort=productName&_order=desc',
    )
    assert.is(r.status, 200)
    assert.equal(
      r.body.items.map((p) => p.productName),
      ['L-Gamma', 'L-Beta', 'L-Alpha'],
    )
    assert.equal(r.body.meta, { count: 3, limit: 10, page: 1, next: null })
    const item = r.body.items[0]!
    const counts = ['appCount', 'dataPointCount', 'dataStreamCount', 'itemCount', 'deviceCount']
    for (const f of k.v === 'A' ? counts : ['deviceCount']) assert.is(item[f], 0, f)
    assert.not.ok('createUser' in item)
    if (k.v === 'B') return
    const byProto = await t.admin.get('/api/v1/products?cloudProtocol=5&_limit=2&_page=2')
    assert.equal(byProto.body.meta, { count: 3, limit: 2, page: 2, next: null })
    assert.is(byProto.body.items.length, 1)
    const inList = await t.admin.get('/api/v1/products?cloudProtocol_in=5,7')
    assert.is(inList.body.meta.count, 4)
  })

  products('paging edges :: clamp, 400s, past the end', async () => {
    const big = await t.admin.get('/api/v1/products?_limit=5000')
    assert.is(big.body.meta.limit, 1000)
    for (const q of ['_page=0', '_limit=0', '_limit=-1', '_page=abc']) {
      const r = await t.admin.get(`/api/v1/products?${q}`)
      assert.is(r.status, 400, q)
      assert.is(r.body.errorCode, 'PARAMETER_INVALID')
      assert.ok(r.body.errors[q.split('=')[0]!], q)
    }
    const past = await t.admin.get('/api/v1/products?_page=999')
    assert.is(past.status, 200)
    assert.equal(past.body.items, [])
    assert.ok(past.body.meta.count > 0)
    const badSort = await t.admin.get('/api/v1/products?_sort=password')
    assert.is(badSort.status, 400)
    assert.ok(badSort.body.errors._sort)
  })

  products('delete :: 204, then 404; bad ids 400', async () => {
    const c = await t.admin.post(
      '/api/v1/products',
      k.productBody({ productName: 'Del', cloudProtocol: 1 }),
    )
    const r = await t.admin.del(`/api/v1/products?ids=${c.body.id}`)
    assert.is(r.status, 204)
    assert.is(r.text, '')
    assert.is((await t.admin.get(`/api/v1/products/${c.body.id}`)).status, 404)
    const bad = await t.admin.del('/api/v1/products?ids=abc')
    assertBadIds(bad)
    const missing = await t.admin.del('/api/v1/products')
    assert.is(missing.status, 400)
    const unknown = await t.admin.del('/api/v1/products?ids=987654')
    assert.is(unknown.status, 404)
  })

  products('tenant isolation :: foreign id 404, never listed', async () => {
    const other = await t.newTenant()
    const mine = await t.admin.post(
      '/api/v1/products',
      k.productBody({ productName: 'Secret', cloudProtocol: 1 }),
    )
    assert.is((await other.get(`/api/v1/products/${mine.body.id}`)).status, 404)
    assert.is(
      (await other.put(`/api/v1/products/${mine.body.id}`, { productName: 'x' })).status,
      404,
    )
    assert.is((await other.del(`/api/v1/products?ids=${mine.body.id}`)).status, 404)
    const list = await other.get('/api/v1/products')
    assert.equal(list.body.meta.count, 0)
    // the same name is free in another tenant
    assert.is(
      (
        await other.post(
          '/api/v1/products',
          k.productBody({ productName: 'Secret', cloudProtocol: 1 }),
        )
      ).status,
      201,
    )
  })

  products('viewer write :: 403 PERMISSION_DENIED, read allowed', async () => {
    const viewer = await t.userWithRole('viewer')
    const r = await viewer.post(
      '/api/v1/products',
      k.productBody({ productName: 'V', cloudProtocol: 1 }),
    )
    assert.is(r.status, 403)
    assert.is(r.body.errorCode, 'PERMISSION_DENIED')
    assert.is((await viewer.get('/api/v1/products')).status, 200)
  })

  products.run()
}
