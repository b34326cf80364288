/**
 * The rules of a device's state document (README "Desired state"): JSON merge patches (RFC 7396) of `desired` and
 * `reported`, their limits, and the `delta` between them. Pure functions over parsed JSON; the state service
 * (src/services/state.ts) applies them and stores the result.
 */
import type { FieldErrors } from '../kernel/errors.ts'

/** A JSON value as JSON.parse gives it. */
export type Json = null | boolean | number | string | Json[] | JsonObject
export interface JsonObject {
  [key: string]: Json
}

/** What a side (`desired`, `reported`) may hold: compact JSON bytes, nesting levels, key length. */
export const STATE_LIMITS = { bytes: 16 * 1024, depth: 6, keyLength: 128 } as const

export type StateSide = 'desired' | 'reported'

export const isObject = (v: unknown): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** Whether `v` is JSON data (what JSON.parse can give: finite numbers, no undefined), at most 64 levels deep. */
export function isJson(v: unknown, level = 0): v is Json {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true
  if (typeof v === 'number') return Number.isFinite(v)
  if (typeof v !== 'object' || level > 64) return false
  return (Array.isArray(v) ? v : Object.values(v)).every((x) => isJson(x, level + 1))
}

/**
 * What is wrong with a merge patch of one side, by the path of each key at fault (`desired.a.b`): keys of 1 to 128
 * characters that do not start with `$`, at most STATE_LIMITS.depth levels of objects and arrays (the side's own
 * object is the first). Empty when the patch is fine.
 */
export function patchProblems(side: StateSide, patch: JsonObject): FieldErrors {
  const errors: FieldErrors = {}
  const visit = (v: Json, path: string, level: number) => {
    if (typeof v !== 'object' || v === null) return
    if (level > STATE_LIMITS.depth) {
      errors[path] ??= `nested deeper than ${STATE_LIMITS.depth} levels`
      return
    }
    if (Array.isArray(v)) {
      v.forEach((item, i) => visit(item, `${path}.${i}`, level + 1))
      return
    }
    for (const [key, value] of Object.entries(v)) {
      const at = `${path}.${key}`
      if (key.length < 1 || key.length > STATE_LIMITS.keyLength)
        errors[at] = `a key has 1 to ${STATE_LIMITS.keyLength} characters`
      else if (key.startsWith('$')) errors[at] = 'a key may not start with $'
      else visit(value, at, level + 1)
    }
  }
  visit(patch, side, 1)
  return errors
}

/**
 * `target` with the merge patch `patch` applied (RFC 7396): objects merge key by key, `null` deletes a key, anything
 * else (arrays, scalars) replaces. `target` is not changed; unchanged parts are shared with the result.
 */
export function mergePatch(target: JsonObject, patch: JsonObject): JsonObject {
  const out: JsonObject = { ...target }
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key]
    else if (isObject(value)) {
      const current = out[key]
      out[key] = mergePatch(isObject(current) ? current : {}, value)
    } else out[key] = value
  }
  return out
}

/** Whether two JSON values are equal (objects regardless of key order). */
export function jsonEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    return a.every((x, i) => jsonEqual(x, b[i]))
  }
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  return keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]))
}

/**
 * The parts of `desired` that differ from `reported`, deep, key by key: where both hold an object the delta is the
 * delta of the two (left out when empty); any other value is in the delta unless `reported` holds an equal one (a key
 * missing from `reported` differs).
 */
export function deltaOf(desired: JsonObject, reported: JsonObject): JsonObject {
  const out: JsonObject = {}
  for (const [key, want] of Object.entries(desired)) {
    const has = reported[key]
    if (isObject(want) && isObject(has)) {
      const inner = deltaOf(want, has)
      if (Object.keys(inner).length) out[key] = inner
    } else if (!jsonEqual(want, has)) out[key] = want
  }
  return out
}

/** The top-level keys whose value differs between `before` and `after` (added, changed or deleted), sorted. */
export function changedKeys(before: JsonObject, after: JsonObject): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)])
  return [...keys].filter((k) => !jsonEqual(before[k], after[k])).sort()
}

const utf8 = new TextEncoder()

/** The bytes of a side as compact JSON (UTF-8): what STATE_LIMITS.bytes bounds. */
export const stateBytes = (side: JsonObject): number => utf8.encode(JSON.stringify(side)).length
