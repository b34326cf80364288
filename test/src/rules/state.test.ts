import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  changedKeys,
  deltaOf,
  jsonEqual,
  mergePatch,
  patchProblems,
  stateBytes,
  type JsonObject,
} from '../../../src/rules/state.ts'

const merge = suite('state rules: JSON merge patch (RFC 7396)')

merge('objects merge key by key, null deletes, arrays and scalars replace', () => {
  const target: JsonObject = { a: 1, b: { c: 2, d: [1, 2] }, e: 'x' }
  const out = mergePatch(target, { a: null, b: { c: 3, d: [9] }, f: { g: true } })
  assert.equal(out, { b: { c: 3, d: [9] }, e: 'x', f: { g: true } })
  assert.equal(target, { a: 1, b: { c: 2, d: [1, 2] }, e: 'x' }, 'the target is not changed')
})

merge('RFC 7396 appendix A cases', () => {
  const cases: Array<[JsonObject, JsonObject, JsonObject]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ]
  for (const [target, patch, want] of cases) assert.equal(mergePatch(target, patch), want)
})

merge('a null inside an array is kept (arrays replace whole)', () => {
  assert.equal(mergePatch({}, { a: [null, 1] }), { a: [null, 1] })
})

const delta = suite('state rules: delta')

delta('deep, key by key; a key missing from reported differs; equal values drop out', () => {
  const desired: JsonObject = {
    t: 21,
    mode: 'eco',
    net: { ssid: 'a', ch: 6 },
    list: [1, 2],
    empty: {},
  }
  const reported: JsonObject = {
    t: 19,
    mode: 'eco',
    net: { ssid: 'a', ch: 11 },
    list: [1, 2],
    extra: 1,
  }
  assert.equal(deltaOf(desired, reported), { t: 21, net: { ch: 6 }, empty: {} })
})

delta('empty once reported holds every desired value (objects regardless of key order)', () => {
  assert.equal(
    deltaOf({ a: { x: 1, y: [1, { z: 2 }] } }, { a: { y: [1, { z: 2 }], x: 1 }, b: 2 }),
    {},
  )
})

delta('an array differs by element; an object against a scalar differs whole', () => {
  assert.equal(deltaOf({ a: [1, 2] }, { a: [2, 1] }), { a: [1, 2] })
  assert.equal(deltaOf({ a: { b: 1 } }, { a: 5 }), { a: { b: 1 } })
  assert.equal(deltaOf({ a: 5 }, { a: { b: 1 } }), { a: 5 })
})

delta('changedKeys: added, changed and deleted top-level keys, sorted', () => {
  assert.equal(changedKeys({ a: 1, b: { c: 1 }, d: 1 }, { a: 1, b: { c: 2 }, e: 1 }), [
    'b',
    'd',
    'e',
  ])
  assert.ok(jsonEqual({ a: [1, { b: null }] }, { a: [1, { b: null }] }))
  assert.not.ok(jsonEqual({ a: 1 }, { a: 1, b: undefined as unknown as null }))
})

const limits = suite('state rules: limits')

/** An object nested `levels` deep (the side's own object is level 1). */
const nested = (levels: number): JsonObject => {
  let v: JsonObject = { leaf: 1 }
  for (let i = 1; i < levels; i++) v = { [`k${i}`]: v }
  return v
}

limits('depth 6 is fine, depth 7 names the key that goes too deep', () => {
  assert.equal(patchProblems('desired', nested(6)), {})
  const p = patchProblems('desired', nested(7))
  assert.equal(Object.keys(p), ['desired.k6.k5.k4.k3.k2.k1'])
  assert.match(p['desired.k6.k5.k4.k3.k2.k1']!, /deeper than 6/)
})

limits('arrays count as levels', () => {
  // the side (1) > a's array (2) > its object (3) > b's arrays (4, 5, 6): fine; one more array: 7
  assert.equal(patchProblems('reported', { a: [{ b: [[[1]]] }] }), {})
  assert.equal(Object.keys(patchProblems('reported', { a: [{ b: [[[[1]]]] }] })), [
    'reported.a.0.b.0.0.0',
  ])
})

limits(
  'keys: not empty, at most 128 characters, no leading $ (at any depth); every one named',
  () => {
    const p = patchProblems('desired', {
      $version: 1,
      ok: { $meta: 1, ['x'.repeat(129)]: 2, ['y'.repeat(128)]: 3 },
      '': 1,
    })
    assert.equal(Object.keys(p).sort(), [
      'desired.',
      'desired.$version',
      'desired.ok.$meta',
      `desired.ok.${'x'.repeat(129)}`,
    ])
  },
)

limits('stateBytes counts UTF-8 bytes of compact JSON', () => {
  assert.is(stateBytes({ a: 'é' }), '{"a":"é"}'.length + 1)
  assert.is(stateBytes({}), 2)
})

merge.run()
delta.run()
limits.run()
