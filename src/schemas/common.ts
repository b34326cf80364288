import { z } from 'zod'
import { codes, enumDoc, type EnumName } from '../enums.ts'
import type { FieldTable } from '../../store/fields/table.ts'

/**
 * An integer code of one of the enumerations (src/enums.ts); the error lists the allowed codes, the OpenAPI
 * document their meanings.
 */
export function enumCode(name: EnumName) {
  const allowed = codes(name)
  return z
    .number({ error: `must be one of ${allowed.join(', ')}` })
    .int({ error: `must be one of ${allowed.join(', ')}` })
    .refine((n) => allowed.includes(n), { error: `must be one of ${allowed.join(', ')}` })
    .meta({ enum: allowed, ...enumDoc(name) })
}

/**
 * Text with a character that String.prototype.trim keeps (JavaScript's white space and line terminators are
 * spelled out, so the documented pattern means the same in every regex dialect).
 */
export const NOT_BLANK =
  /[^\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/

/**
 * Adds OpenAPI metadata to a schema in place, keeping what it has, e.g. the `examples` of a request body, written
 * beside the schema's definition; `.meta()` would make a copy. Examples are request bodies as sent: the OpenAPI
 * document shows the first as the operation's example, and the tests post each one.
 */
export function annotate<S extends z.ZodType>(
  schema: S,
  meta: { examples?: unknown[]; description?: string },
): S {
  z.globalRegistry.add(schema, { ...z.globalRegistry.get(schema), ...meta })
  return schema
}

/** A required, non-blank text field of at most `max` characters. */
export const name = (max = 100) =>
  z
    .string({ error: 'required, a string' })
    .regex(NOT_BLANK, { error: 'must not be empty' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `at most ${max} characters` })

/** An optional text field; null clears it. */
export const text = (max = 1000) =>
  z
    .string({ error: 'must be a string' })
    .max(max, { error: `at most ${max} characters` })
    .nullish()

/**
 * A product's own retention in days (1 to 100 years), or null for the service's setting; absent on an edit
 * keeps what is stored.
 */
export const retentionDays = z
  .number({ error: 'must be a whole number of days, or null' })
  .int({ error: 'must be a whole number of days, or null' })
  .min(1, { error: 'at least 1 day (null: the service setting)' })
  .max(36_500, { error: 'at most 36500 days' })
  .nullish()

/** An integer record id in a body. */
export const intID = z
  .number({ error: 'must be an integer id' })
  .int({ error: 'must be an integer id' })
  .positive({ error: 'must be an integer id' })

/**
 * What a response schema answers on the wire (its output): the type its routes answer and a client reads (the
 * console imports it, as a type, for its records: src/console/api/wire.ts).
 */
export type Answered<S extends z.ZodType> = z.output<S>

/** An integer from `min` to `max` (both included); every failure says so. */
export const intIn = (min: number, max: number) => {
  const error = `must be an integer from ${min} to ${max}`
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error })
}

/** The text a command publishes; a JSON object or array is accepted and sent as JSON; at most 256 KiB. */
export const CommandPayload = z
  .union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())], {
    error: 'required: the text (or JSON) to publish',
  })
  .transform((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
  .refine((v) => utf8Length(v) <= 256 * 1024, { error: 'at most 256 KiB' })

/** The length of a string in UTF-8 bytes, without Node's `Buffer`: the console type-checks these schemas too. */
function utf8Length(s: string): number {
  let n = s.length
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 2 // a surrogate pair: 4 bytes for its 2 units
        i++
        continue
      }
    }
    if (c >= 0x800) n += 2
    else if (c >= 0x80) n += 1
  }
  return n
}

/** MQTT QoS of a command: 0 or 1. */
export const Qos = z.union([z.literal(0), z.literal(1)], { error: 'must be 0 or 1' })

const numeric = (v: unknown) =>
  typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v
const integral = (v: unknown) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v)

/** A number that may arrive as a numeric string and is stored as a number (e.g. data point create). */
export const looseNumber = z.preprocess(numeric, z.number({ error: 'must be a number' }).finite())

/** An integer that may arrive as a numeric string. */
export const looseInt = z.preprocess(
  integral,
  z.number({ error: 'must be an integer' }).int({ error: 'must be an integer' }),
)

/**
 * looseNumber / looseInt with bounds, e.g. `looseIntOf((n) => n.positive())`: the bounds go inside the
 * preprocess, where the OpenAPI document shows them (a bound piped after it would not be documented).
 */
export const looseNumberOf = (bound: (n: z.ZodNumber) => z.ZodNumber) =>
  z.preprocess(numeric, bound(z.number({ error: 'must be a number' }).finite()))
export const looseIntOf = (bound: (n: z.ZodNumber) => z.ZodNumber) =>
  z.preprocess(
    integral,
    bound(z.number({ error: 'must be an integer' }).int({ error: 'must be an integer' })),
  )

export const Timestamp = z
  .string()
  .nullable()
  .meta({ description: 'YYYY-MM-DD HH:MM:SS in the service time zone' })
export const Label = z.string().nullable()
export const Int = z.number().int()
export const NullableInt = z.number().int().nullable()
export const Str = z.string()
export const NullableStr = z.string().nullable()

/** An empty JSON object: the answer of calls whose result is only their status. */
export const Empty = z.object({})

/** `<field>Label` of each field of `T` that has a label. */
type LabelKeys<T extends FieldTable> = {
  [K in keyof T & string]: T[K] extends { label: string } ? `${K}Label` : never
}[keyof T & string]

/** The wire type of a table field: a time is a Timestamp, a JSON field its (parsed) stored type, else its read. */
type WireOf<F> = F extends { time: true }
  ? typeof Timestamp
  : F extends { json: true; type: infer S extends z.ZodType }
    ? S
    : F extends { read: infer S extends z.ZodType }
      ? S
      : F extends { type: infer S extends z.ZodType }
        ? S
        : never

/** The names of a space-separated list. */
type Words<S extends string, Acc extends string = never> = S extends `${infer H} ${infer R}`
  ? Words<R, Acc | H>
  : Exclude<Acc | S, ''>

/** The shape `responseSchema` builds: each named field's wire type, or the schema `O` gives it. */
export type ResponseShape<T extends FieldTable, W extends string, O> = {
  [K in W]: K extends keyof O ? O[K] : K extends keyof T ? WireOf<T[K]> : typeof Label
}

/** The wire type of field `key` of `table` (`WireOf` at run time), or `Label` for a labelled field's label. */
function wireOf(table: FieldTable, key: string): z.ZodType {
  const f = table[key]
  if (f?.time) return Timestamp
  if (f?.json && f.type) return f.type
  const labelled = key.endsWith('Label') && table[key.slice(0, -5)]?.label
  const schema = f ? (f.read ?? f.type) : labelled ? Label : undefined
  if (!schema) throw new Error(`${key}: not a field of the table`)
  return schema
}

/**
 * A response schema over the fields of `table`, named in wire order (a space-separated list, or several): each
 * answers its table type (a time as `Timestamp`, a JSON field parsed, `<field>Label` as `Label`) unless `more`
 * gives its schema (a description, a field the table does not hold). Names the table does not know and `more`
 * does not give fail to compile.
 */
export function responseSchema<
  T extends FieldTable,
  const K extends string,
  O extends Record<string, z.ZodType> = Record<never, z.ZodType>,
>(
  table: T,
  keys: (K | readonly K[]) &
    ([Exclude<Words<K>, keyof T | LabelKeys<T> | keyof O>] extends [never]
      ? unknown
      : `not a field: ${Exclude<Words<K>, keyof T | LabelKeys<T> | keyof O>}`),
  more?: O,
): z.ZodObject<ResponseShape<T, Words<K>, O>> {
  const shape: Record<string, z.ZodType> = {}
  for (const key of ([] as string[]).concat(keys).join(' ').split(' ')) {
    if (key) shape[key] = more?.[key] ?? wireOf(table, key)
  }
  return z.object(shape) as z.ZodObject<ResponseShape<T, Words<K>, O>>
}

/**
 * The longest `_like` filter value, in characters: a name or id is far shorter, and SQLite refuses LIKE patterns
 * beyond its own limit with an error, not an answer.
 */
export const LIKE_MAX = 256
/** A `_like` filter's text, bounded (400 PARAMETER_INVALID beyond LIKE_MAX). */
export const likeText = () =>
  z
    .string()
    .max(LIKE_MAX, { message: `at most ${LIKE_MAX} characters` })
    .optional()
