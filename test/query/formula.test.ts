import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { compileFormula, FormulaError } from '../../query/formula.ts'

const IDS = ['temp', 'hum', 't-1', 'value', 'sin', 'e']

const rejects = (expr: string, message?: RegExp) => {
  try {
    compileFormula(expr, IDS)
  } catch (e) {
    assert.instance(e, FormulaError, `${expr}: ${(e as Error).message}`)
    if (message) assert.match((e as Error).message, message, expr)
    return
  }
  assert.unreachable(`${expr} was accepted`)
}

const formula = suite('compileFormula')

formula('arithmetic over data points :: evaluates, lists the symbols once', () => {
  const f = compileFormula('temp * 1.8 + 32', IDS)
  assert.equal(f.symbols, ['temp'])
  assert.is(f.evaluate({ temp: 100 }), 212)
  assert.is(f.evaluate({ temp: -40 }), -40)
  const g = compileFormula('(temp + temp) / hum', IDS)
  assert.equal(g.symbols, ['temp', 'hum'])
  assert.is(g.evaluate({ temp: 3, hum: 2 }), 3)
})

formula('dp("t-1") for a dashed id :: rewritten to a safe symbol', () => {
  const f = compileFormula('dp("t-1") + hum', IDS)
  assert.equal(f.symbols, ['t-1', 'hum'])
  assert.is(f.evaluate({ 't-1': 2, hum: 5 }), 7)
  const same = compileFormula("dp('temp') * temp", IDS)
  assert.equal(same.symbols, ['temp'])
  assert.is(same.evaluate({ temp: 3 }), 9)
})

formula('math functions, constants, comparisons, conditionals :: allowed', () => {
  const f = compileFormula(
    'round(sqrt(pow(temp, 2)) + abs(-1) + max(hum, 3) + log10(100) + floor(1.7) + mod(7, 4), 2)',
    IDS,
  )
  assert.is(f.evaluate({ temp: 4, hum: 1 }), 4 + 1 + 3 + 2 + 1 + 3)
  const c = compileFormula('temp > 30 ? 1 : 0', IDS)
  assert.is(c.evaluate({ temp: 31 }), 1)
  assert.is(compileFormula('temp >= 30', IDS).evaluate({ temp: 1 }), 0)
  assert.ok(
    Math.abs(
      compileFormula('cos(pi) + exp(0) + log(1) + ceil(0.1) + 2 temp', IDS).evaluate({ temp: 1 }) -
        3,
    ) < 1e-12,
  )
})

formula('data point ids that shadow names :: the data point wins; constants not listed', () => {
  assert.is(compileFormula('sin(0) + sin', IDS).evaluate({ sin: 5 }), 5)
  assert.is(compileFormula('e * 2', IDS).evaluate({ e: 10 }), 20)
  const pi = compileFormula('pi * 1', IDS)
  assert.equal(pi.symbols, [])
  assert.ok(Math.abs(pi.evaluate({}) - Math.PI) < 1e-12)
})

formula('hostile inputs :: FormulaError', () => {
  for (const expr of [
    'import({}, {})',
    "createUnit('x')",
    'evaluate("1")',
    'parse("1")',
    'simplify("x")',
    'derivative("x", "x")',
    'compile("1")',
    'f(x) = x',
    'a = 1',
    'temp = 1',
    '[1,2]',
    '{}',
    '{a: 1}',
    'x.constructor',
    'temp.constructor',
    'temp["constructor"]',
    'cos.constructor("return process")',
    'cos.constructor("return process")()',
    'temp; hum',
    '1:3',
    'temp to cm',
    "temp'",
    '"abc"',
    'null',
    'factorial(3)',
    'dp(temp)',
    'dp("t-1", "x")',
    'chain(1)',
    'typeOf(1)',
  ])
    rejects(expr)
})

formula('forbidden constructs :: messages name them', () => {
  rejects('f(x) = x', /function definition/)
  rejects('a = 1', /assignment/)
  rejects('x.y', /property access/)
  rejects('[1]', /array/)
  rejects('{}', /object/)
  rejects('import({}, {})', /function import is not allowed/)
})

formula('syntax errors :: FormulaError with the parser message', () => {
  rejects('temp *', /Unexpected end of expression/)
  rejects('(temp', /Parenthesis/)
})

formula('unknown symbols :: all named, dp() ids too', () => {
  rejects('temp + pressure * foo', /unknown data point: pressure, foo/)
  rejects('dp("nope")', /nope/)
  rejects('5 cm', /cm/)
})

formula('too long :: FormulaError', () => {
  rejects('1+'.repeat(600) + '1', /at most 1000/)
})

formula('evaluation edges :: missing value throws, non-real results are NaN', () => {
  const f = compileFormula('temp + hum', IDS)
  assert.throws(
    () => f.evaluate({ temp: 1 }),
    (e: Error) => e instanceof FormulaError && /hum/.test(e.message),
  )
  assert.ok(Number.isNaN(compileFormula('sqrt(-1)', IDS).evaluate({})))
  assert.is(compileFormula('1 / 0', IDS).evaluate({}), Infinity)
})

formula('compiled once :: many evaluations are fast', () => {
  const f = compileFormula('temp * 1.8 + 32', IDS)
  const start = performance.now()
  let sum = 0
  for (let i = 0; i < 100_000; i++) sum += f.evaluate({ temp: i })
  assert.ok(sum > 0)
  assert.ok(performance.now() - start < 2000, 'under 20 µs per evaluation')
})

formula('functions called with the wrong arguments :: FormulaError naming the function', () => {
  rejects('pow(temp)', /pow takes 2 arguments, not 1/)
  rejects('atan2(temp)', /atan2 takes 2 arguments/)
  rejects('sqrt(temp, 1)', /sqrt takes 1 argument, not 2/)
  rejects('abs()', /abs takes 1 argument, not 0/)
  rejects('log(temp, 2, 3)', /log takes 1 to 2 arguments/)
  rejects('max()', /max takes at least 1 argument/)
  for (const expr of [
    'round(temp, -1)',
    'round(temp, 1e9)',
    'round(temp, 1.5)',
    'round(temp, hum)',
  ])
    rejects(expr, /decimals of round/)
  rejects('floor(temp, 16)', /decimals of floor/)
  assert.is(
    compileFormula('round(temp, 15) + pow(temp, 2) + max(temp)', IDS).evaluate({ temp: 2 }),
    8,
  )
})

formula.run()
