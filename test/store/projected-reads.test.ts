/**
 * Reads answered as text in a wire form (Db.readProjected, store/libsql/projected.ts): whether SQLite writes the
 * projected rows (a learnt statement, UTC) or JavaScript does (the first run, another zone, a time only JavaScript
 * formats), the text parses to what the form's serializer answers for the same records, for every caller context,
 * with hostile stored values. Then the device repository's listText and getText against list, get and the device
 * serializers, over two tenants. Run over PortDb too by projected-reads-port.test.ts.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openTestDb, overWorkers } from './_db.ts'
import type { Db } from '../../store/libsql/db.ts'
import { createMetaStore } from '../../store/libsql/meta.ts'
import { emptyValues } from '../../store/fields/table.ts'
import { DEVICE_TABLE, type DeviceFields } from '../../store/fields/devices.ts'
import type { JsonText, MetaStore } from '../../store/types.ts'
import { NotFound } from '../../store/errors.ts'
import { flatSelect } from '../../store/libsql/flat-select.ts'
import { BYTES_FROM } from '../../store/libsql/projected.ts'
import { pageTextOf } from '../../src/http/paging.ts'
import { compileProjection, projection, type ProjectionCtx } from '../../src/kernel/projection.ts'
import { deviceWire } from '../../src/wire/devices.ts'

/** A JSON text as a string: a long one from the reader thread arrives as its UTF-8 bytes. */
const textOf = (t: JsonText): string => (typeof t === 'string' ? t : new TextDecoder().decode(t))

const dir = mkdtempSync(join(tmpdir(), 'devicecloud-projected-'))
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))

const CTXS: ProjectionCtx[] = [
  { lang: 'en', tz: 'UTC', secrets: true },
  { lang: 'zh', tz: 'UTC', secrets: false },
  { lang: 'en', tz: 'Asia/Shanghai' },
]

const reads = suite('readProjected')
const ctx = {} as { db: Db; meta: MetaStore }

reads.before(async () => {
  ctx.db = await openTestDb(`file:${join(dir, `reads-${process.env.TEST_DB ?? 'local'}.db`)}`)
  await ctx.db.batch([
    {
      sql: `CREATE TABLE things (id INTEGER PRIMARY KEY, tenant TEXT, r REAL, i INTEGER, t TEXT, j TEXT,
        ts INTEGER, code INTEGER, tok TEXT)`,
    },
    {
      sql: `INSERT INTO things VALUES
        (1, 'A', 0.1 + 0.2, 9007199254740991, 'plain "quoted" \\ text', '{"a":{"b":[1,2.5,"x"]}}',
         1732700000999, 1, 'secret-1'),
        (2, 'A', 1e-320, 2, '', '[1,"two",null,true]', 0, 2, NULL),
        (3, 'A', -1.5e300, -7, NULL, '{bad', NULL, 99, 'secret-3'),
        (4, 'A', 12.345678901234567, 0, 'é ü 漢字', ' {"dup":1,"dup":2} ', 253402300799999, NULL, 'secret-4'),
        (5, 'A', NULL, NULL, '12', '"a string"', 86399999, '1', ''),
        (6, 'A', 5, 1, 'x', NULL, 1000, 2, 's6'),
        (7, 'A', 100, 3, 'y', '1.50', 1999, 1, 's7'),
        (8, 'B', 1, 1, 'other tenant', '{}', 5, 1, 'b')`,
    },
    {
      sql: 'INSERT INTO things (id, tenant, j, code) VALUES (9, ?, ?, ?)',
      args: ['A', '{"tab":"\t"}', 1.5],
    },
  ])
})

reads.after(() => ctx.db.close())

const P = projection([
  { key: 'id', op: 'copy' },
  { key: 'r', op: 'copy' },
  { key: 'i', op: 'copy' },
  { key: 't', op: 'copy' },
  { key: 'j', op: 'json' },
  { key: 'ts', op: 'time' },
  { key: 'code', op: 'copy' },
  {
    key: 'codeLabel',
    op: 'label',
    from: 'code',
    labels: { 1: { en: 'one', zh: '一' }, 2: { en: "it's two", zh: '二' } },
  },
  { key: 'tok', op: 'secret' },
  { key: 'missing', op: 'copy' },
])
const shape = compileProjection(P)

/**
 * A page of things: `wrapped`, read as a subquery (its ORDER BY names a result column), or `flat`, its aliased
 * column references written in the same SELECT (store/libsql/flat-select.ts).
 */
const SQL = {
  wrapped:
    'SELECT id, r, i, t, j, ts, code, tok FROM things WHERE tenant = ? AND id > ? ORDER BY id LIMIT ?',
  flat: `SELECT x.id AS id, x.r AS r, x.i AS i, x.t AS t, x.j AS j, x.ts AS ts, x.code AS code, x.tok AS tok
    FROM things x WHERE x.tenant = ? AND x.id > ? ORDER BY x.id LIMIT ?`,
}
const FORMS = ['wrapped', 'flat'] as const
const page = (tenant: string, after = 0, form: keyof typeof SQL = 'wrapped') => ({
  sql: SQL[form],
  args: [tenant, after, 5],
})
const count = { sql: 'SELECT count(*) AS n FROM things WHERE tenant = ?', args: ['A'] }

reads(
  'every run and context :: the text parses to the serializer of the same rows; count, read and last',
  async () => {
    const rows = await ctx.db.all(page('A').sql, page('A').args)
    assert.is(rows.length, 5)
    assert.is(flatSelect(SQL.wrapped), undefined)
    assert.ok(flatSelect(SQL.flat))
    for (const form of FORMS)
      for (const c of CTXS) {
        for (let run = 0; run < 3; run++) {
          const read = await ctx.db.readProjected([page('A', 0, form), count], {
            at: 0,
            projection: P,
            ctx: c,
            limit: 4,
            keep: ['id', 'ts', 'r'],
          })
          const label = `${form} ${c.lang} ${c.tz} secrets=${c.secrets} run ${run}`
          assert.equal(
            JSON.parse(textOf(read.text)),
            rows.slice(0, 4).map((r) => shape(r, c)),
            label,
          )
          assert.is(read.read, 5, label)
          assert.equal(read.last, { id: 4, ts: 253402300799999, r: 12.345678901234567 }, label)
          assert.equal(read.results[1], [{ n: 8 }], label)
          assert.equal(read.results[0], [], label)
        }
      }
  },
)

reads('a learnt statement in UTC :: SQLite writes the rows, REALs in 17 digits', async () => {
  const at = { at: 0, projection: P, limit: 5 }
  for (const form of FORMS)
    for (let run = 0; run < 2; run++) {
      const utc = await ctx.db.readProjected([page('A', 0, form)], { ...at, ctx: CTXS[0]! })
      // json_object writes the 17 digits exactReal gives; JavaScript's projection the shortest that reads back
      if (run === 1)
        assert.ok(textOf(utc.text).includes('"r":-1.5000000000000001e+300,'), textOf(utc.text))
    }
  const zoned = await ctx.db.readProjected([page('A')], { ...at, ctx: CTXS[2]! })
  assert.ok(
    textOf(zoned.text).includes('"r":-1.5e+300,'),
    `another zone, JavaScript: ${String(zoned.text)}`,
  )
  for (const form of FORMS) {
    const hidden = await ctx.db.readProjected([page('A', 0, form)], { ...at, ctx: CTXS[1]! })
    const items = JSON.parse(textOf(hidden.text)) as Array<Record<string, unknown>>
    assert.ok(items.every((x) => x.tok === null))
    assert.equal(
      items.map((x) => x.codeLabel),
      ['一', '二', null, null, '一'],
    )
  }
})

reads(
  'hostile values :: times only JavaScript formats, a raw control character in JSON text, a REAL label code',
  async () => {
    await ctx.db.run(
      `INSERT INTO things (id, tenant, ts, j) VALUES (20, 'C', -5, '{"a":1}'), (21, 'C', 1500000000000.5, NULL),
        (23, 'C', 300000000000000, NULL), (24, 'C', 1700000000000, NULL)`,
    )
    for (const form of FORMS)
      for (const tenant of ['C', 'A']) {
        const stmt = { ...page(tenant, 6, form), args: [tenant, 6, 20] }
        const rows = await ctx.db.all(stmt.sql, stmt.args)
        assert.ok(rows.length >= 2)
        for (const c of CTXS)
          for (let run = 0; run < 3; run++) {
            const read = await ctx.db.readProjected([stmt], { at: 0, projection: P, ctx: c })
            assert.equal(
              JSON.parse(textOf(read.text)),
              rows.map((r) => shape(r, c)),
              `${tenant} ${c.tz} run ${run}`,
            )
          }
      }
    // one odd row sends the whole page through JavaScript: the fine row beside it is formatted the same
    const c = await ctx.db.readProjected([{ ...page('C'), args: ['C', 0, 10] }], {
      at: 0,
      projection: P,
      ctx: CTXS[0]!,
    })
    const items = JSON.parse(textOf(c.text)) as Array<Record<string, unknown>>
    assert.is(items.at(-1)!.ts, '2023-11-14 22:13:20')
  },
)

reads('an empty page :: [] with nothing read and no last row', async () => {
  const read = await ctx.db.readProjected([page('nobody')], {
    at: 0,
    projection: P,
    ctx: CTXS[0]!,
    limit: 3,
    keep: ['id'],
  })
  assert.is(textOf(read.text), '[]')
  assert.is(read.read, 0)
  assert.is(read.last, undefined)
})

reads.run()

const devices = suite('devices listText and getText')

devices.before(async () => {
  ctx.meta = createMetaStore(
    await openTestDb(`file:${join(dir, `devices-${process.env.TEST_DB ?? 'local'}.db`)}`),
  )
  for (const tenant of ['T1', 'T2']) {
    const product = await ctx.meta.products.create(tenant, null, {
      productName: `p-${tenant}`,
      cloudProtocol: 1,
    })
    for (let k = 0; k < 7; k++) {
      const id = `${tenant}-d${k}`
      await ctx.meta.devices.create(tenant, null, {
        ...(emptyValues(DEVICE_TABLE) as DeviceFields),
        productIntID: product.id,
        deviceID: id,
        deviceName: id,
        deviceUsername: `u-${id}`,
        token: `t-${id}`,
        deviceType: k % 2,
        carrier: k,
        latitude: k === 1 ? 0.1 + 0.2 : null,
        location: k === 2 ? { room: 2, name: 'lab "A"' } : null,
        metaData: { k, nested: [k, String(k)] },
        scopes: k === 3 ? [] : null,
      })
    }
  }
})

devices.after(() => ctx.meta.close())

devices(
  'listText :: each page the serializer of list, next the same; only the tenant devices',
  async () => {
    for (const c of CTXS)
      for (const tenant of ['T1', 'T2']) {
        let after: { v: string | number | null; id: number } | undefined
        let pages = 0
        for (;;) {
          const q = { page: 1, limit: 3, filters: [], ...(after ? { after } : {}) }
          const shape = { projection: deviceWire.list.projection!, ctx: c }
          for (let run = 0; run < 2; run++) {
            const [text, records] = [
              await ctx.meta.devices.listText(tenant, q, shape),
              await ctx.meta.devices.list(tenant, q),
            ]
            const items = JSON.parse(textOf(text.items)) as Array<{ deviceID: string }>
            assert.equal(
              items,
              records.items.map((r) => deviceWire.list(r, c)),
            )
            assert.ok(items.every((d) => d.deviceID.startsWith(`${tenant}-`)))
            assert.is(text.count, 7)
            assert.equal(text.next, records.next)
          }
          const page = await ctx.meta.devices.list(tenant, q)
          pages++
          if (!page.next) break
          after = page.next
        }
        assert.is(pages, 3)
      }
  },
)

devices(
  'a long page :: over the reader thread its items cross as UTF-8 bytes (from BYTES_FROM units), the same JSON',
  async () => {
    const q = { page: 1, limit: 10, filters: [] }
    for (const c of CTXS) {
      const shape = { projection: deviceWire.list.projection!, ctx: c }
      const records = await ctx.meta.devices.list('T2', q)
      assert.is(records.items.length, 7)
      for (let run = 0; run < 2; run++) {
        const { items } = await ctx.meta.devices.listText('T2', q, shape)
        const text = textOf(items)
        assert.ok(text.length >= BYTES_FROM, `${text.length} units`)
        // the JavaScript projection (first run, another zone) writes it on the reader too
        if (overWorkers()) assert.instance(items, Uint8Array)
        else assert.type(items, 'string')
        assert.equal(
          JSON.parse(text),
          records.items.map((r) => deviceWire.list(r, c)),
        )
        const page = pageTextOf(items, 7, q, null)
        assert.equal(JSON.parse(textOf(page)), {
          items: JSON.parse(text),
          meta: { count: 7, limit: 10, page: 1, next: null },
        })
      }
    }
  },
)

devices('getText :: the serializer of get; another tenant id is NotFound', async () => {
  const [mine] = (await ctx.meta.devices.list('T1', { page: 1, limit: 1, filters: [] })).items
  const [theirs] = (await ctx.meta.devices.list('T2', { page: 1, limit: 1, filters: [] })).items
  for (const c of CTXS) {
    const shape = { projection: deviceWire.detail.projection!, ctx: c }
    for (let run = 0; run < 2; run++) {
      const text = await ctx.meta.devices.getText('T1', mine!.id, shape)
      assert.equal(
        JSON.parse(textOf(text)),
        deviceWire.detail(await ctx.meta.devices.get('T1', mine!.id), c),
      )
      const err = await ctx.meta.devices.getText('T1', theirs!.id, shape).catch((e) => e)
      assert.instance(err, NotFound)
    }
  }
})

devices.run()
