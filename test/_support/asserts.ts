/** Assertions the suites of the routes and services share. */
import * as assert from 'uvu/assert'
import type { Client, Reply } from './service.ts'

/** A time as the API writes it. */
export const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/

/** Asserts a refusal: its status, its errorCode when one is given, and `errors` naming exactly `fields` (sorted). */
export function assertRefusal(r: Reply, status: number, fields: string[], errorCode?: string) {
  assert.is(r.status, status, r.text)
  if (errorCode !== undefined) assert.is(r.body.errorCode, errorCode, r.text)
  assert.equal(Object.keys(r.body.errors).sort(), fields, r.text)
}

/** Posts `text`, which is not JSON, to `path` as JSON: asserts 400 BAD_REQUEST and answers the reply. */
export async function postNotJson(c: Client, path: string, text: string) {
  const r = await c.call('POST', path, text, { 'content-type': 'application/json' })
  assert.is(r.status, 400, r.text)
  assert.is(r.body.errorCode, 'BAD_REQUEST', r.text)
  return r
}

/** Asserts a stored record's id (a number) and createAt (a time); answers its other fields, for an exact compare. */
export function restOf<T extends { id?: unknown; createAt?: unknown }>(record: T) {
  const { id, createAt, ...rest } = record
  assert.type(id, 'number')
  assert.match(String(createAt), TIME)
  return rest
}

/** Asserts the refusal of a name already taken: 400 DATA_EXISTED, `field` named as existing. */
export function assertTaken(r: Reply, field: string) {
  assert.is(r.status, 400, r.text)
  assert.equal(r.body, {
    errorCode: 'DATA_EXISTED',
    message: r.body.message,
    errors: { [field]: 'already exists' },
  })
}

/** Asserts the refusal of a malformed `ids` list: 400 PARAMETER_INVALID naming ids. */
export function assertBadIds(r: Reply) {
  assert.is(r.status, 400, r.text)
  assert.is(r.body.errorCode, 'PARAMETER_INVALID', r.text)
  assert.ok(r.body.errors.ids, r.text)
}
