/** query/metrics.ts pure parts: formula alignment by time, and one compile per metric edit. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { compileFormula, FormulaError } from '../../query/formula.ts'
import { evaluateAligned, metricFormula, type MetricSpec } from '../../query/metrics.ts'
import type { Series } from '../../store/telemetry.ts'

const test = suite('metrics evaluation')

const run = (expr: string, inputs: string[], raw: Record<string, Series>) => {
  const out: Array<[number, number]> = []
  evaluateAligned(
    compileFormula(expr, [...Object.keys(raw), 'value']),
    inputs,
    new Map(Object.entries(raw)),
    (t, v) => out.push([t, v]),
  )
  return out
}

test('evaluateAligned :: only times where every input has a number; booleans count as 1/0; strings skip the time', () => {
  const raw = {
    a: { time: [1, 2, 3, 4, 6], value: [10, 20, 30, 'x', 60] },
    b: { time: [2, 3, 4, 5, 6], value: [true, 3, 4, 5, false] },
  }
  assert.equal(run('a * b', ['a', 'b'], raw), [
    [2, 20],
    [3, 90],
    [6, 0],
  ])
  assert.equal(run('a + 1', ['a'], raw), [
    [1, 11],
    [2, 21],
    [3, 31],
    [6, 61],
  ])
})

test('evaluateAligned :: non-finite results are left out; no input values, no results', () => {
  const raw = { a: { time: [1, 2, 3], value: [0, 1, -1] }, b: { time: [], value: [] } }
  assert.equal(run('1 / a', ['a'], raw), [
    [2, 1],
    [3, -1],
  ])
  assert.equal(
    run('sqrt(a)', ['a'], raw),
    [
      [1, 0],
      [2, 1],
    ],
    'sqrt(-1) is complex: not a number, left out',
  )
  assert.equal(run('a + b', ['a', 'b'], raw), [])
})

test('metricFormula :: compiled once per metric edit; an edit compiles again; a broken formula is its error', () => {
  const m: MetricSpec = {
    id: 7,
    metricType: 1,
    dataPointID: 'a',
    expressions: 'a * 2',
    aggregateType: null,
    aggregateData: null,
    window: null,
    updateAt: 'v1',
  }
  const f1 = metricFormula(m, ['a', 'b'])
  assert.ok(!(f1 instanceof FormulaError))
  assert.is(metricFormula(m, ['a', 'b']), f1, 'cached')
  const edited = metricFormula({ ...m, expressions: 'a * 3', updateAt: 'v2' }, ['a', 'b'])
  assert.is.not(edited, f1)
  assert.is((edited as { evaluate(s: Record<string, number>): number }).evaluate({ a: 2 }), 6)
  assert.instance(metricFormula({ ...m, id: 8, expressions: 'gone + 1' }, ['a']), FormulaError)
})

test('evaluateAligned :: a time where the formula throws is left out and its error answered', () => {
  const f = compileFormula('a + 1', ['a'])
  const flaky = {
    ...f,
    evaluate: (s: Record<string, number>) => (s.a === 2 ? f.evaluate(s) : boom()),
  }
  const out: Array<[number, number]> = []
  const raw = new Map(Object.entries({ a: { time: [1, 2, 3], value: [1, 2, 3] } }))
  const error = evaluateAligned(flaky, ['a'], raw, (t, v) => out.push([t, v]))
  assert.equal(out, [[2, 3]])
  assert.type(error, 'string')
  assert.ok(error!.length > 0)
  assert.is(
    evaluateAligned(f, ['a'], raw, () => {}),
    undefined,
  )
})

test('evaluateAligned :: dataPointIDs __proto__ and constructor are ordinary inputs', () => {
  const raw = {
    ['__proto__']: { time: [1, 2], value: [3, 4] },
    constructor: { time: [1, 2], value: [10, 20] },
  }
  const out: Array<[number, number]> = []
  evaluateAligned(
    compileFormula('dp("__proto__") + constructor', ['__proto__', 'constructor']),
    ['__proto__', 'constructor'],
    new Map(Object.entries(raw)),
    (t, v) => out.push([t, v]),
  )
  assert.equal(out, [
    [1, 13],
    [2, 24],
  ])
})

const boom = (): number => {
  throw new Error('Too few arguments in function pow')
}

test.run()
