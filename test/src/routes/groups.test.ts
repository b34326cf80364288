import * as assert from 'uvu/assert'
import type { TestService } from '../../_support/service.ts'
import { serviceSuite } from '../../_support/suite.ts'
import { insertDevice, tenantOf } from '../../_support/fixtures.ts'
import type { Page, Wire } from '../../_support/wire.ts'
import type { GroupListItem } from '../../../src/schemas/groups.ts'
import type { GroupListItem as GroupListItemB } from '../../../src/variant-b/schemas/groups.ts'
import { kitGroup, kitProduct, kits, variants } from './_variant.ts'
import { assertBadIds, assertRefusal, assertTaken, postNotJson } from '../../_support/asserts.ts'

const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/

/** A group in a list, in either variant's form. */
type GroupItem = Wire<typeof GroupListItem> | Wire<typeof GroupListItemB>

for (const v of variants) {
  const k = kits[v]
  let t: TestService
  let tenant: string

  /** A new product of the admin's tenant (or of `client`). */
  const product = (client = t.admin) => kitProduct(k, client)

  const group = (productID: string, client = t.admin, extra: Record<string, unknown> = {}) =>
    kitGroup(k, productID, client, extra)

  /** An empty group's fields after productName: A counts its devices, B lists them and names the creator. */
  const noMembers = (userIntID: unknown) =>
    k.v === 'A' ? { deviceCount: 0 } : { devices: [], userIntID }
  const memberKeys = k.v === 'A' ? ['deviceCount'] : ['devices', 'userIntID']
  /** A group record's fields up to its members, in order. */
  const groupKeys = [
    'id',
    'groupID',
    'groupName',
    'description',
    'productID',
    'productName',
    ...memberKeys,
  ]
  const countOf = (g: Partial<Wire<typeof GroupListItem> & Wire<typeof GroupListItemB>>) =>
    k.v === 'A' ? g.deviceCount : g.devices!.length

  const groups = serviceSuite(
    `groups (Variant ${v})`,
    async (svc) => {
      t = svc
      tenant = await tenantOf(t)
    },
    k.env,
  )

  groups('create :: 201 with the stored record, generated groupID, updateAt null', async () => {
    const p = await product()
    const r = await t.admin.post('/api/v1/groups', {
      productID: p.productID,
      groupName: 'Floor 1',
      description: 'north',
    })
    assert.is(r.status, 201)
    const { id, groupID, createAt, ...rest } = r.body
    assert.type(id, 'number')
    assert.match(groupID, /^[A-Za-z0-9]{6}$/)
    assert.match(createAt, TIME)
    assert.equal(rest, {
      groupName: 'Floor 1',
      description: 'north',
      productID: p.productID,
      productName: p.productName,
      ...noMembers(rest.userIntID),
      createUser: 'admin',
      updateAt: null,
    })
    if (k.v === 'B') assert.type(rest.userIntID, 'number')
    assert.equal(Object.keys(r.body), [...groupKeys, 'createUser', 'createAt', 'updateAt'])
    const detail = await t.admin.get(`/api/v1/groups/${id}`)
    assert.is(detail.status, 200)
    assert.equal(detail.body, r.body)
  })

  groups(
    'missing fields :: 422 FORM_INVALID naming productID and groupName (B: description)',
    async () => {
      const r = await t.admin.post('/api/v1/groups', {})
      assert.is(r.status, 422)
      assert.is(r.body.errorCode, 'FORM_INVALID')
      assert.equal(Object.keys(r.body.errors).sort(), k.requiredGroupFields)
    },
  )

  groups('wrong types and blank name :: 422 naming every field', async () => {
    const r = await t.admin.post('/api/v1/groups', {
      productID: 12,
      groupName: '   ',
      description: 5,
    })
    assertRefusal(r, 422, ['description', 'groupName', 'productID'])
  })

  groups('non-JSON body :: 400 BAD_REQUEST', async () => {
    await postNotJson(t.admin, '/api/v1/groups', '{"productID":')
  })

  groups('unknown or foreign productID :: 404 DATA_NOT_FOUND errors.productID', async () => {
    const r = await t.admin.post('/api/v1/groups', k.groupBody('nope42', { groupName: 'x' }))
    assert.is(r.status, 404)
    assert.is(r.body.errorCode, 'DATA_NOT_FOUND')
    assert.ok(r.body.errors.productID)
    const other = await t.newTenant()
    const theirs = await product(other)
    const f = await t.admin.post(
      '/api/v1/groups',
      k.groupBody(theirs.productID, { groupName: 'x' }),
    )
    assert.is(f.status, 404)
    assert.ok(f.body.errors.productID)
  })

  groups(
    'duplicate groupName :: 400 DATA_EXISTED errors.groupName; free in another tenant',
    async () => {
      const p = await product()
      await t.admin.post('/api/v1/groups', k.groupBody(p.productID, { groupName: 'Dup' }))
      const r = await t.admin.post('/api/v1/groups', k.groupBody(p.productID, { groupName: 'Dup' }))
      assertTaken(r, 'groupName')
      const other = await t.newTenant()
      const theirs = await product(other)
      assert.is(
        (await other.post('/api/v1/groups', k.groupBody(theirs.productID, { groupName: 'Dup' })))
          .status,
        201,
      )
    },
  )

  groups('SQL-looking name :: stored verbatim', async () => {
    const p = await product()
    const name = "g'); DROP TABLE groups; --"
    const r = await t.admin.post('/api/v1/groups', k.groupBody(p.productID, { groupName: name }))
    assert.is(r.status, 201)
    const back = await t.admin.get(
      `/api/v1/groups?groupName_like=${encodeURIComponent('DROP TABLE')}`,
    )
    assert.is(back.body.meta.count, 1)
    assert.is(back.body.items[0].groupName, name)
  })

  groups('list :: page envelope, list fields, filters', async () => {
    const p = await product()
    const a = await group(p.productID, t.admin, { groupName: 'L-Alpha', description: 'first' })
    await group(p.productID, t.admin, { groupName: 'L-Beta' })
    await insertDevice(t, tenant, p.id).then((d) =>
      t.admin.post(`/api/v1/groups/${a.id}/devices`, { ids: [d] }),
    )
    const r = await t.admin.get<Page<GroupItem>>('/api/v1/groups?groupName_like=l-a')
    assert.is(r.status, 200)
    assert.equal(r.body.meta, { count: 1, limit: 10, page: 1, next: null })
    const item = r.body.items[0]!
    assert.equal(Object.keys(item), [...groupKeys, 'createAt', 'updateAt'])
    assert.is(countOf(item), 1)
    const byProduct = await t.admin.get<Page<GroupItem>>(
      `/api/v1/groups?productID=${p.productID}&_sort=groupName&_order=desc`,
    )
    assert.equal(
      byProduct.body.items.map((g) => g.groupName),
      ['L-Beta', 'L-Alpha'],
    )
    assert.is((await t.admin.get(`/api/v1/groups?groupID=${a.groupID}`)).body.items[0].id, a.id)
    assert.is((await t.admin.get('/api/v1/groups?description_like=FIRST')).body.items[0].id, a.id)
    const newest = await t.admin.get(`/api/v1/groups?productID=${p.productID}`)
    assert.is(newest.body.items[0].groupName, 'L-Beta')
  })

  groups(
    'edit :: 200, updateAt set, whole record accepted, product change while empty',
    async () => {
      const p1 = await product()
      const p2 = await product()
      const g = await group(p1.productID)
      const r = await t.admin.put(`/api/v1/groups/${g.id}`, {
        ...g,
        groupName: 'Renamed',
        productID: p2.productID,
        // Variant B: a description is required, it cannot be cleared
        description: k.v === 'A' ? null : 'south',
      })
      assert.is(r.status, 200)
      assert.is(r.body.groupName, 'Renamed')
      assert.is(r.body.productID, p2.productID)
      assert.is(r.body.productName, p2.productName)
      assert.is(r.body.description, k.v === 'A' ? null : 'south')
      assert.is(r.body.groupID, g.groupID)
      assert.match(r.body.updateAt, TIME)
      const keep = await t.admin.put(`/api/v1/groups/${g.id}`, { description: 'only this' })
      assert.is(keep.body.groupName, 'Renamed')
      assert.is(keep.body.description, 'only this')
    },
  )

  groups('edit product of a group with devices :: 422 FORM_INVALID errors.productID', async () => {
    const p1 = await product()
    const p2 = await product()
    const g = await group(p1.productID)
    const d = await insertDevice(t, tenant, p1.id)
    await t.admin.post(`/api/v1/groups/${g.id}/devices`, { ids: [d] })
    const r = await t.admin.put(`/api/v1/groups/${g.id}`, { productID: p2.productID })
    assert.is(r.status, 422)
    assert.is(r.body.errorCode, 'FORM_INVALID')
    assert.ok(r.body.errors.productID)
    // same product sent back is fine
    assert.is(
      (await t.admin.put(`/api/v1/groups/${g.id}`, { ...g, groupName: 'Kept' })).status,
      200,
    )
  })

  groups('edit errors :: unknown productID 404, duplicate name 400, unknown id 404', async () => {
    const p = await product()
    const a = await group(p.productID)
    const b = await group(p.productID)
    const unknownProduct = await t.admin.put(`/api/v1/groups/${a.id}`, { productID: 'zzzzzz' })
    assert.is(unknownProduct.status, 404)
    assert.ok(unknownProduct.body.errors.productID)
    const dup = await t.admin.put(`/api/v1/groups/${a.id}`, { groupName: b.groupName })
    assert.is(dup.status, 400)
    assert.equal(dup.body.errors, { groupName: 'already exists' })
    assert.is((await t.admin.put('/api/v1/groups/999999', { groupName: 'x' })).status, 404)
    assert.is((await t.admin.get('/api/v1/groups/abc')).status, 404)
  })

  groups('delete :: 204, then 404; bad and unknown ids', async () => {
    const p = await product()
    const g = await group(p.productID)
    const r = await t.admin.del(`/api/v1/groups?ids=${g.id}`)
    assert.is(r.status, 204)
    assert.is(r.text, '')
    assert.is((await t.admin.get(`/api/v1/groups/${g.id}`)).status, 404)
    const bad = await t.admin.del('/api/v1/groups?ids=1,x')
    assertBadIds(bad)
    const unknown = await t.admin.del('/api/v1/groups?ids=987654')
    assert.is(unknown.status, 404)
    assert.ok(unknown.body.errors.ids)
  })

  groups('delete a group with devices :: 400 REFERENCED_ERROR, nothing deleted', async () => {
    const p = await product()
    const empty = await group(p.productID)
    const full = await group(p.productID)
    await t.admin.post(`/api/v1/groups/${full.id}/devices`, {
      ids: [await insertDevice(t, tenant, p.id)],
    })
    const r = await t.admin.del(`/api/v1/groups?ids=${empty.id},${full.id}`)
    assert.is(r.status, 400)
    assert.is(r.body.errorCode, 'REFERENCED_ERROR')
    assert.match(r.body.errors.ids, new RegExp(`group ${full.id} .* still has 1 devices`))
    assert.is((await t.admin.get(`/api/v1/groups/${empty.id}`)).status, 200)
  })

  groups('tenant isolation :: foreign id 404, never listed', async () => {
    const other = await t.newTenant()
    const p = await product()
    const mine = await group(p.productID)
    assert.is((await other.get(`/api/v1/groups/${mine.id}`)).status, 404)
    assert.is((await other.put(`/api/v1/groups/${mine.id}`, { groupName: 'x' })).status, 404)
    assert.is((await other.del(`/api/v1/groups?ids=${mine.id}`)).status, 404)
    assert.is((await other.get('/api/v1/groups')).body.meta.count, 0)
    assert.is((await other.get(`/api/v1/groups?groupID=${mine.groupID}`)).body.meta.count, 0)
  })

  groups('viewer write :: 403 PERMISSION_DENIED, read allowed', async () => {
    const viewer = await t.userWithRole('viewer')
    const p = await product()
    const g = await group(p.productID)
    const r = await viewer.post('/api/v1/groups', k.groupBody(p.productID, { groupName: 'V' }))
    assert.is(r.status, 403)
    assert.is(r.body.errorCode, 'PERMISSION_DENIED')
    assert.is((await viewer.put(`/api/v1/groups/${g.id}`, { groupName: 'V' })).status, 403)
    assert.is((await viewer.del(`/api/v1/groups?ids=${g.id}`)).status, 403)
    assert.is((await viewer.get('/api/v1/groups')).status, 200)
    assert.is((await viewer.get(`/api/v1/groups/${g.id}`)).status, 200)
  })

  groups.run()
}
