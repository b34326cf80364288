/**
 * The metadata database in worker threads (store/libsql/worker/): PortDb against the store worker's group
 * commits and the reader, compared with LocalDb where they must agree.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { threadsNamed } from '../_support/procs.ts'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { jsonInserts, jsonRows, openDb, type Db } from '../../store/libsql/db.ts'
import { PortDb, READERS_START_AFTER, spawnWorker } from '../../store/libsql/worker/port-db.ts'
import { PortClient } from '../../store/libsql/worker/port-client.ts'
import { Checkpointer } from '../../store/libsql/worker/checkpoints.ts'
import { isUniqueViolation, uniqueColumns } from '../../store/libsql/sql-errors.ts'
import { Conflict, Referenced, Unavailable } from '../../store/errors.ts'

const ctx = {} as { dir: string; db: PortDb; local: Db }
const test = suite('metadata database in workers')

const settle = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (e: unknown) => ({ ok: false as const, e }),
  )

/** Polls `read` until `ok` holds or `ms` passed; the last value read. */
async function until<T>(read: () => T | Promise<T>, ok: (v: T) => boolean, ms: number): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await read()
    if (ok(v) || Date.now() > end) return v
    await new Promise((r) => setTimeout(r, 50))
  }
}

const checkpointerThreads = () => threadsNamed('db-checkpointer')

const product = (tenant: string, productID: string) => ({
  sql: 'INSERT INTO products (tenant_id, product_id, product_name, cloud_protocol, create_at) VALUES (?, ?, ?, 1, 0) RETURNING id',
  args: [tenant, productID, `${tenant}-${productID}`],
})

const productIDs = async (db: Db, tenant: string) =>
  (
    await db.all('SELECT product_id AS p FROM products WHERE tenant_id = ? ORDER BY id', [tenant])
  ).map((r) => r.p)

test.before(async () => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'devicecloud-workers-'))
  ctx.db = await PortDb.open({ url: `file:${ctx.dir}/meta.db` })
  ctx.local = await openDb({ url: `file:${ctx.dir}/local.db` })
})

test.after(async () => {
  await ctx.db.close()
  await ctx.local.close()
  rmSync(ctx.dir, { recursive: true, force: true })
})

test('two readers :: reads go to both in turn, each its own thread', async () => {
  const db = await PortDb.open({
    url: `file:${ctx.dir}/two-readers.db`,
    readers: 2,
    readerIdleMs: 0,
  })
  try {
    await db.batch([product('T9', 'r1')])
    const readers = (db as unknown as { readers: PortClient[] }).readers
    assert.is(readers.length, 2)
    const reads = Array.from({ length: 6 }, () => productIDs(db, 'T9'))
    assert.equal(
      readers.map((r) => r.inFlight),
      [3, 3],
      'six reads sent at once: three to each reader',
    )
    for (const r of await Promise.all(reads)) assert.equal(r, ['r1'])
  } finally {
    await db.close()
  }
})

test('readers at rest :: none until reads find the store worker busy, then two; none once reads stop contending', async () => {
  const before = threadsNamed('db-reader')
  const db = await PortDb.open({
    url: `file:${ctx.dir}/rest-readers.db`,
    readers: 2,
    readerIdleMs: 600,
  })
  try {
    await db.batch([product('T8', 'a'), product('T8', 'b')])
    // one read at a time, nothing else in hand: the store worker answers, no reader starts
    for (let i = 0; i < 20; i++) assert.equal(await productIDs(db, 'T8'), ['a', 'b'])
    assert.is(threadsNamed('db-reader'), before, 'no reader for reads that never wait')
    // reads beside writes: the readers start, and answer the same
    const burst = async () => {
      const writes = Array.from({ length: 5 }, (_, i) =>
        db.batch([product('T8', `w${i}-${Math.random()}`)]),
      )
      // more than READERS_START_AFTER, so that one clock second sees enough of them
      const reads = Array.from({ length: 2 * READERS_START_AFTER + 5 }, () => productIDs(db, 'T8'))
      for (const r of await Promise.all(reads)) assert.equal(r.slice(0, 2), ['a', 'b'])
      await Promise.all(writes)
    }
    await burst()
    const running = await until(
      () => threadsNamed('db-reader') - before,
      (n) => n === 2,
      5000,
    )
    assert.is(running, 2, 'two readers run')
    const readers = () => (db as unknown as { readers: PortClient[] }).readers
    await until(
      () => readers().length,
      (n) => n === 2,
      5000,
    )
    // beside a write the readers answer, in turn; alone, the store worker
    const write = db.batch([product('T8', 'beside')])
    const reads = Array.from({ length: 4 }, () => productIDs(db, 'T8'))
    assert.equal(
      readers().map((r) => r.inFlight),
      [2, 2],
      'reads beside a write go to the readers',
    )
    await Promise.all([write, ...reads])
    const alone = productIDs(db, 'T8')
    assert.equal(
      readers().map((r) => r.inFlight),
      [0, 0],
      'a read alone goes to the store worker',
    )
    await alone
    // a read after an awaited write sees it whoever answers
    await db.batch([product('T8', 'seen')])
    assert.ok((await productIDs(db, 'T8')).includes('seen'))
    // quiet: both end, reads go on through the store worker, and the next burst starts them again
    assert.is(
      await until(
        () => threadsNamed('db-reader') - before,
        (n) => n === 0,
        5000,
      ),
      0,
    )
    assert.equal((await productIDs(db, 'T8')).slice(0, 2), ['a', 'b'])
    await burst()
    assert.is(
      await until(
        () => threadsNamed('db-reader') - before,
        (n) => n === 2,
        5000,
      ),
      2,
    )
  } finally {
    await db.close()
  }
  assert.is(threadsNamed('db-reader'), before, 'close ends them')
})

test('the checkpointer :: writes reach the database file without the store worker checkpointing', async () => {
  const path = `${ctx.dir}/checkpointed.db`
  const db = await PortDb.open({ url: `file:${path}` })
  try {
    const { statSync } = await import('node:fs')
    const before = statSync(path).size
    const blob = 'x'.repeat(4000)
    for (let i = 0; i < 10; i++)
      await db.batch(
        Array.from({ length: 60 }, (_, k) => ({
          sql: 'INSERT INTO settings (key, value) VALUES (?, ?)',
          args: [`cp-${i}-${k}`, blob],
        })),
      )
    // ~2.4 MB sit in the WAL: the store worker's own threshold (a backstop of 50,000 pages) never checkpoints them
    const grown = await until(
      () => statSync(path).size,
      (n) => n > before + 2_000_000,
      3000,
    )
    assert.ok(grown > before + 2_000_000, `the file grew from ${before} to ${grown} bytes`)
  } finally {
    await db.close()
  }
})

test('the checkpointer at rest :: no thread until a write, one while writes come, none idleMs after the last', async () => {
  const path = `${ctx.dir}/resting.db`
  await (await PortDb.open({ url: `file:${path}` })).close() // the file, migrated
  const errors: Error[] = []
  const cp = new Checkpointer(`file:${path}`, (e) => errors.push(e), { idleMs: 400 })
  try {
    const threads = checkpointerThreads
    const before = threads()
    assert.is(cp.running, false, 'no thread before a write')
    cp.wake()
    assert.is(cp.running, true)
    assert.is(await until(threads, (n) => n === before + 1, 3000), before + 1, 'one thread')
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 200))
      cp.wake() // writes keep coming: it stays
    }
    assert.is(cp.running, true)
    assert.is(
      await until(
        () => cp.running,
        (r) => !r,
        3000,
      ),
      false,
      'ended after 400 ms of rest',
    )
    assert.is(await until(threads, (n) => n === before, 3000), before, 'its thread gone')
    cp.wake()
    assert.is(
      await until(threads, (n) => n === before + 1, 3000),
      before + 1,
      'the next write starts one',
    )
    assert.equal(errors, [])
  } finally {
    await cp.close()
  }
})

test('reads the store worker answers :: not held by another process that holds the write lock', async () => {
  const url = `file:${ctx.dir}/locked-reads.db`
  const db = await PortDb.open({ url })
  const { createClient } = await import('@libsql/client')
  const other = createClient({ url })
  try {
    await db.batch([product('T2', 'a')])
    const tx = await other.transaction('write') // another node of the service, in a long write
    try {
      // no reader runs (nothing contended): the store worker answers, outside its write transaction
      const t0 = performance.now()
      for (let i = 0; i < 5; i++) assert.equal(await productIDs(db, 'T2'), ['a'])
      assert.ok(performance.now() - t0 < 2000, `${Math.round(performance.now() - t0)} ms`)
    } finally {
      await tx.rollback()
    }
  } finally {
    other.close()
    await db.close()
  }
})

test('another process holds the write lock past busy_timeout :: those writes fail, later ones commit', async () => {
  const url = `file:${ctx.dir}/locked.db`
  const db = await PortDb.open({ url })
  try {
    await db.batch([product('T1', 'before')])
    const { createClient } = await import('@libsql/client')
    const other = createClient({ url })
    const tx = await other.transaction('write') // e.g. a tool beside the service, for longer than 5 s
    const during = await settle(db.batch([product('T1', 'during')]))
    await tx.rollback()
    other.close()
    assert.is(during.ok, false, 'the write that met the lock fails')
    assert.match(String((during as { e: Error }).e.message), /locked|busy/i)
    // @libsql/client leaves that connection unusable ("SQL statements in progress"): the store worker replaced it
    await db.batch([product('T1', 'after')])
    await db.run('UPDATE products SET product_name = ? WHERE product_id = ?', ['renamed', 'after'])
    assert.equal(await productIDs(db, 'T1'), ['before', 'after'])
  } finally {
    await db.close()
  }
})

test('a UNIQUE violation in one drain :: that request rolled back and rejected, neighbours commit', async () => {
  await ctx.db.batch([product('T1', 'taken')])
  // sent in one turn: one message, one drain, one transaction with a savepoint each
  const [a, b, c] = await Promise.all([
    settle(ctx.db.batch([product('T1', 'a')])),
    settle(ctx.db.batch([product('T1', 'x'), product('T1', 'taken')])),
    settle(
      ctx.db.run(
        'INSERT INTO products (tenant_id, product_id, product_name, cloud_protocol, create_at) VALUES (?, ?, ?, 1, 0)',
        ['T1', 'c', 'c'],
      ),
    ),
  ])
  assert.ok(a.ok && c.ok)
  assert.ok(!b.ok)
  assert.instance(b.e, Conflict)
  assert.equal(await productIDs(ctx.db, 'T1'), ['taken', 'a', 'c'])
})

test('batch results :: rows by name and by position, as LocalDb answers them', async () => {
  const [port] = await ctx.db.batch([product('T2', 'p')])
  const [local] = await ctx.local.batch([product('T2', 'p')])
  assert.equal(port!.columns, ['id'])
  assert.is(port!.rows.length, 1)
  assert.is(typeof port!.rows[0]!.id, 'number')
  assert.is(port!.rows[0]![0], port!.rows[0]!.id)
  assert.is(local!.rows[0]![0], local!.rows[0]!.id)
  assert.is(port!.rowsAffected, local!.rowsAffected)
})

/** The columns of products the insertJson tests write. */
const PRODUCT_COLUMNS = [
  'tenant_id',
  'product_id',
  'product_name',
  'description',
  'cloud_protocol',
  'create_at',
  'update_at',
]

test('insertJson :: values shared by every row of a statement are bound once, and each row keeps its own', async () => {
  // 277 rows: statements of 256, 16, 4 and 1; the tenant is the same in all but row 270, the protocol and create_at
  // in all, the name in none, the description null in a third, update_at null in all but row 3
  const rows = Array.from({ length: 277 }, (_, i) => [
    i === 270 ? 'T5-b' : 'T5-a',
    `s${i}`,
    `name ${i}`,
    i % 3 ? `about ${i}` : null,
    2,
    5,
    i === 3 ? 7 : null,
  ])
  const json = jsonRows('products', PRODUCT_COLUMNS, rows.flat())
  // the protocol and create_at, the same in every row, cross once; the rest in the text
  assert.equal(json.shared, [undefined, undefined, undefined, undefined, 2, 5, undefined])
  assert.is((JSON.parse(json.rows) as unknown[]).length, 277 * 5)
  const statements = jsonInserts(json)
  assert.equal(
    statements.map((s) => (s as { args: unknown[] }).args.length),
    // 256 rows (update_at 7 in row 3): the tenant, protocol and create_at once, 4 values a row; 16 (rows 256-271,
    // row 270 of another tenant): protocol, create_at and update_at once; 4 rows: 4 once; the last row: its 7
    [3 + 256 * 4, 3 + 16 * 4, 4 + 4 * 3, 7],
  )
  await ctx.db.insertJson(json)
  const got = await ctx.db.all(
    "SELECT tenant_id AS t, product_id AS p, product_name AS n, description AS d, cloud_protocol AS c, create_at AS a, update_at AS u FROM products WHERE tenant_id LIKE 'T5-%' ORDER BY id",
  )
  assert.equal(
    got.map((r) => [r.t, r.p, r.n, r.d, r.c, r.a, r.u]),
    rows,
  )
})

test('insertJson :: rows in their three parts, the same on both, values exact; a bad part fails alone', async () => {
  const tricky = [
    'quote " and \\ back',
    'line\nbreak',
    'é ✓ 𝄞',
    '\u0001ctl\ttab',
    "'; DROP TABLE products; --",
  ]
  const rows = tricky.map((name, i) => [
    `T4-${i % 2}`,
    `j${i}`,
    name,
    null, // null in every row: a shared null, not a missing value
    1,
    2 ** 53 - 1 - i, // exact integers up to 2^53 - 1
  ])
  const columns = PRODUCT_COLUMNS.slice(0, 6)
  // the names cross apart, the description and protocol once, the tenant, id and time in the text
  const json = jsonRows('products', columns, rows.flat(), [2])
  assert.equal(json.apart?.[2], tricky)
  assert.equal(json.shared, [undefined, undefined, undefined, null, 1, undefined])
  assert.is((JSON.parse(json.rows) as unknown[]).length, 5 * 3)
  const read = async (db: Db) =>
    (
      await db.all(
        "SELECT tenant_id AS t, product_id AS p, product_name AS n, description AS d, cloud_protocol AS c, create_at AS a FROM products WHERE tenant_id LIKE 'T4-%' ORDER BY id",
      )
    ).map((r) => [r.t, r.p, r.n, r.d, r.c, r.a])
  const names = json.apart!
  // sent in one turn with a good neighbour on each side: the bad parts are rejected alone
  const [before, bad, wrongWidth, nested, shortApart, objectShared, good] = await Promise.all([
    settle(ctx.db.batch([product('T4-0', 'before')])),
    settle(ctx.db.insertJson({ ...json, rows: '["T4-0", "x", 1' })),
    settle(ctx.db.insertJson({ ...json, rows: '["T4-0", "x", 1]' })),
    settle(
      ctx.db.insertJson({ ...json, rows: JSON.stringify([rows.map((r) => [r[0], r[1], r[5]])]) }),
    ),
    settle(ctx.db.insertJson({ ...json, apart: [undefined, undefined, names[2]!.slice(1)] })),
    settle(
      ctx.db.insertJson({
        ...json,
        shared: [undefined, undefined, undefined, null, { x: 1 } as never],
      }),
    ),
    settle(ctx.db.insertJson(json)),
  ])
  assert.ok(before.ok && good.ok)
  assert.ok(!bad.ok && !wrongWidth.ok && !nested.ok && !shortApart.ok && !objectShared.ok)
  for (const r of [wrongWidth, nested, shortApart, objectShared])
    assert.match(String((r as { e: Error }).e.message), /whole rows of 6 values/)
  await ctx.local.insertJson(json)
  const port = await read(ctx.db)
  assert.equal(port.slice(1), rows)
  assert.equal(await read(ctx.local), rows)
  assert.equal(port[0]!.slice(0, 2), ['T4-0', 'before'])
})

test('writes of one caller :: committed in the order they were called', async () => {
  const ids = Array.from({ length: 200 }, (_, i) => `o${String(i).padStart(3, '0')}`)
  await Promise.all(
    ids.map((id, i) =>
      i % 2
        ? ctx.db.batch([product('T3', id)])
        : ctx.db.run(product('T3', id).sql, product('T3', id).args),
    ),
  )
  assert.equal(await productIDs(ctx.db, 'T3'), ids)
})

test('driver errors :: the same store error classes and fields as LocalDb', async () => {
  const errors = async (db: Db) => {
    await db.batch([product('T4', 'dup')])
    const unique = await settle(db.batch([product('T4', 'dup')]))
    const fk = await settle(
      db.run(
        'INSERT INTO group_devices (group_int_id, device_int_id, create_at) VALUES (999, 999, 0)',
      ),
    )
    const syntax = await settle(db.all('SELEC 1'))
    return [unique, fk, syntax].map((r) => {
      assert.ok(!r.ok)
      const e = r.e as Error & { errors?: unknown; cause?: Error; code?: string }
      return {
        class: e.constructor.name,
        message: e.message,
        errors: e.errors,
        cause: e.cause?.message,
        code: e.code ?? (e.cause as { code?: string } | undefined)?.code,
        unique: isUniqueViolation(e),
        columns: uniqueColumns(e),
      }
    })
  }
  const port = await errors(ctx.db)
  assert.equal(port, await errors(ctx.local))
  assert.is(port[0]!.class, Conflict.name)
  assert.equal(port[0]!.columns, ['products.tenant_id', 'products.product_name'])
  assert.is(port[1]!.class, Referenced.name)
  assert.match(port[2]!.message, 'syntax error')
})

test('a read after an awaited write :: sees the write, every time', async () => {
  for (let i = 0; i < 50; i++) {
    await ctx.db.batch([product('T5', `r${i}`)])
    const row = await ctx.db.one(
      'SELECT product_id AS p FROM products WHERE tenant_id = ? AND product_id = ?',
      ['T5', `r${i}`],
    )
    assert.equal(row, { p: `r${i}` }, `write ${i}`)
  }
})

test('a page and its count :: one read transaction on the reader', async () => {
  const [rows, counts] = await ctx.db.read([
    { sql: 'SELECT product_id AS p FROM products WHERE tenant_id = ? ORDER BY id', args: ['T5'] },
    { sql: 'SELECT count(*) AS n FROM products WHERE tenant_id = ?', args: ['T5'] },
  ])
  assert.is(rows!.length, 50)
  assert.equal(counts, [{ n: 50 }])
})

test('a write read through one() (INSERT … RETURNING) :: runs on the store worker, committed', async () => {
  const row = await ctx.db.one(
    'INSERT INTO products (tenant_id, product_id, product_name, cloud_protocol, create_at) VALUES (?, ?, ?, 1, 0) RETURNING product_id AS p',
    ['T7', 'returned', 'returned'],
  )
  assert.equal(row, { p: 'returned' })
  assert.equal(await productIDs(ctx.db, 'T7'), ['returned'])
  // a WITH that leads to a write goes there too; a SELECT, never a write in SQLite, to the reader
  const withWrite = await ctx.db.one(
    `WITH named(n) AS (SELECT ?) INSERT INTO products (tenant_id, product_id, product_name, cloud_protocol, create_at)
     SELECT 'T7', n, n, 1, 0 FROM named RETURNING product_id AS p`,
    ['with-returned'],
  )
  assert.equal(withWrite, { p: 'with-returned' })
  assert.equal(await productIDs(ctx.db, 'T7'), ['returned', 'with-returned'])
  const selected = await ctx.db.one(
    "SELECT count(*) AS n FROM products WHERE tenant_id = ? AND product_name <> 'INSERT'",
    ['T7'],
  )
  assert.equal(selected, { n: 2 })
})

test('the reader :: cannot write (query_only), the row is not there', async () => {
  const reader = await spawnWorker('reader', { url: `file:${ctx.dir}/meta.db` })
  try {
    const r = await settle(reader.request({ t: 'read', stmts: [product('T6', 'sneaky')] }))
    assert.ok(!r.ok)
    assert.match(String((r.e as Error).message), /readonly|read-only|query_only/i)
    assert.equal(await productIDs(ctx.db, 'T6'), [])
  } finally {
    await reader.request({ t: 'ctl', op: 'close' })
    await reader.terminate()
  }
})

test('the store worker dies :: pending and later calls fail with Unavailable, reads too, onFail told once', async () => {
  const worker = new Worker(new URL('../../store/libsql/worker/boot.mjs', import.meta.url), {
    workerData: { entry: new URL('./_dying-worker.ts', import.meta.url).href, url: '' },
  })
  await new Promise((resolve) => worker.once('message', resolve))
  const failures: Error[] = []
  const writer = new PortClient(worker, 'test', (e) => failures.push(e))
  const reader = await spawnWorker('reader', { url: `file:${ctx.dir}/meta.db` })
  const db = new PortDb(writer, [reader])
  assert.equal(await db.all('SELECT 1 AS one'), [{ one: 1 }])
  const first = [settle(db.batch([product('T8', 'a')])), settle(db.run('SELECT 1'))]
  await new Promise((resolve) => setTimeout(resolve, 0)) // the first message went out
  const second = settle(db.batch([product('T8', 'b')])) // the worker exits on this one
  for (const r of await Promise.all([...first, second])) {
    assert.ok(!r.ok)
    assert.instance(r.e, Unavailable)
  }
  for (const later of [db.batch([product('T8', 'c')]) as Promise<unknown>, db.all('SELECT 1')]) {
    const r = await settle(later)
    assert.ok(!r.ok)
    assert.instance(r.e, Unavailable)
  }
  assert.is(failures.length, 1)
  assert.match(failures[0]!.message, 'exited (3)')
  await reader.request({ t: 'ctl', op: 'close' })
  await reader.terminate()
})

test.run()
