/**
 * The claim that makes a due time fire once: two connections to one libSQL file (as two nodes have) race for
 * the same due times, through the store port and through two schedule services running their turns at the
 * same instants. Commands are counted by a stand-in command service.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDb, type Db } from '../../../store/libsql/db.ts'
import { createMetaStore } from '../../../store/libsql/meta.ts'
import type { MetaStore, ScheduleInput } from '../../../store/types.ts'
import { scheduleService } from '../../../src/services/schedules.ts'
import { scheduleInput } from '../../_support/fixtures.ts'

const MINUTE = 60_000
const T0 = Date.UTC(2030, 0, 1)

interface Node {
  db: Db
  meta: MetaStore
}

const ctx = {
  dir: '',
  nodes: [] as Node[],
  fake: T0,
  /** The commands the stand-in command service was asked for: by which schedule, on which node. */
  fired: [] as Array<{ scheduleID: number; node: number }>,
}

const input = (extra: Partial<ScheduleInput> = {}) => scheduleInput(ctx.fake + MINUTE, extra)

/** A schedule service of node `n` whose commands are only counted. */
function serviceOf(n: number) {
  let seq = 0
  const command = async (_a: unknown, _input: unknown, opts: { scheduleID?: number } = {}) => {
    ctx.fired.push({ scheduleID: opts.scheduleID!, node: n })
    // a command's status is the enumeration (CommandStatus), not any string
    return {
      taskID: `n${n}-${++seq}`,
      commandStatus: 'unsent' as const,
      statusReason: 'device offline, no ttl',
      publishStatus: 0,
      statusUrl: '',
    }
  }
  return scheduleService({
    meta: ctx.nodes[n]!.meta,
    commands: { toDevice: command, toGroup: command },
    config: { TIMEZONE: 'UTC' },
    now: () => ctx.fake,
    log: (m, e) => {
      throw new Error(`${m}: ${String(e)}`)
    },
  })
}

const claim = suite('schedule claims across connections')
claim.before(async () => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'devicecloud-claim-'))
  const url = `file:${join(ctx.dir, 'meta.db')}`
  for (let i = 0; i < 2; i++) {
    const db = await openDb({ url })
    ctx.nodes.push({ db, meta: createMetaStore(db) })
  }
})
claim.after(async () => {
  for (const n of ctx.nodes) void n.db.close()
  rmSync(ctx.dir, { recursive: true, force: true })
})

claim('two claims of one due time at once :: exactly one wins', async () => {
  const [a, b] = ctx.nodes as [Node, Node]
  for (let i = 0; i < 20; i++) {
    const s = await a.meta.schedules.create('T1', 'device', null, input())
    const due = s.nextRunAt!
    const [x, y] = await Promise.all([
      a.meta.schedules.claim(s.id, due, due + MINUTE),
      b.meta.schedules.claim(s.id, due, due + MINUTE),
    ])
    assert.is([x, y].filter(Boolean).length, 1, `round ${i}`)
    const stored = await b.meta.schedules.get('T1', 'device', s.id)
    assert.equal([stored.lastRunAt, stored.nextRunAt], [due, due + MINUTE])
    assert.is(await a.meta.schedules.claim(s.id, due, due + MINUTE), undefined, 'a due time once')
  }
})

claim('a disabled schedule or one edited meanwhile :: not claimed', async () => {
  const [a] = ctx.nodes as [Node]
  const off = await a.meta.schedules.create('T1', 'device', null, input({ enable: 0 }))
  assert.is(await a.meta.schedules.claim(off.id, off.nextRunAt!, null), undefined)
  const s = await a.meta.schedules.create('T1', 'device', null, input())
  await a.meta.schedules.update('T1', 'device', s.id, input({ nextRunAt: s.nextRunAt! + 1000 }))
  assert.is(await a.meta.schedules.claim(s.id, s.nextRunAt!, null), undefined)
})

claim(
  'two services taking turns at the same instants :: every due time fired once, none skipped',
  async () => {
    const [a] = ctx.nodes as [Node]
    await ctx.nodes[0]!.db.run('DELETE FROM schedules')
    ctx.fired = []
    const ids: number[] = []
    for (let i = 0; i < 10; i++)
      ids.push((await a.meta.schedules.create('T1', 'device', null, input())).id)
    const once = await a.meta.schedules.create(
      'T1',
      'device',
      null,
      input({ scheduleType: 1, IntervalMinute: null, crontabTime: ctx.fake + MINUTE }),
    )
    const services = [serviceOf(0), serviceOf(1)]
    for (let step = 1; step <= 5; step++) {
      ctx.fake += MINUTE
      await Promise.all(services.map((s) => s.runDue()))
    }
    for (const id of ids)
      assert.is(ctx.fired.filter((f) => f.scheduleID === id).length, 5, `schedule ${id}`)
    assert.is(ctx.fired.filter((f) => f.scheduleID === once.id).length, 1, 'once fires once')
    const done = await a.meta.schedules.get('T1', 'device', once.id)
    assert.equal([done.nextRunAt, done.lastRunAt], [null, T0 + MINUTE])

    // ten minutes with no turn: each fires once, and is next due a minute from now
    ctx.fake += 10 * MINUTE
    ctx.fired = []
    await Promise.all(services.map((s) => s.runDue()))
    await Promise.all(services.map((s) => s.runDue()))
    assert.is(ctx.fired.length, ids.length)
    const s = await a.meta.schedules.get('T1', 'device', ids[0]!)
    assert.equal([s.lastRunAt, s.nextRunAt], [T0 + 6 * MINUTE, ctx.fake + MINUTE])
    assert.match(s.lastTaskID ?? '', /^n[01]-\d+$/)
  },
)

claim.run()
