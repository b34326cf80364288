/**
 * Prepared statements kept by a reading connection (store/libsql/db.ts keepPreparedStatements, on in the reader
 * workers): the same rows, values and errors as without them, statements run again after an error, and another
 * connection's schema changes and writes seen. The cache is per thread: this file's process has it on from the
 * middle of its first case.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'libsql'
import { keepPreparedStatements, openDb, type Db } from '../../store/libsql/db.ts'

const dir = mkdtempSync(join(tmpdir(), 'devicecloud-prepared-'))
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
const url = `file:${join(dir, 'meta.db')}`
const test = suite('prepared statements kept')

/** A row as the client answers it: its values by index and by name, its length, its own enumerable keys. */
const shape = (r: Record<string, unknown> & { length?: number }) => ({
  length: r.length,
  byIndex: Array.from({ length: r.length ?? 0 }, (_, i) => r[i]),
  entries: Object.entries(r),
})

/** Reads that cover each kind of value, a batch in one read transaction, a statement with no row. */
async function reads(db: Db) {
  const [one, two] = await db.read([
    {
      sql: 'SELECT id, name, weight, hex(payload) AS payload, n FROM things WHERE id <= ? ORDER BY id',
      args: [3],
    },
    { sql: 'SELECT count(*) AS c, max(weight) AS m FROM things', args: [] },
  ])
  const none = await db.all('SELECT id FROM things WHERE name = ?', ['nobody'])
  const big = await db.one('SELECT n FROM things WHERE id = ?', [3])
  return { one: one!.map(shape), two: two!.map(shape), none, big: big && shape(big) }
}

/** An error's code, class and message. */
const errorOf = async (p: Promise<unknown>) =>
  p.then(
    () => 'no error',
    (e: Error & { code?: string }) => `${e.constructor.name} ${e.code} ${e.message}`,
  )

let writer: Db
let reader: Db
let before: Awaited<ReturnType<typeof reads>>
let errorBefore: string

test.before(async () => {
  writer = await openDb({ url })
  await writer.run(
    'CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT, weight REAL, payload BLOB, n INTEGER)',
  )
  await writer.run(
    `INSERT INTO things (name, weight, payload, n) VALUES ('a', 1.5, x'00ff', 7), ('b', NULL, NULL, -2),
       ('c', 0.25, x'', 9007199254740991)`,
  )
  reader = await openDb({ url, readOnly: true })
  // the second read is the steady one: LocalDb answers a SELECT read before as a JSON object a row
  await reads(reader)
  before = await reads(reader)
  errorBefore = await errorOf(reader.all('SELECT json(?) AS j', ['not json']))
  keepPreparedStatements(4)
})

test.after(async () => {
  await reader.close()
  await writer.close()
})

test('kept statements :: the same rows, values and errors as prepared each time, call after call', async () => {
  for (let i = 0; i < 3; i++) {
    assert.equal(await reads(reader), before, `round ${i}`)
    assert.is(await errorOf(reader.all('SELECT json(?) AS j', ['not json'])), errorBefore)
    // the statement that failed runs again, with other arguments
    assert.equal((await reader.all('SELECT json(?) AS j', ['[1]']))[0]!.j, '[1]')
  }
  assert.ok(
    before.one.length === 3 && before.big!.entries[0]![1] === 9007199254740991,
    'the rows read',
  )
})

test('more statements than kept :: the least recently used go, every answer stays right', async () => {
  for (let round = 0; round < 3; round++)
    for (let k = 0; k < 10; k++) {
      const rows = await reader.all(`SELECT id + ${k} AS v FROM things WHERE id = ?`, [1])
      assert.equal(
        rows.map((r) => r.v),
        [1 + k],
      )
    }
  assert.equal(await reads(reader), before)
})

test('which statement goes :: the least recently used, however often the others were used before', () => {
  // the driver's own connection, prepared through the kept cache (4 statements in this file's process)
  const db = new Database(join(dir, 'meta.db'), { readonly: true })
  const sql = (k: number) => `SELECT ${k} AS k`
  const first = [1, 2, 3, 4].map((k) => db.prepare(sql(k)))
  // 1 used last, many times: the others are older, 2 the oldest
  for (let i = 0; i < 1000; i++) assert.is(db.prepare(sql(1)), first[0])
  const fifth = db.prepare(sql(5))
  assert.is(db.prepare(sql(1)), first[0], '1 kept')
  assert.is(db.prepare(sql(3)), first[2], '3 kept')
  assert.is(db.prepare(sql(4)), first[3], '4 kept')
  assert.is.not(db.prepare(sql(2)), first[1], '2, least recently used, prepared again')
  // and 5, now the least recently used, made room for 2
  const five = db.prepare(sql(5))
  assert.is.not(five, fifth, '5 prepared again')
  assert.is(db.prepare(sql(5)), five)
  assert.is((db.prepare(sql(2)).get() as { k: number }).k, 2)
  db.close()
})

test('kept statements that answer no rows :: each run writes and counts; RETURNING still answers its rows', async () => {
  // this process's writer keeps its statements too: an INSERT's refusal of raw() is kept with the statement
  await writer.run('CREATE TABLE marks (id INTEGER PRIMARY KEY, v INTEGER)')
  for (let i = 1; i <= 3; i++)
    assert.equal(await writer.run('INSERT INTO marks (v) VALUES (?)', [i * 10]), {
      changes: 1,
      lastId: i,
    })
  for (const v of [40, 41]) {
    const row = await writer.one('INSERT INTO marks (v) VALUES (?) RETURNING id, v', [v])
    assert.equal([row!.id, row!.v], [v - 36, v])
  }
  for (let round = 0; round < 2; round++) {
    const results = await writer.batch([
      { sql: 'INSERT INTO marks (v) VALUES (?)', args: [50] },
      { sql: 'UPDATE marks SET v = v + 1 WHERE v >= ?', args: [50] },
    ])
    assert.equal(
      results.map((r) => r.rowsAffected),
      [1, round + 1],
    )
  }
  const marks = await writer.all('SELECT v FROM marks ORDER BY id')
  assert.equal(
    marks.map((r) => r.v),
    [10, 20, 30, 40, 41, 52, 51],
  )
})

test("another connection's writes and schema changes :: seen by the kept statements", async () => {
  const names = () => reader.all('SELECT name FROM things ORDER BY id')
  assert.equal(
    (await names()).map((r) => r.name),
    ['a', 'b', 'c'],
  )
  await writer.run("INSERT INTO things (name) VALUES ('d')")
  assert.equal(
    (await names()).map((r) => r.name),
    ['a', 'b', 'c', 'd'],
  )
  // the table replaced under the kept statement: SQLite prepares it again against the new schema
  await writer.run('ALTER TABLE things RENAME TO old_things')
  await writer.run('CREATE TABLE things (extra TEXT, name TEXT, id INTEGER PRIMARY KEY)')
  await writer.run("INSERT INTO things (extra, name) VALUES ('x', 'z')")
  assert.equal(
    (await names()).map((r) => r.name),
    ['z'],
  )
  const dropped = await errorOf(reader.all('SELECT n FROM things'))
  assert.match(dropped, /no such column: n/)
})

test.run()
