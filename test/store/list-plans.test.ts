/**
 * The query plans of the device and gateway lists (store/libsql/list.ts): for the default order and the sorts the
 * console offers, the page walks an index in order (no full scan of devices, no temporary sort), a deep page picks
 * its ids from the base table alone before joining (the deferred join), and the total reads the counters.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Db } from '../../store/libsql/db.ts'
import { openDb } from '../../store/libsql/db.ts'
import { DevicesRepo } from '../../store/libsql/devices.ts'
import type { ListArgs } from '../../store/types.ts'

const ctx = {} as { dir: string; db: Db }
const test = suite('list query plans')

test.before(async () => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'devicecloud-list-plans-'))
  ctx.db = await openDb({ url: `file:${ctx.dir}/meta.db` })
})
test.after(async () => {
  await ctx.db.close()
  rmSync(ctx.dir, { recursive: true, force: true })
})

/** The statements a list sends (page, count) and the plan of each, from a Db that records and forwards reads. */
async function plans(run: (repo: DevicesRepo) => Promise<unknown>) {
  const seen: Array<{ sql: string; args: unknown[] }> = []
  const spy = new Proxy(ctx.db, {
    get(target, key) {
      if (key === 'read')
        return (statements: Array<{ sql: string; args: unknown[] }>) => {
          seen.push(...statements)
          return target.read(statements as never)
        }
      const v = Reflect.get(target, key)
      return typeof v === 'function' ? v.bind(target) : v
    },
  })
  await run(new DevicesRepo(spy))
  const plan = async (sql: string, args: unknown[]) =>
    (await ctx.db.all(`EXPLAIN QUERY PLAN ${sql}`, args as never))
      .map((r) => String(r.detail))
      .join('\n')
  const out: Array<{ sql: string; plan: string; ids?: string }> = []
  for (const s of seen) {
    // a deferred page: its ids' query alone (the outer ORDER BY sorts only the page's rows)
    const inner = /FROM \((SELECT d\.id AS page_id .*? LIMIT \? OFFSET \?)\) page/s.exec(s.sql)?.[1]
    out.push({
      sql: s.sql,
      plan: await plan(s.sql, s.args),
      ...(inner ? { ids: await plan(inner, s.args) } : {}),
    })
  }
  return out
}

const q = (more: Partial<ListArgs> = {}): ListArgs => ({
  page: 5000,
  limit: 10,
  filters: [],
  ...more,
})

for (const [name, args] of [
  ['newest first (default)', q()],
  ['oldest first', q({ sort: 'createAt', order: 'asc' })],
  ['by name', q({ sort: 'deviceName', order: 'asc' })],
  ['by last seen', q({ sort: 'lastSeenAt', order: 'desc' })],
] as const) {
  test(`devices, ${name}, a deep page :: ids from an index of the base table, then joined; total from the counters`, async () => {
    const [page, count] = await plans((r) => r.list('T1', args))
    assert.ok(page && count)
    assert.match(page.sql, /FROM \(SELECT d\.id AS page_id FROM devices d WHERE/)
    assert.match(page.sql, /CROSS JOIN devices d/)
    assert.ok(page.ids)
    assert.not.match(page.plan, /SCAN d\b(?! USING)/, page.plan) // no full scan of devices
    assert.not.match(page.ids, /USE TEMP B-TREE FOR ORDER BY/, page.ids) // the ids come in index order
    assert.match(page.ids, /USING COVERING INDEX/, page.ids) // and never touch a row
    assert.match(count.sql, /FROM device_counts/)
  })
  test(`gateways, ${name} :: no full scan, no temporary sort`, async () => {
    const [page] = await plans((r) => r.gateways.list('T1', args))
    assert.ok(page)
    assert.match(page.sql, /CROSS JOIN devices d/)
    assert.ok(page.ids)
    assert.not.match(page.plan, /SCAN d\b(?! USING)/, page.plan)
    assert.not.match(page.ids, /USE TEMP B-TREE FOR ORDER BY/, page.ids)
  })
}

test('keyset pages (after a cursor) :: newest first and oldest first walk a range of the index, no OFFSET steps, no sort', async () => {
  for (const order of ['desc', 'asc'] as const) {
    const [page] = await plans((r) =>
      r.list(
        'T1',
        q({ page: 1, order, sort: 'createAt', after: { v: 1_700_000_000_000, id: 500 } }),
      ),
    )
    assert.ok(page?.ids)
    assert.match(page.sql, /\(d\.create_at, d\.id\) [<>] \(\?, \?\)/)
    assert.match(
      page.ids,
      /USING COVERING INDEX devices_tenant_kind \(tenant_id=\? AND kind=\? AND create_at[<>]\?\)/,
      page.ids,
    )
    assert.not.match(page.ids, /USE TEMP B-TREE/, page.ids)
  }
})

test('a sort on a joined field :: one query, the joins and the page together', async () => {
  const [page] = await plans((r) => r.list('T1', q({ sort: 'productName', order: 'asc' })))
  assert.ok(page)
  assert.not.match(page.sql, /page_id/)
})

test('a group filter :: rows counted, not the counters', async () => {
  const [, count] = await plans((r) => r.list('T1', q(), { groupID: 'g1' }))
  assert.ok(count)
  assert.not.match(count.sql, /device_counts/)
  assert.match(count.sql, /count\(\*\)/)
})

test.run()
