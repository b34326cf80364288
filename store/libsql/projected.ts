import type { JsonText } from '../list.ts'
import {
  compileProjection,
  type FieldOp,
  type Projection,
  type ProjectionCtx,
  type Row,
} from '../../src/kernel/projection.ts'

/**
 * A read of several statements where one (`at`) is answered as the JSON text of its first `limit` rows, each in
 * `projection` (src/kernel/projection.ts): the reader thread that ran the SQL writes the answer's items, so the main
 * thread neither parses the rows nor shapes and serializes them again (Db.readProjected).
 */
export interface Projecting {
  at: number
  projection: Projection
  ctx: ProjectionCtx
  /** Rows past it are counted, not projected (a page reads one row more than it shows). */
  limit?: number
  /** Fields of the last projected row answered as they are stored (a page's cursor). */
  keep?: readonly string[]
}

/** What a projected read answers. */
export interface ProjectedRead<R = Row[]> {
  /** The rows of every statement; the projected one's slot is empty. */
  results: R[]
  /** The JSON array of the projected rows: from a reader thread, its UTF-8 bytes when long (see crossing). */
  text: JsonText
  /** How many rows the projected statement read (`limit` and beyond). */
  read: number
  /** `keep`'s fields of the last projected row, when there is one. */
  last?: Row
}

/** A Projecting as it crosses to a reader thread: the projection's fields only the first time that thread sees it. */
export interface ProjectingWire extends Omit<Projecting, 'projection'> {
  id: string
  fields?: readonly FieldOp[]
}

/**
 * Texts from this many UTF-16 units on cross from a reader thread as UTF-8 bytes (the buffer moved, not copied):
 * the main thread then neither copies the string in nor encodes it again for the socket. Measured over sockets at
 * 10 connections (10,000 devices): a device list page (11,500 units) cost the main thread ~10 µs less a request and
 * the reader ~4 µs more to encode; a device detail (1,100) gained nothing and lost up to 8% of its rate.
 */
export const BYTES_FROM = 4096

const encoder = new TextEncoder()

/**
 * `read` as it crosses from a reader thread: a long text as its UTF-8 bytes, their buffer added to `transfer`.
 */
export function crossing<R>(read: ProjectedRead<R>, transfer: ArrayBuffer[]): ProjectedRead<R> {
  if (typeof read.text !== 'string' || read.text.length < BYTES_FROM) return read
  const bytes = encoder.encode(read.text)
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength)
    transfer.push(bytes.buffer)
  return { ...read, text: bytes }
}

type Compiled = ((row: object, ctx: ProjectionCtx) => Row) & { fields: readonly FieldOp[] }

/** Compiled projections of this thread by id (made once each, at startup: a process holds a few dozen). */
const compiled = new Map<string, Compiled>()
const MAX_COMPILED = 1000

/** The projection `id` compiled on this thread: from `fields` the first time, else as kept. */
export function compiledOf(id: string, fields: readonly FieldOp[] | undefined): Compiled {
  let fn = compiled.get(id)
  if (fn) return fn
  if (!fields) throw new Error(`projection ${id} unknown to this thread`)
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!)
  fn = Object.assign(compileProjection({ id, fields }), { fields })
  compiled.set(id, fn)
  return fn
}

/**
 * `p` as it crosses to a thread; `known`: the thread already holds the projection. Built field by field, not by
 * object rest and spread: see PortClient.request.
 */
export const projectingWire = (p: Projecting, known: boolean): ProjectingWire => {
  const wire: ProjectingWire = { at: p.at, ctx: p.ctx, id: p.projection.id }
  if (p.limit !== undefined) wire.limit = p.limit
  if (p.keep !== undefined) wire.keep = p.keep
  if (!known) wire.fields = p.projection.fields
  return wire
}

/** Projects statement `p.at` of `results` (each statement's rows) in JavaScript, on this thread. */
export function project<R>(
  results: R[],
  rowsOf: (r: R) => Row[],
  p: ProjectingWire,
  empty: R,
): ProjectedRead<R> {
  const fn = compiledOf(p.id, p.fields)
  const rows = rowsOf(results[p.at]!)
  const shown = p.limit === undefined || rows.length <= p.limit ? rows : rows.slice(0, p.limit)
  const out: Row[] = new Array<Row>(shown.length)
  for (let i = 0; i < shown.length; i++) out[i] = fn(shown[i]!, p.ctx)
  const tail = shown.at(-1)
  const last = p.keep && tail ? Object.fromEntries(p.keep.map((k) => [k, tail[k]])) : undefined
  return {
    results: results.map((r, i) => (i === p.at ? empty : r)),
    text: JSON.stringify(out),
    read: rows.length,
    ...(last ? { last } : {}),
  }
}

/** Epoch milliseconds SQLite's strftime writes as JavaScript's Date does: 1970-01-01 to 9999-12-31. */
const LAST_MS = 253_402_300_799_999

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`

/**
 * A column of a learnt statement: its reference (its expression, or its name over a subquery) and its value as
 * json_object takes it (a REAL through exactReal).
 */
export interface LearntColumn {
  ref: string
  value: string
}

/**
 * The SQL of one projected row over a statement's columns (`column(name)`: its reference and its value as
 * json_object takes it, or undefined when the statement has no such column), as one text: a flag (`1` when a time
 * is one strftime would not write as formatTime does: not an integer from 1970 to 9999), `keep`'s values as a JSON
 * array, a tab, and the wire form's JSON object, which json_object writes as the JavaScript projection would
 * serialize it (labels by a CASE over the enumeration, JSON text through json(), a viewer's secrets null). Undefined
 * outside UTC: a zone's offsets are the JavaScript projection's (project) to apply. Only this code's names reach the
 * SQL text: the keys and labels of its forms and enumerations (quoted), the columns (and, where the statement
 * flattens, the column references) a learnt statement answered; never input.
 */
export function projectedSql(
  fields: readonly FieldOp[],
  ctx: ProjectionCtx,
  column: (name: string) => LearntColumn | undefined,
  keep: readonly string[],
): string | undefined {
  if (ctx.tz !== 'UTC') return undefined
  const value = (c: string) => column(c)?.value
  const col = (c: string) => column(c)!.ref
  const odd: string[] = []
  const parts = fields.map((f) => {
    const v = value(f.key)
    let sql: string
    switch (f.op) {
      case 'copy':
        sql = v ?? 'NULL'
        break
      case 'secret':
        sql = ctx.secrets === false ? 'NULL' : (v ?? 'NULL')
        break
      case 'json':
        sql = v
          ? `CASE WHEN typeof(${col(f.key)}) = 'text' AND json_valid(${col(f.key)}) THEN json(${col(f.key)}) ELSE ${v} END`
          : 'NULL'
        break
      case 'time': {
        if (!v) {
          sql = 'NULL'
          break
        }
        const c = col(f.key)
        odd.push(
          `(${c} IS NOT NULL AND NOT (typeof(${c}) = 'integer' AND ${c} BETWEEN 0 AND ${LAST_MS}))`,
        )
        sql = `strftime('%Y-%m-%d %H:%M:%S', ${c} / 1000, 'unixepoch')`
        break
      }
      case 'label': {
        if (!value(f.from)) {
          sql = 'NULL'
          break
        }
        const whens = Object.entries(f.labels).map(
          ([k, l]) => `WHEN ${quote(k)} THEN ${quote(l[ctx.lang])}`,
        )
        sql = whens.length ? `CASE CAST(${col(f.from)} AS TEXT) ${whens.join(' ')} END` : 'NULL'
        break
      }
    }
    return `${quote(f.key)}, ${sql}`
  })
  const flag = odd.length ? `CASE WHEN ${odd.join(' OR ')} THEN '1' ELSE '0' END` : `'0'`
  // as the learnt shape writes them (a REAL sort value in 17 digits: a cursor must find its row again)
  const kept = `json_array(${keep.map((k) => value(k) ?? 'NULL').join(', ')})`
  return `${flag} || ${kept} || char(9) || json_object(${parts.join(', ')}) AS j`
}

/**
 * The projected read of statement `p.at` of `results` from its rows' projectedSql texts (`texts`), or undefined when
 * a row's flag says the JavaScript projection must write it (see projectedSql).
 */
export function fromProjectedSql<R>(
  texts: readonly string[],
  results: R[],
  p: ProjectingWire,
): ProjectedRead<R> | undefined {
  const shown = p.limit === undefined ? texts.length : Math.min(texts.length, p.limit)
  const items: string[] = new Array<string>(shown)
  for (let i = 0; i < shown; i++) {
    const t = texts[i]!
    if (t.charCodeAt(0) !== 48) return undefined // '1': a time for formatTime
    items[i] = t.slice(t.indexOf('\t') + 1)
  }
  let last: Row | undefined
  if (p.keep?.length && shown > 0) {
    const t = texts[shown - 1]!
    const values = JSON.parse(t.slice(1, t.indexOf('\t'))) as unknown[]
    last = Object.fromEntries(p.keep.map((k, j) => [k, values[j]]))
  }
  return { results, text: `[${items.join(',')}]`, read: texts.length, ...(last ? { last } : {}) }
}
