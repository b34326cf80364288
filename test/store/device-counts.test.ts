/**
 * `device_counts` (migration 240): the triggers keep it equal to a count of the devices table through inserts,
 * deletes, moves between products and kinds, status and block changes, for two tenants; the device and gateway
 * lists' totals read from it give what counting the rows gives, for every filter it answers and the ones it does not;
 * the overview's counts too.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Db } from '../../store/libsql/db.ts'
import { openTestDb } from './_db.ts'
import { DevicesRepo } from '../../store/libsql/devices.ts'
import { OverviewRepo } from '../../store/libsql/overview.ts'
import type { Filter } from '../../store/types.ts'

const ctx = {} as { dir: string; db: Db; devices: DevicesRepo; products: Record<string, number> }
const test = suite('device counts (migration 240)')

test.before.each(async () => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'devicecloud-device-counts-'))
  ctx.db = await openTestDb(`file:${ctx.dir}/meta.db`)
  ctx.devices = new DevicesRepo(ctx.db)
  ctx.products = {}
  for (const [tenant, productID] of [
    ['T1', 'pa'],
    ['T1', 'pb'],
    ['T2', 'pc'],
  ] as const) {
    const r = await ctx.db.one(
      `INSERT INTO products (tenant_id, product_id, product_name, cloud_protocol, create_at)
       VALUES (?, ?, ?, 1, 1) RETURNING id`,
      [tenant, productID, productID],
    )
    ctx.products[productID] = Number(r!.id)
  }
})

test.after.each(async () => {
  await ctx.db.close()
  rmSync(ctx.dir, { recursive: true, force: true })
})

let next = 0
async function add(tenant: string, productID: string, kind = 'device', status = 0, blocked = 0) {
  next++
  await ctx.db.run(
    `INSERT INTO devices (tenant_id, kind, product_int_id, device_id, device_name, device_username, token,
       device_status, blocked, create_at)
     VALUES (?, ?, ?, ?, ?, ?, 'tok', ?, ?, ?)`,
    [
      tenant,
      kind,
      ctx.products[productID]!,
      `dev-${next}`,
      `d${next}`,
      `u${next}`,
      status,
      blocked,
      next,
    ],
  )
  return `dev-${next}`
}

/** The counter rows (empty ones aside) and what counting the rows gives: equal after every write. */
async function assertCounted(step: string) {
  const kept = await ctx.db.all(
    `SELECT tenant_id, kind, product_int_id, n, online, blocked FROM device_counts WHERE n <> 0
     ORDER BY tenant_id, kind, product_int_id`,
  )
  const counted = await ctx.db.all(
    `SELECT tenant_id, kind, product_int_id, count(*) AS n, sum(device_status IS 1) AS online,
       sum(blocked IS 1) AS blocked
     FROM devices GROUP BY tenant_id, kind, product_int_id ORDER BY tenant_id, kind, product_int_id`,
  )
  assert.equal(kept.map(plain), counted.map(plain), step)
  const zeroes = await ctx.db.all(
    'SELECT * FROM device_counts WHERE n = 0 AND (online <> 0 OR blocked <> 0)',
  )
  assert.is(zeroes.length, 0, `${step}: an empty row with online or blocked left`)
}
const plain = (r: Record<string, unknown>) =>
  [r.tenant_id, r.kind, r.product_int_id, r.n, r.online, r.blocked].map(String)

const FILTERS: Array<[string, Filter[]]> = [
  ['none', []],
  ['productID', [{ field: 'productID', op: 'eq', value: 'pa' }]],
  ['online', [{ field: 'deviceStatus', op: 'eq', value: 1 }]],
  ['offline (counted scan)', [{ field: 'deviceStatus', op: 'eq', value: 0 }]],
  ['blocked', [{ field: 'blocked', op: 'eq', value: 1 }]],
  [
    'product and online',
    [
      { field: 'productID', op: 'eq', value: 'pa' },
      { field: 'deviceStatus', op: 'eq', value: 1 },
    ],
  ],
  [
    'online and blocked (counted scan)',
    [
      { field: 'deviceStatus', op: 'eq', value: 1 },
      { field: 'blocked', op: 'eq', value: 1 },
    ],
  ],
  ['name like (counted scan)', [{ field: 'deviceName', op: 'like', value: 'd' }]],
]

/** Every list's total equals its rows counted (a page of up to 1,000 holds them all here). */
async function assertTotals(step: string) {
  for (const tenant of ['T1', 'T2'])
    for (const [name, filters] of FILTERS)
      for (const kinds of [['device'], ['device', 'gateway']] as const) {
        const page = await ctx.devices.list(tenant, { page: 1, limit: 1000, filters }, { kinds })
        assert.is(page.count, page.items.length, `${step}: ${tenant} ${String(kinds)} ${name}`)
      }
  for (const tenant of ['T1', 'T2']) {
    const page = await ctx.devices.gateways.list(tenant, { page: 1, limit: 1000, filters: [] })
    assert.is(page.count, page.items.length, `${step}: ${tenant} gateways`)
  }
}

test('every kind of write :: the counters equal the rows counted, and so do list totals and the overview', async () => {
  await assertCounted('empty')
  const a1 = await add('T1', 'pa')
  await add('T1', 'pa', 'device', 1)
  const a3 = await add('T1', 'pa', 'device', 1, 1)
  const b1 = await add('T1', 'pb', 'device', 0, 1)
  const g1 = await add('T1', 'pa', 'gateway', 1)
  await add('T2', 'pc', 'device', 1)
  await add('T2', 'pc')
  await assertCounted('inserted')
  await assertTotals('inserted')
  const steps: Array<[string, string, unknown[]]> = [
    ['connect', `UPDATE devices SET device_status = 1 WHERE device_id = ?`, [a1]],
    ['disconnect', `UPDATE devices SET device_status = 0 WHERE device_id = ?`, [a3]],
    ['sleep (status 2)', `UPDATE devices SET device_status = 2 WHERE device_id = ?`, [a1]],
    ['block', `UPDATE devices SET blocked = 1 WHERE device_id = ?`, [a1]],
    ['unblock', `UPDATE devices SET blocked = 0 WHERE device_id = ?`, [b1]],
    ['same values', `UPDATE devices SET blocked = blocked, device_status = device_status`, []],
    ['name only', `UPDATE devices SET device_name = 'x' WHERE device_id = ?`, [a3]],
    [
      'another product',
      `UPDATE devices SET product_int_id = ? WHERE device_id = ?`,
      [ctx.products.pb, a3],
    ],
    ['another kind', `UPDATE devices SET kind = 'gateway' WHERE device_id = ?`, [a1]],
    [
      'product, status and block at once',
      `UPDATE devices SET product_int_id = ?, device_status = 0, blocked = 1 WHERE device_id = ?`,
      [ctx.products.pb, g1],
    ],
    ['delete one', `DELETE FROM devices WHERE device_id = ?`, [b1]],
    ['delete a tenant', `DELETE FROM devices WHERE tenant_id = 'T2'`, []],
  ]
  for (const [step, sql, args] of steps) {
    await ctx.db.run(sql, args as never)
    await assertCounted(step)
    await assertTotals(step)
  }
  const overview = await new OverviewRepo(ctx.db).counts('T1', 0, 1)
  const rows = await ctx.db.all(
    `SELECT kind, device_status, blocked FROM devices WHERE tenant_id = 'T1'`,
  )
  assert.equal(
    [overview.devices, overview.gateways, overview.online, overview.blocked],
    [
      rows.filter((r) => r.kind === 'device').length,
      rows.filter((r) => r.kind === 'gateway').length,
      rows.filter((r) => Number(r.device_status) === 1).length,
      rows.filter((r) => Number(r.blocked) === 1).length,
    ],
  )
  const gone = await new OverviewRepo(ctx.db).counts('T2', 0, 1)
  assert.equal([gone.devices, gone.gateways, gone.online, gone.blocked], [0, 0, 0, 0])
})

test('a list total from the counters :: reads device_counts, not the devices table', async () => {
  for (let i = 0; i < 3; i++) await add('T1', 'pa')
  // the counter row is what the total reads: a wrong counter shows in the total (the rows would say 3)
  await ctx.db.run(`UPDATE device_counts SET n = 1000 WHERE tenant_id = 'T1' AND kind = 'device'`)
  const page = await ctx.devices.list('T1', { page: 1, limit: 10, filters: [] })
  assert.is(page.count, 1000)
  assert.is(page.items.length, 3)
  // a filter the counters cannot answer counts the rows
  const named = await ctx.devices.list('T1', {
    page: 1,
    limit: 10,
    filters: [{ field: 'deviceName', op: 'like', value: 'd' }],
  })
  assert.is(named.count, 3)
  // a time range counts the rows
  const ranged = await ctx.devices.list('T1', { page: 1, limit: 10, filters: [], startTime: 0 })
  assert.is(ranged.count, 3)
})

test.run()
