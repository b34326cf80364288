/**
 * Keyset paging (`_after` with `meta.next`, src/http/paging.ts and store/libsql/list.ts): walking a list by cursor
 * gives what walking it by page gives, in every order, ties and nulls included; a cursor never crosses tenants;
 * bad cursors are 400; records created or deleted mid-walk neither repeat nor hide the others.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestService, type Client, type TestService } from '../../_support/service.ts'
import { mqttBody, newDevice, newProduct } from './devices-helpers.ts'

const test = suite('keyset paging')
let t: TestService
let b: Client & { tenantID: string }
const N = 120

test.before(async () => {
  t = await startTestService()
  const product = await newProduct(t.admin)
  for (let i = 0; i < N; i += 20)
    await Promise.all(
      Array.from({ length: Math.min(20, N - i) }, () =>
        newDevice(t.admin, mqttBody(product.productID)),
      ),
    )
  // ties in the default order (7 distinct create times), and a nullable sort key set on a third of them
  await t.db.run('UPDATE devices SET create_at = 1700000000000 + (id % 7) * 1000')
  await t.db.run('UPDATE devices SET last_seen_at = 1700000000000 + id WHERE id % 3 = 0')
  b = await t.newTenant()
  const other = await newProduct(b)
  for (let i = 0; i < 15; i++) await newDevice(b, mqttBody(other.productID))
})
test.after(async () => t?.close())

/** Every id of the list walked by `_page`. */
async function byPage(c: Client, query: string, limit: number): Promise<number[]> {
  const ids: number[] = []
  for (let page = 1; ; page++) {
    const r = await c.get(`/api/v1/devices?${query}&_limit=${limit}&_page=${page}`)
    assert.is(r.status, 200, r.text)
    ids.push(...r.body.items.map((d: { id: number }) => d.id))
    if (r.body.items.length < limit) return ids
  }
}

/** Every id of the list walked by `_after`; checks the last page says so. */
async function byCursor(c: Client, query: string, limit: number): Promise<number[]> {
  const ids: number[] = []
  let after: string | null | undefined
  for (let n = 0; n < 1000; n++) {
    const r = await c.get(
      `/api/v1/devices?${query}&_limit=${limit}${after ? `&_after=${after}` : ''}`,
    )
    assert.is(r.status, 200, r.text)
    ids.push(...r.body.items.map((d: { id: number }) => d.id))
    assert.is(r.body.meta.count, query.includes('deviceName_like') ? r.body.meta.count : N)
    after = r.body.meta.next
    if (after === null) return ids
    assert.type(after, 'string')
  }
  throw new Error('the walk did not end')
}

for (const [name, query] of [
  ['newest first (default), ties in createAt', ''],
  ['oldest first', '_sort=createAt&_order=asc'],
  ['by name', '_sort=deviceName&_order=asc'],
  ['by last seen, newest first (nulls last)', '_sort=lastSeenAt&_order=desc'],
  ['by last seen, oldest first (nulls first)', '_sort=lastSeenAt&_order=asc'],
] as const)
  test(`${name} :: the cursor walk equals the page walk`, async () => {
    const pages = await byPage(t.admin, query, 17)
    assert.is(pages.length, N)
    assert.is(new Set(pages).size, N)
    assert.equal(await byCursor(t.admin, query, 17), pages)
  })

test('the last page :: meta.next null; a list that fits one page has next null at once', async () => {
  const r = await t.admin.get('/api/v1/devices?_limit=1000')
  assert.is(r.body.items.length, N)
  assert.is(r.body.meta.next, null)
  const first = await t.admin.get('/api/v1/devices?_limit=5')
  assert.type(first.body.meta.next, 'string')
})

test('another tenant :: its cursor only moves the position, it never shows its rows', async () => {
  const theirs = await b.get('/api/v1/devices?_limit=3')
  const cursor = theirs.body.meta.next as string
  const theirIDs = new Set(
    (await b.get('/api/v1/devices?_limit=100')).body.items.map((d: { id: number }) => d.id),
  )
  const mine = await t.admin.get(`/api/v1/devices?_limit=100&_after=${cursor}`)
  assert.is(mine.status, 200, mine.text)
  for (const d of mine.body.items)
    assert.not.ok(theirIDs.has(d.id), `tenant B's device ${d.id} shown`)
  assert.is(mine.body.meta.count, N)
})

test('an empty _after :: no cursor, the first page', async () => {
  const first = await t.admin.get('/api/v1/devices?_limit=5')
  const empty = await t.admin.get('/api/v1/devices?_limit=5&_after=')
  assert.is(empty.status, 200, empty.text)
  assert.equal(empty.body, first.body)
})

test('bad cursors :: 400 PARAMETER_INVALID naming _after', async () => {
  const good = (await t.admin.get('/api/v1/devices?_limit=5')).body.meta.next as string
  const forged = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url')
  for (const [query, why] of [
    ['_after=not*base64', 'not a cursor'],
    [`_after=${forged({ s: ':', v: {}, i: 1 })}`, 'not a cursor'],
    [`_after=${forged({ s: ':', v: 1, i: 1.5 })}`, 'not a cursor'],
    [`_after=${forged([1, 2])}`, 'not a cursor'],
    [`_after=${'A'.repeat(3000)}`, 'not a cursor'],
    [`_after=${good}&_sort=deviceName`, 'another _sort'],
    [`_after=${good}&_order=asc`, 'another _sort'],
    [`_after=${good}&_page=2`, 'leave out _page'],
  ] as const) {
    const r = await t.admin.get(`/api/v1/devices?${query}`)
    assert.is(r.status, 400, `${query}: ${r.text}`)
    assert.is(r.body.errorCode, 'PARAMETER_INVALID')
    assert.match(String(r.body.errors._after), why)
  }
})

test('devices created and deleted mid-walk :: no record of the walk repeats, none still there is skipped', async () => {
  const limit = 10
  const first = await t.admin.get(`/api/v1/devices?_limit=${limit}`)
  const seen: number[] = first.body.items.map((d: { id: number }) => d.id)
  const all = await byPage(t.admin, '', 200)
  const later = all.slice(30, 33) // three devices of later pages
  const product = (await t.admin.get(`/api/v1/devices/${all[0]}`)).body.productID
  const created = await newDevice(t.admin, mqttBody(product)) // the newest: before the walk's position
  const del = await t.admin.del(`/api/v1/devices?ids=${later.join(',')}`)
  assert.is(del.status, 204, del.text)
  let after = first.body.meta.next as string | null
  while (after) {
    const r = await t.admin.get(`/api/v1/devices?_limit=${limit}&_after=${after}`)
    seen.push(...r.body.items.map((d: { id: number }) => d.id))
    after = r.body.meta.next
  }
  assert.is(new Set(seen).size, seen.length, 'no device twice')
  const expected = all.filter((id) => !later.includes(id))
  assert.equal(seen, expected, 'every device still there, in order; the new one is before the walk')
  assert.not.ok(seen.includes(created.id))
})

test.run()
