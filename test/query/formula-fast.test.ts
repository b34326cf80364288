/**
 * The plain-closure evaluator of formulas against mathjs itself (same `predictable` instance settings): every
 * expression, on many inputs, gives exactly mathjs' number (NaN included; booleans as 1 and 0).
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { all, create } from 'mathjs'
import { compileFormula } from '../../query/formula.ts'

const math = create(all!, { predictable: true })
const fast = suite('formulas: closures equal mathjs')

const EXPRESSIONS = [
  'temp > 80',
  'temp > 80 and hum < 20',
  'temp >= 80 or not (hum <= 20)',
  'temp == hum',
  'temp != hum',
  'temp xor hum',
  '(temp - 32) * 5 / 9',
  'temp ^ 2 + hum ^ 0.5',
  '-temp + +hum',
  'abs(temp) + sqrt(hum) + exp(temp / 100)',
  'sin(temp) * cos(hum) - tan(temp / 1000)',
  'max(temp, hum, 3) - min(temp, hum)',
  'temp > 80 ? temp : hum',
  '1 < temp < 50',
  '0 <= temp <= hum',
  'temp / hum',
  'pi * e * temp',
  '(temp > 10) + (hum > 10)',
  'temp == 0.1 + 0.2',
  // a number or constant on the left, leaves in parentheses, two data points, a longer chain
  '80 < temp',
  '(temp) >= (80)',
  'temp > pi and hum <= -1',
  'temp >= hum',
  '0 < temp < hum < 100',
  '100 > temp >= hum',
]
const VALUES = [
  0, -0, 1, -1, 0.3, 0.1, 20, 50, 80, 80.0000000000001, 100, -273.15, 1e-16, 1e15,
  0.30000000000000004,
]

fast('each expression on every pair of sample values :: the same number as mathjs', () => {
  let compared = 0
  for (const expr of EXPRESSIONS) {
    const f = compileFormula(expr, ['temp', 'hum'])
    for (const temp of VALUES)
      for (const hum of VALUES) {
        const expected = math.evaluate(expr, { temp, hum }) as unknown
        const want = typeof expected === 'boolean' ? Number(expected) : (expected as number)
        const got = f.evaluate({ temp, hum })
        assert.ok(
          Object.is(got, want) || (got === 0 && want === 0),
          `${expr} @ ${temp}, ${hum}: ${got} vs ${want}`,
        )
        compared++
      }
  }
  assert.is(compared, EXPRESSIONS.length * VALUES.length ** 2)
})

fast('tolerant comparison :: 0.1 + 0.2 == 0.3 as in mathjs', () => {
  assert.is(compileFormula('x == 0.3', ['x']).evaluate({ x: 0.1 + 0.2 }), 1)
  assert.is(compileFormula('x > 0.3', ['x']).evaluate({ x: 0.1 + 0.2 }), 0)
})

fast(
  'valueIn :: the same number as evaluate, undefined (no throw) for a missing or non-numeric value',
  () => {
    // 'max' is evaluated by mathjs itself, the others by closures
    for (const expr of [
      'temp > 80 and hum < 20',
      '80 < temp',
      'max(temp, hum)',
      '1 < temp < hum',
    ]) {
      const f = compileFormula(expr, ['temp', 'hum'])
      for (const temp of VALUES)
        assert.ok(Object.is(f.valueIn({ temp, hum: 5 }), f.evaluate({ temp, hum: 5 })), expr)
      for (const id of f.symbols) {
        const without: Record<string, number> = { temp: 90, hum: 5 }
        delete without[id]
        assert.is(f.valueIn(without), undefined, `${expr} without ${id}`)
        assert.is(f.valueIn({ ...without, [id]: '5' as unknown as number }), undefined, expr)
        // an inherited property is not a value
        const inherited = Object.assign(Object.create({ [id]: 5 }), without)
        assert.is(f.valueIn(inherited), undefined, `${expr}: ${id} inherited`)
        assert.throws(() => f.evaluate(without), new RegExp(`no value for ${id}`), expr)
      }
    }
  },
)

fast(
  'a compiled formula called again :: each call reads its own values (the reused slots hold nothing over)',
  () => {
    const f = compileFormula('temp > hum', ['temp', 'hum'])
    assert.is(f.valueIn({ temp: 2, hum: 1 }), 1)
    assert.is(f.valueIn({ temp: 1 }), undefined)
    assert.is(f.valueIn({ temp: 1, hum: 2 }), 0)
  },
)

fast.run()
