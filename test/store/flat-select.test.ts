/**
 * Which SELECTs a read writes its JSON rows in directly (store/libsql/flat-select.ts) and which it reads as a
 * subquery: every statement that a flattened form could answer differently (an alias named after FROM, an ORDER BY
 * by position, DISTINCT, a compound, a grouping, an expression or a `?` among the result columns) is refused.
 * Then the reads themselves: flattened or not, a statement answers the driver's rows on every run
 * (db-read-values.test.ts checks the values' digits, projected-reads.test.ts the projected forms).
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { flatSelect } from '../../store/libsql/flat-select.ts'
import { openDb } from '../../store/libsql/db.ts'
import { PortDb } from '../../store/libsql/worker/port-db.ts'

const test = suite('flatSelect')

test('a join with aliased column references :: each name with its expression, the rest from FROM', () => {
  const sql = `SELECT d.id AS id, d.device_name AS deviceName, p.product_name AS "productName", NULL AS gone,
    'it''s, FROM here' AS note, 7 AS seven FROM (SELECT d.id AS page_id FROM devices d WHERE d.tenant_id = ?
    ORDER BY d.create_at DESC LIMIT ? OFFSET ?) page CROSS JOIN devices d JOIN products p ON p.id = d.product_int_id
    WHERE d.id = page.page_id ORDER BY d.create_at DESC, d.id DESC`
  const flat = flatSelect(sql)!
  assert.ok(flat)
  assert.equal(
    [...flat.columns],
    [
      ['id', 'd.id'],
      ['deviceName', 'd.device_name'],
      ['productName', 'p.product_name'],
      ['gone', 'NULL'],
      ['note', "'it''s, FROM here'"],
      ['seven', '7'],
    ],
  )
  assert.ok(flat.from.startsWith('FROM (SELECT d.id AS page_id'))
  assert.ok(flat.from.endsWith('d.id DESC'))
  assert.is(flat.from.split('?').length - 1, 3, 'every argument stays in the part kept')
})

test('bare column names :: flattened, each its own name', () => {
  const flat = flatSelect('select a, b.c as c from t b where b.x = ? limit ?')!
  assert.equal(
    [...flat.columns],
    [
      ['a', 'a'],
      ['c', 'b.c'],
    ],
  )
  assert.is(flat.from, 'from t b where b.x = ? limit ?')
})

test('statements a flattened form could answer differently :: refused', () => {
  const refused = [
    // an alias named after FROM: ORDER BY, WHERE, a subquery, quoted
    'SELECT t.a AS k FROM t ORDER BY k',
    'SELECT t.a AS k FROM t WHERE k > 1',
    'SELECT t.a AS k FROM t WHERE t.b IN (SELECT k FROM u)',
    'SELECT t.a AS k FROM t ORDER BY "k" DESC',
    'SELECT id, r FROM things WHERE id > ? ORDER BY id',
    // by position
    'SELECT t.a AS a, t.b AS b FROM t ORDER BY 2 DESC',
    'SELECT t.a AS a, t.b AS b FROM t ORDER BY t.c, 1',
    // not a plain SELECT
    'SELECT DISTINCT t.a AS a FROM t',
    'SELECT ALL t.a AS a FROM t',
    'WITH x AS (SELECT 1) SELECT x.a AS a FROM x',
    'SELECT t.a AS a FROM t UNION SELECT u.a AS a FROM u',
    'SELECT t.a AS a FROM t GROUP BY t.a',
    'SELECT t.a AS a FROM t WINDOW w AS (ORDER BY t.b)',
    // result columns that are not references or literals, or an argument among them
    'SELECT count(*) AS n FROM t',
    'SELECT t.a + 1 AS a FROM t',
    'SELECT (SELECT max(b) FROM u) AS m FROM t',
    'SELECT ? AS a FROM t',
    'SELECT * FROM t',
    'SELECT t.a FROM t',
    'SELECT t.a AS a, t.b AS a FROM t',
    // no FROM, comments, unbalanced text
    'SELECT 1 AS one',
    'SELECT t.a AS a -- note\n FROM t',
    'SELECT t.a AS a /* x */ FROM t',
    "SELECT 'open AS a FROM t",
    'SELECT t.a AS a FROM t WHERE (t.b = 1',
    'SELECT t.a AS a FROM t WHERE t.b = 1)',
  ]
  for (const sql of refused) assert.is(flatSelect(sql), undefined, sql)
})

test.run()

const reads = suite('reads of flattened and wrapped statements')
const dir = mkdtempSync(join(tmpdir(), 'devicecloud-flat-select-'))
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))

const STATEMENTS = [
  // flattened
  {
    sql: 'SELECT n.id AS id, n.t AS t, n.r AS r FROM nums n WHERE n.id > ? ORDER BY n.r DESC',
    args: [1],
  },
  // wrapped: ORDER BY an alias, by position, a computed column
  { sql: 'SELECT n.r AS k, n.id AS id FROM nums n ORDER BY k, id', args: [] },
  { sql: 'SELECT n.id AS id, n.t AS t FROM nums n ORDER BY 2 DESC, 1', args: [] },
  { sql: 'SELECT n.id AS id, n.r * 2 AS twice FROM nums n ORDER BY n.id', args: [] },
]

for (const [name, open] of [
  ['a connection of this thread', () => openDb({ url: `file:${join(dir, 'local.db')}` })],
  ['the reader thread', () => PortDb.open({ url: `file:${join(dir, 'port.db')}` })],
] as const)
  reads(`${name} :: every run answers the first run's rows, in its order`, async () => {
    const db = await open()
    try {
      await db.batch([
        { sql: 'CREATE TABLE nums (id INTEGER PRIMARY KEY, t TEXT, r REAL)' },
        {
          sql: `INSERT INTO nums VALUES (1, 'b', 0.1 + 0.2), (2, 'a', 2.5), (3, 'c', -1), (4, NULL, 12.345678901234567),
            (5, 'a"b', NULL)`,
        },
      ])
      for (const s of STATEMENTS) {
        const first = (await db.all(s.sql, s.args)).map((r) => ({ ...r }))
        assert.ok(first.length >= 4, s.sql)
        for (let run = 0; run < 3; run++)
          assert.equal(
            (await db.all(s.sql, s.args)).map((r) => ({ ...r })),
            first,
            `${s.sql} run ${run}`,
          )
      }
    } finally {
      await db.close()
    }
  })

reads.run()
