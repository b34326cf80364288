/**
 * Field tables: each stored resource declares its fields once, and everything else is derived from that one
 * declaration: the SQL a row is read and written with, JSON columns, the wire's label fields and times, list
 * filters and sort keys, CSV columns, the empty values of a create and the record type a repository answers
 * (`RecordOf`, a compile-time type: rows are not parsed on reads). Adding a field touches its table, the request
 * schema that validates it and a migration.
 */
import { z } from 'zod'
import type { FieldType } from '../list.ts'

/** How a CSV cell of a field is read on import (and written on export). */
export type CsvKind = 'text' | 'number' | 'json'

/** One field of a stored resource. */
export interface FieldDecl {
  /** The SQL expression that reads it, over the resource's FROM (e.g. `d.device_name`, `p.product_id`). */
  sql: string
  /** The column a write stores it in. Fields without one are read-only (joins, connection state, times). */
  column?: string
  /** The stored value (writable fields): the write's type is derived from these schemas. */
  type?: z.ZodType
  /**
   * The type a read answers, when it is not `type` (generated ids, joins, counts, times). Only its TS type is
   * used (`RecordOf`): reads are not parsed.
   */
  read?: z.ZodType
  /** What a create stores when the body does not give it. */
  empty?: unknown
  /** Stored as JSON text, answered parsed. */
  json?: boolean
  /** The enumeration whose label fills `<field>Label` on the wire. */
  label?: string
  /** Epoch milliseconds, answered as wire time. */
  time?: boolean
  /** A list filter (`f`, `f_like`, `f_in`) of this type; filters are also sort keys. */
  filter?: FieldType
  /** A sort key that is not a filter. */
  sort?: boolean
  /** A column of the CSV export and import, in the table's order. */
  csv?: CsvKind
}

export type FieldTable = Record<string, FieldDecl>

/** The stored types most fields have: an integer, a text. */
export const int = z.number().int()
export const str = z.string()

/** A record's id (`x` is the record's alias). */
export const recordID = (x: string) => ({ sql: `${x}.id`, read: int }) as const

/** When a record was made and last changed (`x` is the record's alias); updateAt is a sort key. */
export const times = (x: string) =>
  ({
    createAt: { sql: `${x}.create_at`, time: true, read: int },
    updateAt: { sql: `${x}.update_at`, time: true, sort: true, read: int.nullable() },
  }) as const satisfies FieldTable

/** Who made a record (`u`, the joined user) and when. */
export const created = (x: string) =>
  ({ createUser: { sql: 'u.username', read: str.nullable() }, ...times(x) }) as const

/** Who made a record and when, with the creator's id. */
export const audit = (x: string) =>
  ({ userIntID: { sql: `${x}.user_int_id`, read: int.nullable() }, ...created(x) }) as const

/** A device (`d`) as the tables that list devices (group members, a policy's bound devices) read it. */
export const listedDevice = {
  id: recordID('d'),
  deviceName: { sql: 'd.device_name', read: str, filter: 'text' },
  deviceID: { sql: 'd.device_id', read: str, filter: 'text' },
  deviceType: { sql: 'd.device_type', read: int.nullable(), label: 'deviceType' },
} as const satisfies FieldTable

/** The product (`p`) a record belongs to: its productID (a list filter) and name. */
export const productID = { sql: 'p.product_id', read: str, filter: 'text' } as const
export const productName = { sql: 'p.product_name', read: str } as const

/** The writable fields of a table (those with a column and a stored type). */
type WritableKeys<T extends FieldTable> = {
  [K in keyof T]: T[K] extends { column: string; type: z.ZodType } ? K : never
}[keyof T]

/** The zod shape of a table's writable fields. */
export type WriteShape<T extends FieldTable> = {
  [K in WritableKeys<T>]: T[K] extends { type: infer S extends z.ZodType } ? S : never
}

/** Everything a write of a table stores, under its wire names. */
export type WriteOf<T extends FieldTable> = z.output<z.ZodObject<WriteShape<T>>>

/**
 * The record a repository answers for a table: each field's `read` type, else its stored `type`, else unknown.
 * Repositories select exactly `selectSql(table)`, so every field is present.
 */
export type RecordOf<T extends FieldTable> = {
  -readonly [K in keyof T]: T[K] extends { read: infer S extends z.ZodType }
    ? z.output<S>
    : T[K] extends { type: infer S extends z.ZodType }
      ? z.output<S>
      : unknown
}

/**
 * What a request may give a field: its stored `type` when it is writable (a JSON field takes the value, not the
 * text a read answers), else what a read answers (a key that picks the record, e.g. a productID).
 */
export type RequestOf<T extends FieldTable> = {
  -readonly [K in keyof T]: T[K] extends { type: infer S extends z.ZodType }
    ? z.output<S>
    : RecordOf<T>[K]
}

/**
 * A request schema over fields of `table`: each entry validates the field its key names, and what it outputs
 * must be what the field holds (`RequestOf`, checked at compile time; undefined when the body may omit it). Keys
 * keep the order given (they are the documented body's order).
 */
export function requestSchema<
  T extends FieldTable,
  S extends { [K in keyof T]?: z.ZodType<RequestOf<T>[K] | undefined> },
>(_table: T, fields: S): z.ZodObject<{ [K in keyof S]: S[K] & z.ZodType }> {
  return z.object(fields as Record<string, z.ZodType>) as z.ZodObject<{
    [K in keyof S]: S[K] & z.ZodType
  }>
}

const entries = (t: FieldTable) => Object.entries(t)

/**
 * Whether `shape` is exactly `WriteShape<T>`: each writable field of `table` (a column and a stored type) under
 * its name with that type, and nothing else. Checked at run time, so the narrowing holds.
 */
function isWriteShape<T extends FieldTable>(
  table: T,
  shape: Record<string, z.ZodType>,
): shape is WriteShape<T> {
  const writable = entries(table).filter(([, f]) => f.column && f.type)
  return (
    writable.every(([k, f]) => shape[k] === f.type) && Object.keys(shape).length === writable.length
  )
}

/** The zod object of everything a write stores: its output type is the repository's input type. */
export function writeSchema<T extends FieldTable>(table: T): z.ZodObject<WriteShape<T>> {
  const shape: Record<string, z.ZodType> = {}
  for (const [k, f] of entries(table)) if (f.column && f.type) shape[k] = f.type
  if (!isWriteShape(table, shape))
    throw new Error('writeSchema: not the writable fields of the table')
  return z.object(shape)
}

/** Wire field → column of every writable field, in table order. */
export function writeColumns(table: FieldTable): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, f] of entries(table)) if (f.column && f.type) out[k] = f.column
  return out
}

/** `SELECT <sql> AS <field>, ...` of every field. */
export function selectSql(table: FieldTable): string {
  let sql = selects.get(table)
  if (sql === undefined) {
    sql = `SELECT ${entries(table)
      .map(([k, f]) => `${f.sql} AS ${k}`)
      .join(', ')}`
    selects.set(table, sql)
  }
  return sql
}

/** selectSql per table, built once (a detail read asked for it on every request: 3% of the main thread). */
const selects = new WeakMap<FieldTable, string>()

/** Wire field → SQL expression of every filter and sort key (what a list may filter and order by). */
export function listExpressions(table: FieldTable): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, f] of entries(table)) if (f.filter || f.sort) out[k] = f.sql
  return out
}

/** The list filters of a table: wire field → its type. */
export function filterFields(table: FieldTable): Record<string, FieldType> {
  const out: Record<string, FieldType> = {}
  for (const [k, f] of entries(table)) if (f.filter) out[k] = f.filter
  return out
}

/** The fields stored as JSON text. */
export const jsonFields = (table: FieldTable) =>
  entries(table)
    .filter(([, f]) => f.json)
    .map(([k]) => k)

/** The fields holding epoch milliseconds. */
export const timeFields = (table: FieldTable) =>
  entries(table)
    .filter(([, f]) => f.time)
    .map(([k]) => k)

/** Field → the enumeration of its label. */
export function labelFields(table: FieldTable): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, f] of entries(table)) if (f.label) out[k] = f.label
  return out
}

/** The CSV columns, in table order, with how each cell is read. */
export function csvColumns(table: FieldTable): Array<[field: string, kind: CsvKind]> {
  return entries(table).flatMap(([k, f]) => (f.csv ? [[k, f.csv] as [string, CsvKind]] : []))
}

/** Every writable field with its value when a create does not give it. */
export function emptyValues(table: FieldTable): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, f] of entries(table)) if (f.column && f.type) out[k] = f.empty ?? null
  return out
}
