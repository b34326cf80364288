import type { z } from 'zod'
import { enumerations, type EnumName } from '../enums.ts'
import { jsonFields, labelFields, timeFields } from '../../store/fields/table.ts'
import type { FieldTable, RecordOf } from '../../store/fields/table.ts'
import {
  compileProjection,
  projection,
  type FieldOp,
  type Lang,
  type Projection,
  type ProjectionCtx,
  type Row,
} from '../kernel/projection.ts'

export type { Lang, Row }

/** What a serializer needs to know about the caller: label language, time zone, whether it reads secrets. */
export type WireCtx = ProjectionCtx

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

/** A field table's wire: its labels, times and JSON fields (store/fields), plus `more` (e.g. secrets). */
export function wireSpecOf(table: FieldTable, more: WireSpec = {}): WireSpec {
  return {
    labels: labelFields(table) as Record<string, EnumName>,
    times: timeFields(table),
    json: jsonFields(table),
    ...more,
  }
}

/** The projection of a form's `keys` under `spec` (src/kernel/projection.ts). */
function projectionOf(keys: readonly string[], spec: WireSpec): Projection {
  const times = new Set(spec.times ?? [])
  const json = new Set(spec.json ?? [])
  const secret = new Set(spec.secret ?? [])
  return projection(
    keys.map((key): FieldOp => {
      if (secret.has(key)) return { key, op: 'secret' }
      const labelOf = key.endsWith('Label') ? spec.labels?.[key.slice(0, -5)] : undefined
      if (labelOf) {
        const labels = enumerations[labelOf] as Record<string, Record<Lang, string>>
        return { key, op: 'label', from: key.slice(0, -5), labels }
      }
      if (times.has(key)) return { key, op: 'time' }
      if (json.has(key)) return { key, op: 'json' }
      return { key, op: 'copy' }
    }),
  )
}

/**
 * A serializer of one form, with its projection when it is made of one (createSerializer's are; a hand-written
 * one has none): a store that answers a read as text in that projection (`ProjectedReads`) writes the JSON the
 * serializer's answer would serialize to.
 */
export type Shaper<I, O> = ((row: I, ctx: WireCtx) => O) & { readonly projection?: Projection }

const shaperOf = (p: Projection): Shaper<object, Row> & { projection: Projection } =>
  Object.assign(compileProjection(p), { projection: p })

/** One serializer per form (list, detail, write ...): the form's zod object gives the fields and their order. */
export type Serializer<F extends string> = Record<
  F,
  Shaper<object, Row> & { projection: Projection }
>

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
    out[form] = shaperOf(projectionOf(Object.keys(forms[form].shape), spec))
  return out
}

/** The fields a form answers that record `R` does not hold (its `<field>Label`s aside): must be none. */
type Unheld<R, F> = F extends z.ZodObject
  ? Exclude<keyof F['shape'], keyof R | `${string}Label`>
  : never

/** One typed serializer per form: a record `R` in, the form's output (what its route answers) out. */
export type RecordSerializer<R, Forms extends Record<string, z.ZodObject>> = {
  [F in keyof Forms]: Shaper<R, z.output<Forms[F]>>
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
    const out: Record<string, Shaper<R, unknown>> = createSerializer(forms, spec)
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
