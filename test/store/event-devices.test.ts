/**
 * The event log's index by device (store/libsql/event-devices.ts) over real libSQL files: a device's messages are
 * listed exactly once whether they are above the index's mark or below it, in order, counted; steps index a
 * bounded range and move the mark; two connections indexing at once store each entry once; a deleted tail row
 * takes its entry along, and a deleted device its rows on both sides of the mark; a database of an older version
 * gets every existing row indexed by the migration; the no-data check sees a last uplink not indexed yet; a
 * device's page reads its rows by id, never the tenant's index.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { openDb, type Db } from '../../store/libsql/db.ts'
import { LogsRepo } from '../../store/libsql/logs.ts'
import { EventLog } from '../../store/libsql/event-log.ts'
import { indexStep } from '../../store/libsql/event-devices.ts'
import { deviceEventSpec } from '../../store/libsql/logs-sql.ts'
import { listQuery } from '../../store/libsql/list.ts'
import type { EventInput, ListArgs } from '../../store/types.ts'
import { createMetaStore } from '../../store/libsql/meta.ts'
import { emptyValues } from '../../store/fields/table.ts'
import { DEVICE_TABLE, type DeviceFields } from '../../store/fields/devices.ts'

const test = suite('event log: index by device')
let dir: string
test.before(() => {
  dir = mkdtempSync(join(tmpdir(), 'devicecloud-event-devices-'))
})
test.after(() => rmSync(dir, { recursive: true, force: true }))

const T0 = 1_700_000_000_000
/** `n` events round-robin over devices 1..devices (odd devices tenant-a, even tenant-b); every 7th has no device. */
function events(n: number, devices: number, from = 0): EventInput[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k
    const d = (i % devices) + 1
    return {
      tenantID: d % 2 ? 'tenant-a' : 'tenant-b',
      deviceIntID: i % 7 === 6 ? null : d,
      deviceID: `d${d}`,
      topic: 'telemetry',
      payload: JSON.stringify({ i }),
      msgTime: T0 + i * 10,
    }
  })
}

const q = (more: Partial<ListArgs> = {}): ListArgs => ({
  page: 1,
  limit: 1000,
  filters: [],
  ...more,
})

/** The ids of a device's messages as the list answers them (every page), with the count it gave. */
async function listed(log: EventLog, tenant: string, device: number, more: Partial<ListArgs> = {}) {
  const page = await log.list(tenant, q(more), device)
  return { ids: page.items.map((r) => Number(r.id)), count: page.count }
}

/** The same from the table itself: the device's rows, newest first. */
async function truth(db: Db, tenant: string, device: number): Promise<number[]> {
  const rows = await db.all(
    'SELECT id FROM events WHERE tenant_id = ? AND device_int_id = ? ORDER BY msg_time DESC, id DESC',
    [tenant, device],
  )
  return rows.map((r) => Number(r.id))
}

const mark = async (db: Db) => Number((await db.one('SELECT upto FROM event_device_mark'))!.upto)
const entries = async (db: Db) =>
  Number((await db.one('SELECT count(*) AS n FROM event_devices'))!.n)

test('read after write :: rows above the mark, below it and both are each listed once, in order', async () => {
  const db = await openDb({ url: `file:${join(dir, 'reads.db')}` })
  const logs = new LogsRepo(db)
  const log = new EventLog(db)
  await logs.addEvents(events(700, 10))
  // nothing indexed yet: every row is found by the scan above the mark
  assert.is(await mark(db), 0)
  for (const [tenant, d] of [
    ['tenant-a', 1],
    ['tenant-b', 2],
    ['tenant-a', 9],
  ] as const) {
    const want = await truth(db, tenant, d)
    assert.ok(want.length > 50)
    assert.equal(await listed(log, tenant, d), { ids: want, count: want.length })
  }
  // half indexed: a step of 350 ids
  assert.equal(await indexStep(db, 350), { indexed: 300, more: true })
  assert.is(await mark(db), 350)
  const want = await truth(db, 'tenant-a', 1)
  assert.equal(await listed(log, 'tenant-a', 1), { ids: want, count: want.length })
  // a time range and ascending order across the mark
  const range = { startTime: T0 + 3000, endTime: T0 + 4000, order: 'asc' as const }
  const inRange = (
    await db.all(
      `SELECT id FROM events WHERE device_int_id = 1 AND msg_time BETWEEN ? AND ? ORDER BY msg_time, id`,
      [T0 + 3000, T0 + 4000],
    )
  ).map((r) => Number(r.id))
  assert.ok(
    inRange.some((id) => id <= 350) && inRange.some((id) => id > 350),
    'the range spans the mark',
  )
  assert.equal(await listed(log, 'tenant-a', 1, range), { ids: inRange, count: inRange.length })
  // pages of 7 with cursors walk the same rows
  const walked: number[] = []
  let after = undefined as ListArgs['after']
  for (;;) {
    const page = await log.list('tenant-a', q({ limit: 7, after }), 1)
    walked.push(...page.items.map((r) => Number(r.id)))
    if (!page.next) break
    after = page.next
  }
  assert.equal(walked, want)
  // all indexed, more written: the same again
  while ((await indexStep(db)).more);
  await logs.addEvents(events(100, 10, 700))
  for (const [tenant, d] of [
    ['tenant-a', 1],
    ['tenant-b', 4],
  ] as const) {
    const all = await truth(db, tenant, d)
    assert.equal(await listed(log, tenant, d), { ids: all, count: all.length })
  }
  // another tenant's device: nothing, above or below the mark
  assert.equal(await listed(log, 'tenant-b', 1), { ids: [], count: 0 })
  await db.close()
})

test('steps :: bounded by their limit, the mark ends at the newest row, rows without a device stay out', async () => {
  const db = await openDb({ url: `file:${join(dir, 'steps.db')}` })
  await new LogsRepo(db).addEvents(events(1000, 5))
  const steps: boolean[] = []
  for (;;) {
    const s = await indexStep(db, 300)
    assert.ok(s.indexed <= 300)
    steps.push(s.more)
    if (!s.more) break
  }
  assert.equal(steps, [true, true, true, false])
  assert.is(await mark(db), 1000)
  const withDevice = Number(
    (await db.one('SELECT count(*) AS n FROM events WHERE device_int_id IS NOT NULL'))!.n,
  )
  assert.is(withDevice, 1000 - Math.floor(1000 / 7))
  assert.is(await entries(db), withDevice)
  // caught up: a step writes nothing
  assert.equal(await indexStep(db), { indexed: 0, more: false })
  assert.is(await mark(db), 1000)
  await db.close()
})

test('two connections :: index the same rows at once; each entry once, every row indexed', async () => {
  const url = `file:${join(dir, 'two.db')}`
  const a = await openDb({ url })
  const b = await openDb({ url })
  await new LogsRepo(a).addEvents(events(20_000, 50))
  const catchUp = async (db: Db) => {
    let n = 0
    for (;;) {
      const s = await indexStep(db, 2000)
      n += s.indexed
      if (!s.more) return n
    }
  }
  const [na, nb] = await Promise.all([catchUp(a), catchUp(b)])
  const withDevice = 20_000 - Math.floor(20_000 / 7)
  assert.is(na + nb, withDevice, 'no row indexed twice')
  assert.is(await entries(a), withDevice)
  const missing = await a.one(
    `SELECT count(*) AS n FROM events e WHERE e.device_int_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM event_devices x WHERE x.id = e.id AND x.device_int_id = e.device_int_id)`,
  )
  assert.is(Number(missing!.n), 0)
  assert.is(await mark(a), 20_000)
  await b.close()
  await a.close()
})

test('deletes :: a deleted row takes its entry along (retention, any delete)', async () => {
  const db = await openDb({ url: `file:${join(dir, 'deletes.db')}` })
  await new LogsRepo(db).addEvents(events(2000, 10))
  while ((await indexStep(db)).more);
  await db.run('DELETE FROM events WHERE id % 3 = 0')
  const dangling = await db.one(
    'SELECT count(*) AS n FROM event_devices x WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.id = x.id)',
  )
  assert.is(Number(dangling!.n), 0)
  const withDevice = Number(
    (await db.one('SELECT count(*) AS n FROM events WHERE device_int_id IS NOT NULL'))!.n,
  )
  assert.is(await entries(db), withDevice)
  const log = new EventLog(db)
  const want = await truth(db, 'tenant-a', 3)
  assert.equal(await listed(log, 'tenant-a', 3), { ids: want, count: want.length })
  await db.close()
})

test('migration :: a database of the version before gets every existing row indexed', async () => {
  const all = join(import.meta.dirname, '../../store/libsql/migrations')
  const old = join(dir, 'migrations-260')
  mkdirSync(old)
  for (const f of readdirSync(all))
    if (/^\d+_/.test(f) && Number(f.split('_')[0]) <= 260) copyFileSync(join(all, f), join(old, f))
  const url = `file:${join(dir, 'migrated.db')}`
  const before = await openDb({ url }, old)
  await new LogsRepo(before).addEvents(events(500, 4))
  assert.ok(await before.one("SELECT 1 AS x FROM sqlite_master WHERE name = 'events_device'"))
  await before.close()
  const db = await openDb({ url })
  assert.is(await mark(db), 500)
  assert.is(await entries(db), 500 - Math.floor(500 / 7))
  assert.is(
    await db.one("SELECT 1 AS x FROM sqlite_master WHERE name = 'events_device'"),
    undefined,
  )
  const log = new EventLog(db)
  const want = await truth(db, 'tenant-b', 2)
  assert.equal(await listed(log, 'tenant-b', 2), { ids: want, count: want.length })
  await db.close()
})

test('devices :: a deleted device takes its rows above and below the mark; no-data sees rows above it', async () => {
  const db = await openDb({ url: `file:${join(dir, 'devices.db')}` })
  const meta = createMetaStore(db)
  const product = await meta.products.create('T1', null, { productName: 'p', cloudProtocol: 1 })
  const device = (n: number) =>
    meta.devices.create('T1', null, {
      ...(emptyValues(DEVICE_TABLE) as DeviceFields),
      productIntID: product.id,
      deviceID: `dev-${n}`,
      deviceUsername: `user-${n}`,
      token: `tok-${n}`,
      deviceName: `dev ${n}`,
    })
  const [a, b, c, gone] = [await device(1), await device(2), await device(3), await device(4)]
  const at = Date.now() + 3_600_000
  const row = (d: { id: number; deviceID: string }, msgTime: number): EventInput => ({
    tenantID: 'T1',
    deviceIntID: d.id,
    deviceID: d.deviceID,
    productIntID: product.id,
    topic: 'telemetry',
    payload: '{}',
    msgTime,
  })
  // b: silent 10 minutes (indexed); gone: rows on both sides of the mark
  await meta.logs.addEvents([row(b, at - 600_000), row(gone, at - 600_000), row(a, at - 600_000)])
  while ((await indexStep(db)).more);
  // a: 10 s ago, above the mark; c: 10 minutes ago, above the mark
  await meta.logs.addEvents([row(a, at - 10_000), row(c, at - 600_000), row(gone, at - 5_000)])
  await meta.alertRules.create(
    'T1',
    null,
    {
      ruleName: 'silent',
      productIntID: product.id,
      deviceIntIDs: null,
      condition: null,
      alertSeverity: 2,
      forSeconds: 0,
      clearCondition: null,
      clearForSeconds: 0,
      noDataSeconds: 60,
      alertContent: null,
      enable: 1,
    },
    1,
  )
  await db.run('DELETE FROM devices WHERE id = ?', [gone.id])
  assert.is(
    Number(
      (await db.one('SELECT count(*) AS n FROM events WHERE device_int_id = ?', [gone.id]))!.n,
    ),
    0,
  )
  assert.is(
    Number(
      (await db.one('SELECT count(*) AS n FROM event_devices WHERE device_int_id = ?', [gone.id]))!
        .n,
    ),
    0,
  )
  assert.is(
    Number((await db.one('SELECT count(*) AS n FROM events'))!.n),
    4,
    'the other devices keep theirs',
  )
  const raised = await meta.alerts.raiseNoData({ at, severityLabels: { 2: 'major' } })
  assert.equal(raised.map((e) => e.deviceID).sort(), [b.deviceID, c.deviceID])
  await meta.close()
})

test('plan :: a device page reads its rows by id (its entries and the range above the mark), not the tenant', async () => {
  const db = await openDb({ url: `file:${join(dir, 'plan.db')}` })
  await new LogsRepo(db).addEvents(events(3000, 3))
  await db.run('ANALYZE')
  const list = listQuery(deviceEventSpec(), ['tenant-a', 1, 1], q({ limit: 20 }))
  for (const s of list.statements) {
    const plan = (await db.all(`EXPLAIN QUERY PLAN ${s.sql}`, s.args as never))
      .map((r) => String(r.detail))
      .join('\n')
    assert.match(plan, /SEARCH x USING PRIMARY KEY \(device_int_id=\?\)/, plan)
    assert.match(plan, /SEARCH r USING INTEGER PRIMARY KEY \(rowid>\?\)/, plan)
    assert.match(plan, /SEARCH e USING INTEGER PRIMARY KEY \(rowid=\?\)/, plan)
    assert.not.match(plan, /events_tenant|SCAN (e|r|x)\b/, plan)
  }
  await db.close()
})

test.run()
