import type { z } from 'zod'
import { enumerations, type EnumName } from '../enums.ts'
import { formatTime } from '../kernel/time.ts'
import { jsonFields, labelFields, timeFields } from '../../store/fields/table.ts'
import type { FieldTable, RecordOf } from '../../store/fields/table.ts'

export type Lang = 'zh' | 'en'
export type Row = Record<string, unknown>

/** What a serializer needs to know about the caller: label language, time zone, whether it reads secrets. */
export interface WireCtx {
  lang: Lang
  tz: string
  /** False for viewers: the resource's `secret` fields are written as null. */
  secrets?: boolean
}

/** How one resource's stored row maps onto its wire fields. */
export interface WireSpec {
  /** `field` → enumeration whose label fills `fieldLabel`. */
  labels?: Partial<Record<string, EnumName>>
  /** Fields holding epoch milliseconds, written as `YYYY-MM-DD HH:MM:SS`. */
  times?: readonly string[]
  /** Fields holding JSON text, written as parsed JSON. */
  json?: readonly string[]
  /** Credentials (a device's token, a private key): null unless the caller may read secrets. */
  secret?: readonly string[]
}

type Op = (row: Row, ctx: WireCtx) => unknown

/** A field table's wire: its labels, times and JSON fields (store/fields), plus `more` (e.g. secrets). */
export function wireSpecOf(table: FieldTable, more: WireSpec = {}): WireSpec {
  return {
    labels: labelFields(table) as Record<string, EnumName>,
    times: timeFields(table),
    json: jsonFields(table),
    ...more,
  }
}

function compile(keys: readonly string[], spec: WireSpec): Array<[string, Op]> {
  const times = new Set(spec.times ?? [])
  const json = new Set(spec.json ?? [])
  const secret = new Set(spec.secret ?? [])
  return keys.map((key): [string, Op] => {
    if (secret.has(key)) return [key, (r, c) => (c.secrets === false ? null : (r[key] ?? null))]
    const labelOf = key.endsWith('Label') ? spec.labels?.[key.slice(0, -5)] : undefined
    if (labelOf) {
      const base = key.slice(0, -5)
      const table = enumerations[labelOf] as Record<string, { zh: string; en: string }>
      return [
        key,
        (r, c) =>
          r[base] === null || r[base] === undefined
            ? null
            : (table[String(r[base])]?.[c.lang] ?? null),
      ]
    }
    if (times.has(key)) return [key, (r, c) => formatTime(r[key] as number | null, c.tz)]
    if (json.has(key)) return [key, (r) => parseJson(r[key])]
    return [key, (r) => r[key] ?? null]
  })
}

function parseJson(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? null
  try {
    return JSON.parse(v)
  } catch {
    return v
  }
}

/** One serializer per form (list, detail, write ...): the form's zod object gives the fields and their order. */
export type Serializer<F extends string> = Record<F, (row: object, ctx: WireCtx) => Row>

/**
 * Builds the serializers of one resource. Each form is a zod object whose keys are the wire fields, in order;
 * the same objects document the responses in the OpenAPI document.
 */
export function createSerializer<F extends string>(
  forms: Record<F, z.ZodObject>,
  spec: WireSpec,
): Serializer<F> {
  const out = {} as Serializer<F>
  for (const form of Object.keys(forms) as F[])
    out[form] = literalOf(compile(Object.keys(forms[form].shape), spec))
  return out
}

/**
 * One function answering `{key0: op0(row, ctx), key1: ...}` as an object literal of the form's keys (JSON string
 * literals of keys a zod schema in this code names, never input): the engine builds each answer with one shape,
 * where assigning computed keys in a loop cost a lookup per field (list pages: 5% of the main thread).
 */
function literalOf(ops: Array<[string, Op]>): (row: object, ctx: WireCtx) => Row {
  if (ops.some(([key]) => key === '__proto__')) throw new Error('a wire field named __proto__')
  const body = ops.map(([key], i) => `${JSON.stringify(key)}: ops[${i}](row, ctx)`).join(', ')
  const make = new Function('ops', `return (row, ctx) => ({ ${body} })`) as (
    ops: Op[],
  ) => (row: object, ctx: WireCtx) => Row
  return make(ops.map(([, op]) => op))
}

/** The fields a form answers that record `R` does not hold (its `<field>Label`s aside): must be none. */
type Unheld<R, F> = F extends z.ZodObject
  ? Exclude<keyof F['shape'], keyof R | `${string}Label`>
  : never

/** One typed serializer per form: a record `R` in, the form's output (what its route answers) out. */
export type RecordSerializer<R, Forms extends Record<string, z.ZodObject>> = {
  [F in keyof Forms]: (record: R, ctx: WireCtx) => z.output<Forms[F]>
}

/**
 * The serializers of a resource whose store answers records `R` (`RecordOf` its field table): each form must
 * name only fields `R` holds or their labels, checked at compile time, and answers its form's type, so a route
 * checks what it answers (src/http/router.ts `typed`). No record is parsed: the fields are copied as in
 * createSerializer. Called as `recordSerializer<R>()(forms, spec)`.
 */
export function recordSerializer<R extends object>() {
  return <Forms extends Record<string, z.ZodObject>>(
    forms: Forms & { [F in keyof Forms]: [Unheld<R, Forms[F]>] extends [never] ? unknown : never },
    spec: WireSpec,
  ): RecordSerializer<R, Forms> => {
    const out: Record<string, (record: R, ctx: WireCtx) => unknown> = createSerializer(forms, spec)
    return out as RecordSerializer<R, Forms>
  }
}

/**
 * The serializers of the records a field table's reads answer (`RecordOf` the table), with the table's wire
 * (`wireSpecOf(table, more)`): `recordSerializer<RecordOf<typeof TABLE>>()(forms, wireSpecOf(TABLE, more))`.
 */
export function tableSerializer<T extends FieldTable, Forms extends Record<string, z.ZodObject>>(
  table: T,
  forms: Forms & {
    [F in keyof Forms]: [Unheld<RecordOf<T>, Forms[F]>] extends [never] ? unknown : never
  },
  more?: WireSpec,
): RecordSerializer<RecordOf<T>, Forms> {
  return recordSerializer<RecordOf<T>>()(forms, wireSpecOf(table, more))
}
