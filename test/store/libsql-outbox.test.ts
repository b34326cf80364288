/**
 * Commands and their outbox events in one transaction (store/libsql/commands.ts, outboxInserts): an event is
 * stored only for a command that moved, each with one delivery per subscribed webhook of its own tenant.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Db } from '../../store/libsql/db.ts'
import { openTestDb, overWorkers } from './_db.ts'
import { createMetaStore } from '../../store/libsql/meta.ts'
import type { MetaStore, OutboxInput } from '../../store/types.ts'
import { commandInput } from './_commands.ts'

const test = suite(`libSQL: changes and their outbox events${overWorkers() ? ' (PortDb)' : ''}`)
let dir: string
let db: Db
let meta: MetaStore

const event = (tenantID: string, taskID: string, s: string): OutboxInput => ({
  tenantID,
  type: 'command.status',
  time: 1,
  deviceID: `d-${tenantID}`,
  data: JSON.stringify({ taskID, commandStatus: s }),
})

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'devicecloud-outbox-'))
  db = await openTestDb(`file:${dir}/meta.db`)
  meta = createMetaStore(db)
  for (const [tenant, n] of [
    ['T1', 2],
    ['T2', 8],
  ] as const)
    for (let i = 0; i < n; i++)
      await meta.webhooks.create(
        tenant,
        {
          url: `http://h/${tenant}/${i}`,
          events: ['command.status'],
          enable: 1,
          secret: 's',
          userIntID: null,
        },
        0,
      )
})
test.after(async () => {
  await meta.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Each stored event: its tenant, taskID, status and the tenants of the webhooks it is delivered to. */
const stored = async () =>
  (
    await db.all(
      `SELECT e.tenant_id AS tenant, json_extract(e.data, '$.taskID') AS taskID,
         json_extract(e.data, '$.commandStatus') AS s,
         (SELECT group_concat(w.tenant_id) FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
           WHERE d.event_id = e.id) AS hooks
       FROM outbox_events e ORDER BY e.id`,
    )
  ).map((r) => [r.tenant, r.taskID, r.s, r.hooks])

test('create and transition :: events stored with the commands, only for those that moved', async () => {
  const rows = [commandInput('T1', 'a'), commandInput('T2', 'b'), commandInput('T2', 'c')]
  const cmds = await meta.commands.create(
    rows,
    rows.map((r) => event(r.tenantID, r.taskID, 'queued')),
  )
  assert.equal(
    cmds.map((c) => c.taskID),
    ['a', 'b', 'c'],
  )
  const [a, b, c] = cmds
  const moved = await meta.commands.transition([
    { id: a!.id, from: ['queued'], to: 'sent', publishStatus: 1, outbox: event('T1', 'a', 'sent') },
    { id: b!.id, from: ['queued'], to: 'sent', publishStatus: 1, outbox: event('T2', 'b', 'sent') },
    // not in `from`: neither moved nor announced
    {
      id: c!.id,
      from: ['sent'],
      to: 'delivered',
      publishStatus: 2,
      outbox: event('T2', 'c', 'delivered'),
    },
  ])
  assert.equal(
    moved.map((m) => [m.taskID, m.commandStatus]),
    [
      ['a', 'sent'],
      ['b', 'sent'],
    ],
  )
  // a second try of the same change moves nothing and stores no event
  const again = await meta.commands.transition([
    { id: a!.id, from: ['queued'], to: 'sent', publishStatus: 1, outbox: event('T1', 'a', 'sent') },
  ])
  assert.equal(again, [])
  const t1 = 'T1,T1'
  const t2 = Array(8).fill('T2').join(',')
  assert.equal(await stored(), [
    ['T1', 'a', 'queued', t1],
    ['T2', 'b', 'queued', t2],
    ['T2', 'c', 'queued', t2],
    ['T1', 'a', 'sent', t1],
    ['T2', 'b', 'sent', t2],
  ])
})

test('a failing write :: neither the change nor its event is stored', async () => {
  const before = (await stored()).length
  const rows = [commandInput('T1', 'dup'), commandInput('T1', 'dup2')]
  // an event without a tenant cannot be stored (NOT NULL): the whole transaction fails
  const bad = { ...event('T1', 'dup', 'queued'), tenantID: null as unknown as string }
  let failed = false
  await meta.commands.create(rows, [bad]).catch(() => (failed = true))
  assert.ok(failed)
  assert.is((await stored()).length, before)
  assert.is(await meta.commands.get('T1', 'dup'), undefined)
})

test.run()
