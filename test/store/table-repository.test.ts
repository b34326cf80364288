/**
 * store/libsql/table-repository.ts, the one repository every tenant-scoped table extends: two tenants, so a
 * foreign id is NotFound on every method, a list holds only the caller's records, writes answer the typed record,
 * and a delete of a record still in use is refused as before.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Db } from '../../store/libsql/db.ts'
import { openTestDb } from './_db.ts'
import { TableRepo } from '../../store/libsql/table-repository.ts'
import { PRODUCT_TABLE } from '../../store/fields/products.ts'
import { GATEWAY_TABLE } from '../../store/fields/devices.ts'
import { Conflict, NotFound, Referenced } from '../../store/errors.ts'

const ctx = {} as {
  dir: string
  db: Db
  products: Products
  gateways: TableRepo<typeof GATEWAY_TABLE>
}
const all = { page: 1, limit: 100, filters: [] }

/** A repository of products over the generic one: what every resource's repository declares. */
class Products extends TableRepo<typeof PRODUCT_TABLE> {
  constructor(db: Db) {
    super(db, {
      list: PRODUCT_TABLE,
      from: 'FROM products p LEFT JOIN users u ON u.id = p.user_int_id',
      unique: { product_name: 'productName' },
      generatedId: { column: 'product_id', length: 6 },
      remove: {
        nameColumn: 'product_name',
        uses: { devices: 'SELECT count(*) FROM devices d WHERE d.product_int_id = x.id' },
        missing: (ids) => `no product ${ids.join(', ')}`,
      },
    })
  }

  create(tenant: string, productName: string) {
    return this.insert(tenant, { productName, cloudProtocol: 1 }, { user_int_id: null })
  }
}

/** The outcome of `p`: its error, or undefined when it resolved. */
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  )

const repo = suite('generic table repository (store/libsql/table-repository.ts)')

repo.before.each(async () => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'devicecloud-table-repo-'))
  ctx.db = await openTestDb(`file:${ctx.dir}/meta.db`)
  ctx.products = new Products(ctx.db)
  ctx.gateways = new TableRepo(ctx.db, {
    list: GATEWAY_TABLE,
    from: 'FROM devices d JOIN products p ON p.id = d.product_int_id LEFT JOIN users u ON u.id = d.user_int_id',
    scope: { column: 'kind', value: 'gateway' },
    remove: { nameColumn: 'device_name', uses: {} },
  })
})

repo.after.each(async () => {
  await ctx.db.close()
  rmSync(ctx.dir, { recursive: true, force: true })
})

repo('create and update :: answer the typed record of the table', async () => {
  const created = await ctx.products.create('T1', 'p1')
  assert.is(created.productName, 'p1')
  assert.is(created.cloudProtocol, 1)
  assert.match(created.productID, /^\w{6}$/)
  assert.is(created.deviceCount, 0)
  assert.type(created.createAt, 'number')
  assert.is(created.updateAt, null)
  const updated = await ctx.products.update('T1', created.id, { description: 'd' })
  assert.is(updated.description, 'd')
  assert.is(updated.productName, 'p1')
  assert.type(updated.updateAt, 'number')
  assert.equal(await ctx.products.get('T1', created.id), updated)
})

repo('two tenants :: a list holds only the caller tenant records', async () => {
  const mine = await ctx.products.create('T1', 'same')
  const theirs = await ctx.products.create('T2', 'same')
  const page = await ctx.products.list('T1', all)
  assert.equal(
    page.items.map((r) => r.id),
    [mine.id],
  )
  assert.is(page.count, 1)
  assert.equal(
    (await ctx.products.list('T2', all)).items.map((r) => r.id),
    [theirs.id],
  )
})

repo('two tenants :: a foreign id is NotFound on get, update and delete, and stays', async () => {
  const theirs = await ctx.products.create('T2', 'p')
  assert.instance(await failure(ctx.products.get('T1', theirs.id)), NotFound)
  assert.instance(
    await failure(ctx.products.update('T1', theirs.id, { description: 'x' })),
    NotFound,
  )
  const gone = await failure(ctx.products.delete('T1', [theirs.id]))
  assert.instance(gone, NotFound)
  assert.is((gone as NotFound).message, `no product ${theirs.id}`)
  assert.equal(await ctx.products.get('T2', theirs.id), theirs)
})

repo('unique :: a taken value is the Conflict its column names', async () => {
  await ctx.products.create('T1', 'p')
  const other = await ctx.products.create('T1', 'q')
  const taken = await failure(ctx.products.create('T1', 'p'))
  assert.instance(taken, Conflict)
  assert.equal((taken as Conflict).errors, { productName: 'already exists' })
  const edit = await failure(ctx.products.update('T1', other.id, { productName: 'p' }))
  assert.equal((edit as Conflict).errors, { productName: 'already exists' })
})

repo('delete :: all or none; a record still used is refused and stays', async () => {
  const used = await ctx.products.create('T1', 'used')
  const free = await ctx.products.create('T1', 'free')
  await ctx.db.run(
    `INSERT INTO devices (tenant_id, product_int_id, device_id, device_name, device_username, token, create_at)
     VALUES ('T1', ?, 'dev-1', 'dev-1', 'u', 'k', 0)`,
    [used.id],
  )
  const refused = await failure(ctx.products.delete('T1', [free.id, used.id]))
  assert.instance(refused, Referenced)
  assert.is((refused as Referenced).message, `${used.id} (used) is still used by 1 devices`)
  assert.is((await ctx.products.list('T1', all)).count, 2)
  await ctx.products.delete('T1', [free.id])
  assert.instance(await failure(ctx.products.get('T1', free.id)), NotFound)
})

repo('scope :: a row of the same table outside the scope is NotFound, and not listed', async () => {
  const product = await ctx.products.create('T1', 'p')
  const device = await ctx.db.run(
    `INSERT INTO devices (tenant_id, kind, product_int_id, device_id, device_name, device_username, token,
       create_at) VALUES ('T1', 'device', ?, 'dev-1', 'dev-1', 'u', 'k', 0)`,
    [product.id],
  )
  assert.instance(await failure(ctx.gateways.get('T1', device.lastId)), NotFound)
  assert.instance(await failure(ctx.gateways.update('T1', device.lastId, {})), NotFound)
  assert.instance(await failure(ctx.gateways.delete('T1', [device.lastId])), NotFound)
  assert.is((await ctx.gateways.list('T1', all)).count, 0)
})

repo.run()
