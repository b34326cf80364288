/**
 * The event log's blocks and fold over a real libSQL file: the codec gives back every field byte for byte (hostile
 * payloads included); two folds of the same rows at once store each event once; a fold whose rows were deleted after
 * it read them changes nothing; a fold killed with SIGKILL leaves every event exactly once (tail or block).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { InStatement } from '@libsql/client'
import { openDb, type Db } from '../../store/libsql/db.ts'
import { LogsRepo } from '../../store/libsql/logs.ts'
import { EventFoldRepo } from '../../store/libsql/event-fold.ts'
import {
  BLOCK_EVENTS,
  decodeIndex,
  decodePayloads,
  encodeBlock,
  type BlockEvent,
} from '../../store/libsql/event-blocks.ts'
import { indexStep } from '../../store/libsql/event-devices.ts'
import type { EventInput } from '../../store/types.ts'

const HOSTILE = [
  '',
  null,
  '{"a":1,"b":-2.5e-7,"c":123456789012345678901234567890,"d":-0}',
  'no numbers at all',
  'raw \u0001 hole marker \u0001 1 2 3',
  '1.2.3,4,,5 -6- 7e 8E+9 0.0001',
  '𝄞 ünïcode 42 ✓ 3.14',
  '{"s":"12,34","t":"\\u0001"}',
  '\u0000 nul 7 \u0000',
  'x'.repeat(5000) + ' 99',
]

const codec = suite('event blocks: codec')

codec(
  'round trip :: ids, times out of order, keys and hostile payloads come back exactly',
  async () => {
    const events: BlockEvent[] = Array.from({ length: BLOCK_EVENTS }, (_, i) => ({
      id: 2 ** 40 + i * 3 + (i % 2),
      msgTime: 1_700_000_000_000 + ((i * 7919) % 1000) * 1000 - (i % 5),
      createAt: 1_700_000_000_000 + i * 10 - (i % 3) * 100_000,
      topic: i % 3 ? 'telemetry' : null,
      status: i % 4 ? 1 : 0,
      IP: i % 5 ? `10.0.0.${i % 2}` : null,
      reason: i % 4 ? null : 'bad',
      payload: HOSTILE[i % HOSTILE.length]!,
    }))
    const b = await encodeBlock([...events].reverse())
    assert.is(b.n, BLOCK_EVENTS)
    assert.is(b.id0, events[0]!.id)
    assert.is(b.id1, events.at(-1)!.id)
    assert.is(b.t0, Math.min(...events.map((e) => e.msgTime)))
    assert.is(b.c1, Math.max(...events.map((e) => e.createAt)))
    const [index, payloads] = await Promise.all([decodeIndex(b.idx, b.n), decodePayloads(b.data)])
    const back = index.map((e, i) => {
      const [topic, status, IP, reason] = b.keys[e.key]!
      return {
        id: e.id,
        msgTime: e.msgTime,
        createAt: e.createAt,
        topic,
        status,
        IP,
        reason,
        payload: payloads[i],
      }
    })
    assert.equal(back, events)
    assert.equal(
      b.keys.reduce((n, k) => n + k[4], 0),
      BLOCK_EVENTS,
    )
  },
)

codec('sizes :: 0 and 1,025 events are refused', async () => {
  for (const n of [0, BLOCK_EVENTS + 1])
    try {
      await encodeBlock(
        Array.from({ length: n }, (_, i) => ({
          id: i + 1,
          msgTime: 0,
          createAt: 0,
          topic: null,
          status: 1,
          IP: null,
          reason: null,
          payload: null,
        })),
      )
      assert.unreachable(`${n} events`)
    } catch (e) {
      assert.instance(e, RangeError)
    }
})

codec.run()

// -----------------------------------------------------------------------------------------------------------------
const fold = suite('event fold: concurrent, guarded, killed')
let dir: string
fold.before(() => {
  dir = mkdtempSync(join(tmpdir(), 'devicecloud-fold-'))
})
fold.after(() => rmSync(dir, { recursive: true, force: true }))

/** A fresh file with `n` events of `devices` devices, two tenants. */
async function filled(name: string, n: number, devices = 20): Promise<{ db: Db; url: string }> {
  const url = `file:${join(dir, name)}`
  const db = await openDb({ url })
  const logs = new LogsRepo(db)
  const rows: EventInput[] = Array.from({ length: n }, (_, i) => ({
    tenantID: i % devices < devices / 2 ? 'tenant-a' : 'tenant-b',
    deviceIntID: (i % devices) + 1,
    deviceID: `d${i % devices}`,
    deviceName: `device ${i % devices}`,
    topic: 'telemetry',
    payload: JSON.stringify({ t: (i * 37) % 1000, h: i }),
    IP: '10.1.1.1',
    msgTime: 1_700_000_000_000 + i * 100,
  }))
  for (let k = 0; k < rows.length; k += 5000) await logs.addEvents(rows.slice(k, k + 5000))
  return { db, url }
}

/** Every event id in the tail and the blocks, each once: [ids sorted, how many appear more than once]. */
async function everyID(db: Db): Promise<{ ids: number[]; repeated: number }> {
  const tail = (await db.all('SELECT id FROM events')).map((r) => Number(r.id))
  const blocks = await db.all('SELECT n, hex(idx) AS idx FROM event_blocks')
  const inBlocks = (
    await Promise.all(
      blocks.map((b) => decodeIndex(Buffer.from(String(b.idx), 'hex'), Number(b.n))),
    )
  ).flatMap((index) => index.map((e) => e.id))
  const all = [...tail, ...inBlocks].sort((a, b) => a - b)
  const repeated = all.filter((id, i) => i > 0 && all[i - 1] === id).length
  return { ids: [...new Set(all)], repeated }
}

/** Brings the tail's index by device up to its newest row: a step folds indexed rows only. */
async function indexAll(db: Db): Promise<void> {
  while ((await indexStep(db)).more);
}

async function foldAll(db: Db): Promise<number> {
  await indexAll(db)
  const repo = new EventFoldRepo(db)
  const boundary = await repo.boundary(Date.now() + 1)
  let after: number | undefined = 0
  let events = 0
  while (after !== undefined) {
    const s = await repo.step(boundary, after)
    events += s.events
    after = s.next
  }
  return events
}

fold(
  'two folds at once :: two connections fold the same rows; every event is stored once',
  async () => {
    const { db, url } = await filled('two.db', 20_000)
    const other = await openDb({ url })
    const expected = (await everyID(db)).ids
    const results = await Promise.allSettled([foldAll(db), foldAll(other)])
    const folded = results.reduce((n, r) => n + (r.status === 'fulfilled' ? r.value : 0), 0)
    // a step that lost the race rolls back (its guard), so what finished may have to be folded again
    await foldAll(db)
    const after = await everyID(db)
    assert.is(after.repeated, 0)
    assert.equal(after.ids, expected)
    assert.is(Number((await db.one('SELECT count(*) AS n FROM events'))!.n), 0)
    assert.ok(folded <= 20_000, `${folded}`)
    await other.close()
    await db.close()
  },
)

fold(
  'guard :: rows deleted after the fold read them: the step rolls back, nothing is resurrected',
  async () => {
    const { db } = await filled('guard.db', 3000, 3)
    // the delete lands between the step's read and its write (armed once the index is up and the boundary read)
    let armed = false
    const racing: Db = {
      ...db,
      all: db.all.bind(db),
      one: db.one.bind(db),
      read: db.read.bind(db),
      run: db.run.bind(db),
      checkpoint: db.checkpoint.bind(db),
      reclaim: db.reclaim.bind(db),
      close: db.close.bind(db),
      insertJson: db.insertJson.bind(db),
      async batch(statements: InStatement[]) {
        if (armed) await db.run('DELETE FROM events WHERE device_int_id = 2')
        return db.batch(statements)
      },
    }
    const repo = new EventFoldRepo(racing)
    await indexAll(db)
    const boundary = await repo.boundary(Date.now() + 1)
    armed = true
    let failed = false
    try {
      await repo.step(boundary, 0)
    } catch {
      failed = true
    }
    assert.ok(failed, 'the step failed')
    assert.is(Number((await db.one('SELECT count(*) AS n FROM event_blocks'))!.n), 0)
    assert.is(Number((await db.one('SELECT count(*) AS n FROM events'))!.n), 2000)
    // the next fold goes through, without the deleted device's events
    assert.is(await foldAll(db), 2000)
    const left = await everyID(db)
    assert.is(left.ids.length, 2000)
    await db.close()
  },
)

fold(
  'kill -9 :: a fold killed after its first step leaves every event exactly once; a second fold ends it',
  async () => {
    const { db } = await filled('killed.db', 60_000, 200)
    const expected = (await everyID(db)).ids
    const path = join(dir, 'killed.db')
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'event-fold-child.ts'), path],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    const steps = await new Promise<number>((resolve) => {
      let out = ''
      child.stdout.on('data', (d) => {
        out += d
        if (/step 1\n/.test(out)) {
          child.kill('SIGKILL')
          resolve((out.match(/step/g) ?? []).length)
        }
      })
      child.on('exit', () => resolve(-1))
    })
    await new Promise((r) => child.once('exit', r).once('close', r))
    assert.ok(steps >= 1, 'killed after a step')
    const mid = await everyID(db)
    assert.is(mid.repeated, 0)
    assert.equal(mid.ids, expected)
    assert.ok(
      Number((await db.one('SELECT count(*) AS n FROM event_blocks'))!.n) > 0,
      'a step committed',
    )
    assert.ok(
      Number((await db.one('SELECT count(*) AS n FROM events'))!.n) > 0,
      'killed before the end',
    )
    await foldAll(db)
    const end = await everyID(db)
    assert.is(end.repeated, 0)
    assert.equal(end.ids, expected)
    await db.close()
  },
)

fold.run()
