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

/** The reads every repository of a record table answers: one record by id, and a page of its list. */
interface Reads {
  get(tenantID: string, id: number): Promise<unknown>
  list(tenantID: string, page: typeof all): Promise<{ items: unknown[] }>
}

/** `records` (the created one first), it read back by id and T1's first page of `repo` are each `table`'s record. */
export async function holdsRead(
  table: FieldTable,
  repo: Reads,
  records: [{ id: number }, ...unknown[]],
) {
  holds(table, [
    ...records,
    await repo.get('T1', records[0].id),
    ...(await repo.list('T1', all)).items,
  ])
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

/** Creates MQTT product `productName` of tenant T1. */
export const newProduct = (meta: MetaStore, productName: string) =>
  meta.products.create('T1', null, { productName, cloudProtocol: 1 })

/** Creates numeric data point `dataPointID` (named `dataPointName`) of the product, in T1. */
export const newPoint = (
  meta: MetaStore,
  productIntID: number,
  dataPointID: string,
  dataPointName: string,
) =>
  meta.dataPoints.create('T1', null, productIntID, {
    dataPointID,
    dataPointName,
    pointDataType: 1,
    dataTransType: 1,
  })

/** Inserts device `dev-{n}` (username `u{n}`) of the product in T1; answers its row id. */
export async function rawDevice(db: Db, productIntID: number, n: number) {
  const r = await db.run(
    `INSERT INTO devices (tenant_id, product_int_id, device_id, device_name, device_username, token, create_at)
     VALUES ('T1', ?, ?, ?, ?, 'k', 0)`,
    [productIntID, `dev-${n}`, `dev-${n}`, `u${n}`],
  )
  return r.lastId
}
