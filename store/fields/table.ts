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

/** The writable fields of a table (those with a column and a stored type). */
type WritableKeys<T extends FieldTable> = {
  [K in keyof T]: T[K] extends { column: string; type: z.ZodType } ? K : never
}[keyof T]

/** The zod shape of a table's writable fields. */
export type WriteShape<T extends FieldTable> = {
  [K in WritableKeys<T>]: T[K] extends { type: infer S extends z.ZodType } ? S : never
}

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
 * What a request gives for each field of a table: a writable field's stored `type` (a JSON field's value, not
 * its text), else what a read answers.
 */
export type RequestOf<T extends FieldTable> = {
  -readonly [K in keyof T]: T[K] extends { type: infer S extends z.ZodType }
    ? z.output<S>
    : RecordOf<T>[K]
}

/**
 * A request schema over fields of `table`: each entry validates the field its key names, and what it outputs
 * must be what the field holds (`RequestOf`, checked at compile time; undefined when the body may omit it).
 * Keys keep the order given (they are the documented body's order).
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

/** The zod object of everything a write stores: its output type is the repository's input type. */
export function writeSchema<T extends FieldTable>(table: T): z.ZodObject<WriteShape<T>> {
  const shape: Record<string, z.ZodType> = {}
  for (const [k, f] of entries(table)) if (f.column && f.type) shape[k] = f.type
  return z.object(shape) as unknown as z.ZodObject<WriteShape<T>>
}

/** Wire field → column of every writable field, in table order. */
export function writeColumns(table: FieldTable): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, f] of entries(table)) if (f.column && f.type) out[k] = f.column
  return out
}

/** `SELECT <sql> AS <field>, ...` of every field. */
export function selectSql(table: FieldTable): string {
  return `SELECT ${entries(table)
    .map(([k, f]) => `${f.sql} AS ${k}`)
    .join(', ')}`
}

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
