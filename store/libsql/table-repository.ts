import type { InStatement, InValue } from '@libsql/client'
import type { Db } from './db.ts'
import type { JsonText, ListArgs, Page, TextPage } from '../list.ts'
import type { ProjectedReads, Shape, TableRepository } from '../meta/table.ts'
import { jsonFields, writeColumns, type FieldTable, type RecordOf } from '../fields/table.ts'
import { Conflict, NotFound } from '../errors.ts'
import { listPage, listPageText, tenantList, type ListSpec, type TableListSpec } from './list.ts'
import {
  deleteChecked,
  insertOf,
  readRecord,
  readRecordText,
  setClause,
  type DeleteSpec,
} from './records.ts'
import { uniqueColumns } from './sql-errors.ts'
import { randomId } from '../../src/kernel/secrets.ts'

/**
 * How one tenant-scoped table is read and written: every read, write and delete is narrowed by its tenant_id
 * (and `scope`), so another tenant's id is NotFound like a missing one.
 */
export interface TableOptions<L extends FieldTable, D extends FieldTable> {
  /** The record a list answers. */
  list: L
  /** The record `get` (and a write) answers; the list's when absent. Its writable fields are the columns. */
  detail?: D
  /**
   * The FROM and JOINs of a read: `FROM <table> <alias> ...`, the table written and deleted from, its alias the
   * one its tenant, id and creation time are read through.
   */
  from: string
  /** The FROM of a list when it joins less than `from`. */
  listFrom?: string
  /** A fixed column value every record of this repository has (e.g. the devices table's `kind`). */
  scope?: { column: string; value: InValue }
  /** See ListSpec.count. */
  count?: ListSpec['count']
  /** See ListSpec.counter. */
  counter?: ListSpec['counter']
  /** The NotFound a missing or foreign id is (default: `NotFound()`). */
  notFound?: (id: number) => NotFound
  /** UNIQUE column → the wire field its Conflict names, or [field, message]; checked in this order. */
  unique?: Record<string, string | [field: string, message: string]>
  /** A string id generated on create (column, length), drawn again when it collides. */
  generatedId?: { column: string; length: number }
  /** How a delete is checked: what still uses a record, and the messages (see DeleteSpec). */
  remove: Omit<DeleteSpec, 'table' | 'scope'>
}

/** What a write may do besides setting its fields. */
export interface WriteOptions {
  /** update_at (epoch ms); now by default. */
  now?: number
  /** A further condition of the UPDATE (over the table's columns) with its args. */
  where?: { sql: string; args: InValue[] }
  /** Statements run after the write in the same transaction. */
  also?: InStatement[]
  /** What a write that matched no row is when the record exists (`where` refused it); NotFound otherwise. */
  refused?: () => Error
}

/**
 * A repository of one field table (store/fields/): list, get, update and a checked delete, answering the table's
 * typed records (selected by its columns, not parsed per row). A resource's repository extends it (or holds one)
 * with its own create (over `insert`), its checks before a `write` and its special queries.
 */
export class TableRepo<
  L extends FieldTable,
  D extends FieldTable = L,
  P extends object = Partial<RecordOf<D>>,
>
  implements TableRepository<RecordOf<L>, RecordOf<D>, P>, ProjectedReads
{
  /** The list of the tenant's records; `{ ...listSpec, where }` narrows it (first `?` the tenant). */
  readonly listSpec: TableListSpec<L>
  private readonly detail: D
  private readonly columns: Record<string, string>
  private readonly json: string[]
  private readonly scoped: { sql: string; args: InValue[] }
  private readonly name: string
  private readonly alias: string
  /** `FROM ... WHERE` of one record of the tenant: args tenant, the scope's, id. */
  private readonly oneOf: string

  constructor(
    protected readonly db: Db,
    private readonly o: TableOptions<L, D>,
  ) {
    const [, name, alias] = /^FROM (\w+) (\w+)\b/.exec(o.from.trim()) ?? []
    if (!name || !alias) throw new Error(`TableRepo: no table and alias in ${o.from}`)
    this.name = name
    this.alias = alias
    // without `detail`, D is L (its default): get answers the list's record
    this.detail = o.detail ?? (o.list as FieldTable as D)
    this.columns = writeColumns(this.detail)
    this.json = jsonFields(this.detail)
    this.scoped = o.scope
      ? { sql: ` AND ${alias}.${o.scope.column} = ?`, args: [o.scope.value] }
      : { sql: '', args: [] }
    this.oneOf = `${o.from} WHERE ${alias}.tenant_id = ?${this.scoped.sql} AND ${alias}.id = ?`
    this.listSpec = tenantList(o.list, o.listFrom ?? o.from, alias, {
      and: this.scoped.sql,
      count: o.count,
      counter: o.counter,
    })
  }

  list(tenant: string, q: ListArgs): Promise<Page<RecordOf<L>>> {
    return listPage(this.db, this.listSpec, [tenant, ...this.scoped.args], q)
  }

  listText(tenant: string, q: ListArgs, shape: Shape): Promise<TextPage> {
    return listPageText(this.db, this.listSpec, [tenant, ...this.scoped.args], q, shape)
  }

  async get(tenant: string, id: number): Promise<RecordOf<D>> {
    const r = await readRecord(this.db, this.detail, this.oneOf, [tenant, ...this.scoped.args, id])
    if (!r) throw this.o.notFound?.(id) ?? new NotFound()
    return r
  }

  async getText(tenant: string, id: number, shape: Shape): Promise<JsonText> {
    const args = [tenant, ...this.scoped.args, id]
    const r = await readRecordText(this.db, this.detail, this.oneOf, args, shape)
    if (r === undefined) throw this.o.notFound?.(id) ?? new NotFound()
    return r
  }

  update(tenant: string, id: number, patch: P): Promise<RecordOf<D>> {
    return this.write(tenant, id, patch)
  }

  delete(tenant: string, ids: number[]): Promise<void> {
    const { scope } = this.o
    return deleteChecked(
      this.db,
      tenant,
      { ...this.o.remove, table: this.name, ...(scope ? { scope } : {}) },
      ids,
    )
  }

  /**
   * Inserts a record of the tenant: `values` under wire names (each writable field; absent ones are NULL), `fixed`
   * columns beside them (tenant, creation time and the generated id are added), `also` in the same transaction.
   * Answers the stored record; a UNIQUE violation is the Conflict `unique` names.
   */
  async insert(
    tenant: string,
    values: object,
    fixed: Record<string, InValue>,
    o: { now?: number; also?: InStatement[] } = {},
  ): Promise<RecordOf<D>> {
    const gen = this.o.generatedId
    for (let attempt = 0; ; attempt++) {
      const generated: Record<string, InValue> = gen ? { [gen.column]: randomId(gen.length) } : {}
      const { column, value } = this.o.scope ?? {}
      const insert = insertOf(
        this.name,
        this.columns,
        values as Record<string, unknown>,
        {
          tenant_id: tenant,
          ...(column ? { [column]: value ?? null } : {}),
          ...generated,
          ...fixed,
          create_at: o.now ?? Date.now(),
        },
        this.json,
      )
      try {
        const id = o.also?.length
          ? Number((await this.db.batch([insert, ...o.also]))[0]!.lastInsertRowid)
          : (await this.db.run(insert.sql, insert.args)).lastId
        return await this.get(tenant, id)
      } catch (e) {
        const collided = gen && uniqueColumns(e).includes(`${this.name}.${gen.column}`)
        if (collided && attempt < 6) continue
        this.rethrow(e)
      }
    }
  }

  /**
   * Writes the fields of `patch` that are not undefined (null clears) and update_at, then answers the record;
   * NotFound when the id is not the tenant's, a UNIQUE violation the Conflict `unique` names.
   */
  async write(
    tenant: string,
    id: number,
    patch: object,
    o: WriteOptions = {},
  ): Promise<RecordOf<D>> {
    const set = setClause(this.columns, patch, this.json)
    const scope = this.o.scope ? ` AND ${this.o.scope.column} = ?` : ''
    const update: InStatement = {
      sql: `UPDATE ${this.name} SET ${set.sql ? `${set.sql}, ` : ''}update_at = ?
        WHERE tenant_id = ?${scope} AND id = ?${o.where ? ` AND (${o.where.sql})` : ''}`,
      args: [
        ...set.args,
        o.now ?? Date.now(),
        tenant,
        ...this.scoped.args,
        id,
        ...(o.where?.args ?? []),
      ],
    }
    let changes = 0
    try {
      changes = o.also?.length
        ? (await this.db.batch([update, ...o.also]))[0]!.rowsAffected
        : (await this.db.run(update.sql, update.args)).changes
    } catch (e) {
      this.rethrow(e)
    }
    if (changes === 0) throw o.refused?.() ?? this.o.notFound?.(id) ?? new NotFound()
    return this.get(tenant, id)
  }

  /** A UNIQUE violation on a column of `unique` → its Conflict; anything else as it is. */
  private rethrow(e: unknown): never {
    const cols = uniqueColumns(e).map((c) => c.split('.').pop())
    for (const [column, to] of Object.entries(this.o.unique ?? {}))
      if (cols.includes(column))
        throw typeof to === 'string' ? new Conflict(to) : new Conflict(...to)
    throw e
  }
}
