/**
 * The values a read answers (store/libsql/db.ts): the first run of a SELECT answers the driver's rows, later runs
 * of the same text one json_object per row. Both must give the same values, every digit of a REAL included (SQLite
 * writes a REAL into JSON with 15 significant digits, which lost 0.1 + 0.2 and 12.345678901234567), on a
 * connection of this thread and through the worker threads.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDb, parseRows, type Db } from '../../store/libsql/db.ts'
import { PortDb } from '../../store/libsql/worker/port-db.ts'

const dir = mkdtempSync(join(tmpdir(), 'devicecloud-read-values-'))
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
const test = suite('read values, first run and later runs')

const ROWS = [
  // id, r REAL, i INTEGER, t TEXT, n NUMERIC
  [1, 0.1 + 0.2, 7.000000000000001, '0.30000000000000004', 0.1 + 0.2],
  [2, 12.345678901234567, 2 ** 53 - 1, '12', 1 / 3],
  [3, 1e-320, -(2 ** 40), 'text', 5],
  [4, -1.5e300, 0, null, -0.000001],
  [5, 100, null, '1e400', 2.5],
  [6, null, 3, '', null],
]

const EXPECTED = ROWS.map(([id, r, i, t, n]) => ({
  id,
  r,
  i,
  t,
  n,
  // a computed column has no declared type
  x: r === null ? null : (r as number) * 3,
}))

async function fill(db: Db) {
  await db.batch([
    { sql: 'CREATE TABLE nums (id INTEGER PRIMARY KEY, r REAL, i INTEGER, t TEXT, n NUMERIC)' },
    {
      sql: `INSERT INTO nums VALUES ${ROWS.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
      args: ROWS.flat(),
    },
  ])
}

/** The same SELECT three times (the first is the driver's rows, the others json_object rows), as plain objects. */
async function readThrice(db: Db) {
  const out: unknown[] = []
  for (let k = 0; k < 3; k++) {
    const rows = await db.all('SELECT id, r, i, t, n, r * 3 AS x FROM nums ORDER BY id')
    out.push(rows.map((row) => ({ ...row })))
  }
  return out
}

test('a connection of this thread :: every run answers every digit', async () => {
  const db = await openDb({ url: `file:${join(dir, 'local.db')}` })
  try {
    await fill(db)
    for (const rows of await readThrice(db)) assert.equal(rows, EXPECTED)
  } finally {
    await db.close()
  }
})

test('readTexts :: the driver rows on a first run, then one JSON text of the rows; no row is []', async () => {
  const db = await openDb({ url: `file:${join(dir, 'texts.db')}` })
  try {
    await fill(db)
    const all = { sql: 'SELECT id, r, i, t, n, r * 3 AS x FROM nums ORDER BY id', args: [] }
    const none = { sql: 'SELECT id FROM nums WHERE id > ?', args: [99] }
    const [first, empty] = await db.readTexts([all, none])
    assert.ok(Array.isArray(first) && Array.isArray(empty)) // shapes not learnt yet
    const [later, noneLater] = await db.readTexts([all, none])
    assert.type(later, 'string')
    assert.equal(noneLater, '[]')
    assert.equal(JSON.parse(later as string), EXPECTED)
    assert.equal(parseRows(noneLater!), [])
    assert.equal(
      (first as object[]).map((row) => ({ ...row })),
      EXPECTED,
    )
  } finally {
    await db.close()
  }
})

test('the worker threads (store worker and reader) :: every run answers every digit', async () => {
  const db = await PortDb.open({ url: `file:${join(dir, 'workers.db')}` })
  try {
    await fill(db)
    for (const rows of await readThrice(db)) assert.equal(rows, EXPECTED)
    const [page] = await db.read([{ sql: 'SELECT r FROM nums WHERE id = ?', args: [2] }])
    assert.is(page![0]!.r, 12.345678901234567)
    // a page and its count in one read, twice (the second answered as texts by the reader): the same rows
    const pageAndCount = [
      { sql: 'SELECT id, t FROM nums WHERE id <= ? ORDER BY id', args: [3] },
      { sql: 'SELECT count(*) AS n FROM nums', args: [] },
    ]
    const once = await db.read(pageAndCount)
    const twice = await db.read(pageAndCount)
    assert.equal(
      twice.map((rows) => rows.map((row) => ({ ...row }))),
      [
        [
          { id: 1, t: '0.30000000000000004' },
          { id: 2, t: '12' },
          { id: 3, t: 'text' },
        ],
        [{ n: 6 }],
      ],
    )
    assert.equal(
      once.map((rows) => rows.map((row) => ({ ...row }))),
      twice.map((rows) => rows.map((row) => ({ ...row }))),
    )
  } finally {
    await db.close()
  }
})

test('values beyond the client :: an integer past 2^53, a duplicate column name, BLOBs: the same on a connection of this thread and through the reader', async () => {
  const local = await openDb({ url: `file:${join(dir, 'edges.db')}` })
  const ported = await PortDb.open({ url: `file:${join(dir, 'edges.db')}` })
  try {
    await local.batch([
      { sql: 'CREATE TABLE edges (id INTEGER PRIMARY KEY, big INTEGER, b BLOB)' },
      { sql: "INSERT INTO edges VALUES (1, 9007199254740993, x'00ff'), (2, 5, NULL)" },
    ])
    for (const db of [local, ported]) {
      for (let run = 0; run < 2; run++) {
        const err = await db.all('SELECT big FROM edges WHERE id = 1').catch((e: Error) => e)
        assert.instance(err, Error)
        assert.match((err as Error).message, 'cannot be safely represented as a JavaScript number')
        // the first of two same-named columns, as the client answers it
        assert.equal(
          { ...(await db.one('SELECT big AS x, id AS x FROM edges WHERE id = 2')) },
          {
            x: 5,
          },
        )
        const [named] = await db.read([
          { sql: 'SELECT id FROM edges WHERE id = :id', args: { ':id': 2 } },
        ])
        assert.equal(
          named!.map((r) => ({ ...r })),
          [{ id: 2 }],
        )
        // a driver error as the client reports it (the reader's crosses the thread with its code)
        const bad = (await db.all('SELECT nope FROM edges').catch((e: unknown) => e)) as {
          message: string
          code?: string
        }
        assert.match(bad.message, 'no such column')
        assert.is(bad.code, 'SQLITE_ERROR')
        // names an object holds already (its prototype's) are columns like any other
        const odd = await db.one(
          'SELECT id AS toString, big AS __proto__, 3 AS constructor FROM edges WHERE id = 2',
        )
        assert.is(Object.getPrototypeOf(odd), Object.prototype)
        assert.equal(Object.entries(odd!), [
          ['toString', 2],
          ['__proto__', 5],
          ['constructor', 3],
        ])
      }
      const blob = (await db.one('SELECT b FROM edges WHERE id = 1'))!.b
      assert.instance(blob, ArrayBuffer)
      assert.equal([...new Uint8Array(blob as ArrayBuffer)], [0, 255])
    }
  } finally {
    await ported.close()
    await local.close()
  }
})

test.run()
