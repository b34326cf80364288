/**
 * A projection: how a stored record (wire field names, times as epoch ms, JSON fields as text) becomes one form
 * of its wire answer, as data (structured-cloneable), so the same projection runs where the record is read: on the
 * main thread (src/wire/shape.ts serializers) or in a database reader thread, which then answers the page as JSON
 * text (store/libsql/projected.ts).
 */
import { formatTime } from './time.ts'

export type Lang = 'zh' | 'en'
export type Row = Record<string, unknown>

/** What a projection needs to know about the caller: label language, time zone, whether it reads secrets. */
export interface ProjectionCtx {
  lang: Lang
  tz: string
  /** False for viewers: the `secret` fields are written as null. */
  secrets?: boolean
}

/** One wire field: how its value is made from the record. */
export type FieldOp =
  | { key: string; op: 'copy' | 'json' | 'time' | 'secret' }
  /** `labels[String(record[from])][lang]`, null when the value or its label is missing. */
  | { key: string; op: 'label'; from: string; labels: Record<string, Record<Lang, string>> }

export interface Projection {
  /** Unique in the process: a reader thread keeps the compiled projection under it. */
  id: string
  /** The wire fields, in the order they are written. */
  fields: readonly FieldOp[]
}

let made = 0

/** A projection of `fields`, with a new id. */
export function projection(fields: readonly FieldOp[]): Projection {
  return { id: `p${++made}`, fields }
}

type Op = (row: Row, ctx: ProjectionCtx) => unknown

function opOf(f: FieldOp): Op {
  const { key } = f
  switch (f.op) {
    case 'secret':
      return (r, c) => (c.secrets === false ? null : (r[key] ?? null))
    case 'label': {
      const { from, labels } = f
      return (r, c) =>
        r[from] === null || r[from] === undefined
          ? null
          : // eslint-disable-next-line @typescript-eslint/no-base-to-string -- an enumeration's stored value
            (labels[String(r[from])]?.[c.lang] ?? null)
    }
    case 'time':
      return (r, c) => formatTime(r[key] as number | null, c.tz)
    case 'json':
      return (r) => parseJson(r[key])
    case 'copy':
      return (r) => r[key] ?? null
  }
}

function parseJson(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? null
  try {
    return JSON.parse(v)
  } catch {
    return v
  }
}

/**
 * The function answering `{key0: op0(row, ctx), key1: ...}` as an object literal of the projection's keys (JSON
 * string literals of keys a zod schema in this code names, never input): the engine builds each answer with one
 * shape, where assigning computed keys in a loop cost a lookup per field (list pages: 5% of the main thread).
 */
export function compileProjection(p: Projection): (row: object, ctx: ProjectionCtx) => Row {
  const { fields } = p
  if (fields.some((f) => f.key === '__proto__')) throw new Error('a wire field named __proto__')
  const body = fields.map((f, i) => `${JSON.stringify(f.key)}: ops[${i}](row, ctx)`).join(', ')
  // the body is built from the projection's own field keys (JSON string literals) and indexes, never from data
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const make = new Function('ops', `return (row, ctx) => ({ ${body} })`) as (
    ops: Op[],
  ) => (row: object, ctx: ProjectionCtx) => Row
  return make(fields.map(opOf))
}
