import type { z } from 'zod'
import { enumerations, type EnumName } from '../enums.ts'
import { formatTime } from '../kernel/time.ts'

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
  for (const form of Object.keys(forms) as F[]) {
    const ops = compile(Object.keys(forms[form].shape), spec)
    out[form] = (record, ctx) => {
      const row = record as Row
      const o: Row = {}
      for (const [key, op] of ops) o[key] = op(row, ctx)
      return o
    }
  }
  return out
}
