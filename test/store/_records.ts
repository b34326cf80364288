/**
 * What the record-table cases share: a suite over a fresh metadata store on a temp libSQL file, and `holds`, which
 * checks real records against the exact record their field table declares (its fields, no more, each of its read
 * type, else its stored type).
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { z } from 'zod'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Db } from '../../store/libsql/db.ts'
import { openTestDb } from './_db.ts'
import { createMetaStore } from '../../store/libsql/meta.ts'
import type { FieldTable } from '../../store/fields/table.ts'
import type { MetaStore } from '../../store/types.ts'

/** Page 1 of up to 100, no filter. */
export const all = { page: 1, limit: 100, filters: [] }

/** The exact record a table declares: its fields (no more), each of its read (else stored) type. */
const recordSchema = (table: FieldTable) =>
  z.strictObject(
    Object.fromEntries(Object.entries(table).map(([k, f]) => [k, f.read ?? f.type ?? z.unknown()])),
  )

/** Each of `records` (at least one) is exactly `table`'s record. */
export function holds(table: FieldTable, records: unknown[]) {
  assert.ok(records.length > 0)
  for (const r of records) {
    const parsed = recordSchema(table).safeParse(r)
    assert.ok(parsed.success, JSON.stringify(parsed.error?.issues))
  }
}

/** A suite whose `ctx` holds a fresh metadata store (and its Db) on a temp file, removed after the suite. */
export function recordsSuite(name: string) {
  const ctx = {} as { dir: string; db: Db; meta: MetaStore }
  const records = suite(name)
  records.before(async () => {
    ctx.dir = mkdtempSync(join(tmpdir(), 'devicecloud-records-'))
    ctx.db = await openTestDb(`file:${ctx.dir}/meta.db`)
    ctx.meta = createMetaStore(ctx.db)
  })
  records.after(async () => {
    await ctx.meta.close()
    rmSync(ctx.dir, { recursive: true, force: true })
  })
  return { records, ctx }
}
