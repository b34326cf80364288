/**
 * The commands repository at a thousand commands a second: stored commands answered without reading them back, and
 * the PUBACKs of one turn (each with its own delivery time) moved by one UPDATE.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDb, type Db } from '../../store/libsql/db.ts'
import { createMetaStore } from '../../store/libsql/meta.ts'
import { transitionStatements } from '../../store/libsql/command-sql.ts'
import type { CommandInput, MetaStore, Transition } from '../../store/types.ts'
import { commandInput } from './_commands.ts'

const test = suite('libSQL: command rows and their transitions')
let dir: string
let db: Db
let meta: MetaStore

/** A command sent at 5, its PUBACK due at 1005. */
const input = (tenantID: string, taskID: string, extra: Partial<CommandInput> = {}) =>
  commandInput(tenantID, taskID, {
    payload: '{"x":1}',
    status: 'sent',
    sentAt: 5,
    deadlineAt: 1005,
    ...extra,
  })

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'devicecloud-cmd-transitions-'))
  db = await openDb({ url: `file:${dir}/meta.db` })
  meta = createMetaStore(db)
})
test.after(async () => {
  await meta.close()
  rmSync(dir, { recursive: true, force: true })
})

test('create :: answers each command as a read of its row would', async () => {
  const rows = [
    input('T1', 'a'),
    input('T2', 'b', { status: 'queued', sentAt: null, deadlineAt: null, expiresAt: 99, qos: 0 }),
    input('T2', 'c', { scheduleID: 7, publishUser: 'u', userIntID: 3, groupID: 'g', parentID: 4 }),
  ]
  const created = await meta.commands.create(rows, [])
  assert.equal(
    created.map((c) => c.taskID),
    ['a', 'b', 'c'],
  )
  for (const c of created) assert.equal(c, await meta.commands.get(c.tenantID, c.taskID))
})

const delivered = (id: number, at: number): Transition => ({
  id,
  from: ['sent'],
  to: 'delivered',
  publishStatus: 2,
  fields: { deliveredAt: at, deadlineAt: null },
})

test('PUBACKs of one turn at different times :: one UPDATE, each row its own delivery time', async () => {
  const created = await meta.commands.create(
    ['p1', 'p2', 'p3'].map((t) => input('T1', t)),
    [],
  )
  const changes = created.map((c, i) => delivered(c.id, 100 + i))
  const updates = transitionStatements(changes, 1, 'tok').filter((s) =>
    (s as { sql: string }).sql.trimStart().startsWith('UPDATE'),
  )
  assert.is(updates.length, 1)
  const moved = await meta.commands.transition(changes)
  assert.equal(moved.map((m) => [m.taskID, m.commandStatus, m.deliveredAt, m.deadlineAt]).sort(), [
    ['p1', 'delivered', 100, null],
    ['p2', 'delivered', 101, null],
    ['p3', 'delivered', 102, null],
  ])
  // other rows are left as they were
  assert.is((await meta.commands.get('T1', 'a'))!.commandStatus, 'sent')
})

test('one command moved twice in a batch :: a compare-and-set each, it moves once', async () => {
  const [c] = await meta.commands.create([input('T1', 'twice')], [])
  const changes = [delivered(c!.id, 200), delivered(c!.id, 201)]
  assert.is(transitionStatements(changes, 1, 'tok').length, 2)
  const moved = await meta.commands.transition(changes)
  assert.equal(
    moved.map((m) => [m.taskID, m.deliveredAt]),
    [['twice', 200]],
  )
})

test.run()
