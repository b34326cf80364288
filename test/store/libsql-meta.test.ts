/**
 * The libSQL metadata store behind its port (store/types.ts MetaStore): what ingest writes through
 * `connections`, the cascade of migration 070, driver errors as store errors, list times as epoch ms.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Db } from '../../store/libsql/db.ts'
import { openTestDb, overWorkers } from './_db.ts'
import { createMetaStore } from '../../store/libsql/meta.ts'
import { Conflict, Referenced } from '../../store/errors.ts'
import type { ListArgs, MetaStore } from '../../store/types.ts'

interface Ctx {
  dir: string
  db: Db
  meta: MetaStore
  productIntID: number
}
const ctx = {} as Ctx
let seq = 0

const args = (over: Partial<ListArgs> = {}): ListArgs => ({
  page: 1,
  limit: 100,
  filters: [],
  ...over,
})

async function device(tenant = 'T1'): Promise<{ id: number; deviceID: string }> {
  const deviceID = `dev-${++seq}`
  const r = await ctx.db.run(
    `INSERT INTO devices (tenant_id, product_int_id, device_id, device_name, device_username, token, create_at)
     VALUES (?, ?, ?, ?, 'u', 'k', 0)`,
    [tenant, ctx.productIntID, deviceID, deviceID],
  )
  return { id: r.lastId, deviceID }
}

const count = async (table: string, deviceIntID: number) =>
  Number(
    (await ctx.db.one(`SELECT count(*) AS n FROM ${table} WHERE device_int_id = ?`, [deviceIntID]))!
      .n,
  )

const meta = suite(`libSQL metadata store${overWorkers() ? ' (PortDb)' : ''}`)

meta.before(async () => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'devicecloud-meta-'))
  ctx.db = await openTestDb(`file:${ctx.dir}/meta.db`)
  ctx.meta = createMetaStore(ctx.db)
  ctx.productIntID = (
    await ctx.db.run(
      "INSERT INTO products (tenant_id, product_id, product_name, cloud_protocol, create_at) VALUES ('T1', 'p1', 'p', 1, 0)",
    )
  ).lastId
})

meta.after(async () => {
  await ctx.meta.close()
  rmSync(ctx.dir, { recursive: true, force: true })
})

meta(
  'connections.record :: states and connection logs written together, last state wins',
  async () => {
    const a = await device()
    const b = await device()
    await ctx.meta.connections.record({
      states: [
        { deviceIntID: a.id, online: true, ip: '10.0.0.1', connectedAt: 1000, keepAlive: 60 },
        { deviceIntID: b.id, online: true, ip: '10.0.0.2', connectedAt: 1000, keepAlive: 30 },
        { deviceIntID: b.id, online: false },
      ],
      logs: [
        {
          tenantID: 'T1',
          deviceIntID: a.id,
          deviceID: a.deviceID,
          connectStatus: 1,
          msgTime: 1000,
        },
        { tenantID: null, deviceID: 'nobody', connectStatus: 2, msgTime: 1000 },
      ],
    })
    const rows = await ctx.db.all(
      'SELECT id, device_status, client_ip, connected_at, keep_alive FROM devices WHERE id IN (?, ?) ORDER BY id',
      [a.id, b.id],
    )
    assert.equal(rows, [
      { id: a.id, device_status: 1, client_ip: '10.0.0.1', connected_at: 1000, keep_alive: 60 },
      { id: b.id, device_status: 0, client_ip: '10.0.0.2', connected_at: 1000, keep_alive: 30 },
    ])
    assert.is(await count('connect_logs', a.id), 1)
    assert.is(await ctx.meta.connections.allOffline(), 1)
    assert.is(
      (await ctx.db.one('SELECT device_status FROM devices WHERE id = ?', [a.id]))!.device_status,
      0,
    )
  },
)

meta(
  'a device deleted :: its logs and alerts go with it, another device keeps its own',
  async () => {
    const gone = await device()
    const kept = await device()
    for (const d of [gone, kept]) {
      const ref = { tenantID: 'T1', deviceIntID: d.id, deviceID: d.deviceID }
      await ctx.meta.logs.addConnectLogs([{ ...ref, connectStatus: 1 }])
      await ctx.meta.logs.addEvents([{ ...ref, topic: 'telemetry', payload: '{}' }])
      await ctx.meta.logs.addControlLogs([{ ...ref, publishStatus: 1 }])
      const [open, handled] = await ctx.meta.alerts.raise([
        { ...ref, alertName: 'hot', alertSeverity: 1 },
        { ...ref, alertName: 'cold', alertSeverity: 2 },
      ])
      await ctx.meta.alerts.clear('T1', [handled!], { at: Date.now(), severityLabels: {} })
      assert.ok(open)
    }
    await ctx.meta.devices.delete('T1', [gone.id])
    const tables = ['connect_logs', 'events', 'control_logs', 'current_alerts', 'history_alerts']
    for (const table of tables) {
      assert.is(await count(table, gone.id), 0, `${table} of the deleted device`)
      assert.is(await count(table, kept.id), 1, `${table} of the other device`)
    }
  },
)

meta('a FOREIGN KEY violation :: Referenced, the driver error as its cause', async () => {
  const err = await ctx.db
    .run('INSERT INTO group_devices (group_int_id, device_int_id, create_at) VALUES (999, 999, 0)')
    .then(
      () => undefined,
      (e: unknown) => e,
    )
  assert.instance(err, Referenced)
  assert.is((err as Referenced).field, 'ids')
  assert.match(String(((err as Referenced).cause as Error).message), 'FOREIGN KEY')
})

meta('a UNIQUE violation no repository names :: Conflict on the column’s wire name', async () => {
  const insert = (name: string) =>
    ctx.db.batch([
      {
        sql: "INSERT INTO products (tenant_id, product_id, product_name, cloud_protocol, create_at) VALUES ('T9', 'px', ?, 1, 0)",
        args: [name],
      },
    ])
  await insert('x')
  const err = await insert('y').then(
    () => undefined,
    (e: unknown) => e,
  )
  assert.instance(err, Conflict)
  assert.is((err as Conflict).field, 'productID')
})

meta('a repository’s precise conflict :: still names the field it knows', async () => {
  const taken = await ctx.meta.products
    .create('T1', null, { productName: 'p', cloudProtocol: 1 })
    .then(
      () => undefined,
      (e: unknown) => e,
    )
  assert.instance(taken, Conflict)
  assert.is((taken as Conflict).field, 'productName')
})

meta('list startTime/endTime :: epoch ms bounds of the time field, both inclusive', async () => {
  const d = await device('T3')
  const ref = { tenantID: 'T3', deviceIntID: d.id, deviceID: d.deviceID, connectStatus: 1 }
  await ctx.meta.logs.addConnectLogs([1000, 2000, 3000].map((msgTime) => ({ ...ref, msgTime })))
  const times = async (q: Partial<ListArgs>) =>
    (await ctx.meta.logs.connectLogs('T3', args(q))).items.map((r) => r.msgTime)
  assert.equal(await times({}), [3000, 2000, 1000])
  assert.equal(await times({ startTime: 2000 }), [3000, 2000])
  assert.equal(await times({ endTime: 2000 }), [2000, 1000])
  assert.equal(await times({ startTime: 1500, endTime: 2500 }), [2000])
})

meta(
  'outbox prune :: old events and their log go, recent ones stay, a batch at a time',
  async () => {
    const hook = await ctx.meta.webhooks.create(
      'T1',
      {
        url: 'http://127.0.0.1:9/h',
        events: ['alert.raised'],
        enable: 1,
        secret: 's',
        userIntID: null,
      },
      0,
    )
    const event = (time: number) => ({
      tenantID: 'T1',
      type: 'alert.raised' as const,
      time,
      deviceID: 'd',
      data: '{}',
    })
    const old = await ctx.meta.webhooks.append([1, 2, 3].map(event), 0)
    const [recent] = await ctx.meta.webhooks.append([event(10_000)], 0)
    assert.is(old.length, 3)
    assert.is(await ctx.meta.webhooks.prune(5_000, 2), 2)
    assert.is(await ctx.meta.webhooks.prune(5_000, 2), 1)
    assert.is(await ctx.meta.webhooks.prune(5_000, 2), 0)
    const left = (await ctx.db.all("SELECT id FROM outbox_events WHERE type = 'alert.raised'")).map(
      (r) => Number(r.id),
    )
    assert.equal(left, [recent!.id])
    const log = await ctx.db.all('SELECT event_id FROM webhook_deliveries WHERE webhook_id = ?', [
      hook.id,
    ])
    assert.equal(
      log.map((r) => Number(r.event_id)),
      [recent!.id],
    )
  },
)

meta.run()
