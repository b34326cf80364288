/**
 * The metadata database gives the pages retention freed back (store/libsql/vacuum.ts), in this thread (LocalDb)
 * and through its store worker (PortDb): new files vacuum incrementally, older ones are converted at open.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from '@libsql/client'
import Database from 'libsql'
import { spawnSync } from 'node:child_process'
import { openDb, type Db } from '../../store/libsql/db.ts'
import { PortDb } from '../../store/libsql/worker/port-db.ts'
import { LogsRepo } from '../../store/libsql/logs.ts'
import { RetentionRepo } from '../../store/libsql/retention.ts'
import type { EventInput } from '../../store/types.ts'

const dir = mkdtempSync(join(tmpdir(), 'devicecloud-db-vacuum-'))
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
let files = 0
const newFile = () => join(dir, `m${++files}.db`)

const T = Date.UTC(2026, 0, 1)
const EVENTS = 20_000

/** `n` uplink events a second apart from T on, each with a payload of ~200 bytes. */
const events = (n: number, from = 0): EventInput[] =>
  Array.from({ length: n }, (_, i) => ({
    tenantID: 't1',
    deviceIntID: 1,
    deviceID: 'd1',
    deviceName: 'd1',
    productIntID: 1,
    topic: 'telemetry',
    payload: JSON.stringify({ i: from + i, pad: 'x'.repeat(180) }),
    IP: '10.0.0.1',
    msgTime: T + (from + i) * 1000,
  }))

/** The file's pages (the WAL's included) from a second connection. */
async function space(file: string) {
  const c = createClient({ url: `file:${file}`, intMode: 'number' })
  try {
    const [pages, free, size, mode] = await c.batch(
      ['PRAGMA page_count', 'PRAGMA freelist_count', 'PRAGMA page_size', 'PRAGMA auto_vacuum'],
      'read',
    )
    const n = (r: typeof pages) => Number(r!.rows[0]![0])
    return { pages: n(pages), used: n(pages) - n(free), pageSize: n(size), autoVacuum: n(mode) }
  } finally {
    c.close()
  }
}

const openers: Array<[string, (url: string) => Promise<Db>]> = [
  ['in this thread', (url) => openDb({ url })],
  ['through the store worker', (url) => PortDb.open({ url })],
]

const t = suite('metadata database gives freed pages back')

for (const [where, open] of openers)
  t(
    `${where}: retention deletes most events :: reclaim steps until nothing is due; the file within 2x its used pages`,
    async () => {
      const file = newFile()
      const db = await open(`file:${file}`)
      assert.is((await space(file)).autoVacuum, 2, 'a new file vacuums incrementally')
      const logs = new LogsRepo(db)
      for (let i = 0; i < EVENTS; i += 5000) await logs.addEvents(events(5000, i))
      const retention = new RetentionRepo(db)
      let pruned = 0
      for (let n = 500; n === 500;) {
        n = await retention.pruneEvents(1, T + 0.9 * EVENTS * 1000, 500)
        pruned += n
      }
      assert.is(pruned, 0.9 * EVENTS)
      const freed = await space(file)
      assert.ok(freed.pages > 4 * freed.used, `freed: ${freed.pages} pages, ${freed.used} in use`)
      let steps = 0
      for (let left = 1; left > 0; steps++) left = await retention.reclaim(256)
      assert.ok(steps > 1, `in steps (${steps})`)
      const after = await space(file)
      assert.ok(after.pages <= 2 * after.used, `${after.pages} pages, ${after.used} in use`)
      assert.is(await retention.reclaim(256), 0, 'nothing more due')
      assert.is(Number((await db.one('SELECT count(*) AS n FROM events'))!.n), 0.1 * EVENTS)
      await db.checkpoint() // as a clean stop does
      await db.close()
      const size = statSync(file).size
      assert.ok(size <= 2 * after.used * after.pageSize, `${size} bytes on disk`)
    },
  )

t(
  'a reader opening while another connection writes :: opens (the mode is set on new files only)',
  async () => {
    const file = newFile()
    const db = await openDb({ url: `file:${file}` })
    const holder = createClient({ url: `file:${file}` })
    const tx = await holder.transaction('write')
    try {
      await tx.execute('CREATE TABLE held (x)')
      const reader = await openDb({ url: `file:${file}`, readOnly: true })
      assert.ok(await reader.one('SELECT 1 AS one'))
      await reader.close()
    } finally {
      await tx.rollback()
      holder.close()
    }
    await db.close()
  },
)

t('a file without incremental vacuum :: converted at open, its rows kept', async () => {
  const file = newFile()
  const old = createClient({ url: `file:${file}` })
  await old.execute('PRAGMA journal_mode = WAL') // auto_vacuum stays NONE, as in files of earlier versions
  await old.execute('CREATE TABLE kept (x INTEGER)')
  await old.execute('INSERT INTO kept VALUES (1), (2)')
  old.close()
  assert.is((await space(file)).autoVacuum, 0)
  const db = await openDb({ url: `file:${file}` })
  assert.is((await space(file)).autoVacuum, 2)
  assert.equal(await db.all('SELECT x FROM kept ORDER BY x'), [{ x: 1 }, { x: 2 }])
  assert.ok(await db.one('SELECT 1 FROM sqlite_master WHERE name = ?', ['events']), 'migrated')
  await db.close()
})

t(
  'npm run vacuum, the service stopped :: files of earlier versions converted, their free pages given back',
  async () => {
    const data = mkdtempSync(join(dir, 'data-'))
    // written through the driver's own connection, closed for real (a closed @libsql/client keeps its file
    // locks in this process, and npm run vacuum refuses files a process holds open)
    for (const name of ['devicecloud.db', 'telemetry.db']) {
      const c = new Database(join(data, name))
      c.exec('PRAGMA journal_mode = WAL') // auto_vacuum NONE, as in files of earlier versions
      c.exec('CREATE TABLE junk (i INTEGER, b BLOB)')
      c.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
              INSERT INTO junk SELECT i, randomblob(2000) FROM n`)
      c.exec('DELETE FROM junk WHERE i > 100')
      c.exec('PRAGMA wal_checkpoint(TRUNCATE)')
      c.close()
    }
    const before = statSync(join(data, 'telemetry.db')).size
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/vacuum.ts'], {
      cwd: join(import.meta.dirname, '../..'),
      env: { ...process.env, DATA_DIR: data, LOG_LEVEL: 'error' },
      encoding: 'utf8',
    })
    assert.is(run.status, 0, run.stderr)
    assert.match(run.stdout, /telemetry\.db: \d+ → \d+ bytes/)
    for (const name of ['devicecloud.db', 'telemetry.db']) {
      const s = await space(join(data, name))
      assert.is(s.autoVacuum, 2, name)
      assert.ok(s.pages <= 2 * s.used, `${name}: ${s.pages} pages, ${s.used} in use`)
    }
    assert.ok(statSync(join(data, 'telemetry.db')).size < before / 4)
  },
)

t.run()
