import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  alertRuleErrors,
  compileCondition,
  fillContent,
  replay,
  replayNoData,
  step,
} from '../../../src/rules/alerts.ts'
import type { Formula } from '../../../query/formula.ts'

const ids = ['temp', 'hum']
const f = (expr: string) => compileCondition(expr, ids) as Formula

const rules = suite('alert rules (pure)')

rules('step :: waits for forSeconds, counts while open, clears after clearForSeconds', () => {
  const base = { forMs: 10, clearForMs: 5, clear: false }
  let s = step({ ...base, open: false, wait: null, raise: true, t: 0 })
  assert.equal(s, { action: 'none', wait: { phase: 'raise', since: 0 } })
  s = step({ ...base, open: false, wait: s.wait, raise: true, t: 10 })
  assert.equal(s, { action: 'raise', wait: null })
  assert.is(step({ ...base, open: true, wait: null, raise: true, t: 11 }).action, 'raise')
  s = step({ ...base, open: true, wait: null, raise: false, clear: true, t: 12 })
  assert.equal(s, { action: 'none', wait: { phase: 'clear', since: 12 } })
  assert.equal(step({ ...base, open: true, wait: s.wait, raise: false, clear: true, t: 17 }), {
    action: 'clear',
    wait: null,
  })
  assert.equal(step({ ...base, open: false, wait: s.wait, raise: false, t: 20 }), {
    action: 'none',
    wait: null,
  })
})

rules('replay :: alerts with start, end and count', () => {
  const rule = { raise: f('temp > 80'), clear: f('not (temp > 80)'), forMs: 0, clearForMs: 0 }
  const at = (t: number, temp: number) => ({ t, scope: { temp } })
  assert.equal(replay(rule, [at(1, 90), at(2, 95), at(3, 50), at(4, 85)]), [
    { startTime: 1, endTime: 3, alertTimes: 2 },
    { startTime: 4, endTime: null, alertTimes: 1 },
  ])
  assert.equal(replayNoData([5, 30, 32], 0, 60, 10), [
    { startTime: 15, endTime: 30, alertTimes: 1 },
    { startTime: 42, endTime: null, alertTimes: 1 },
  ])
})

rules('checks and template :: every failing field; placeholders filled', () => {
  assert.equal(alertRuleErrors({ condition: 'x > 1', clearCondition: 'temp.a' }, ids), {
    condition: 'unknown data point: x',
    clearCondition: 'property access is not allowed in a formula',
  })
  assert.equal(alertRuleErrors({ noDataSeconds: 5 }, ids), {})
  assert.is(
    fillContent('{deviceName}: {value:temp} / {value:nope}', 'dev', { temp: 81 }),
    'dev: 81 / ',
  )
})

rules.run()
