import type { FieldErrors } from '../kernel/errors.ts'
import { compileFormula, FormulaError, type Formula } from '../../query/formula.ts'

/** The fields the alert rule checks read (a create body, or the stored record merged with an edit). */
export interface AlertRuleFields {
  condition?: string | null
  clearCondition?: string | null
  noDataSeconds?: number | null
}

const given = (s: string | null | undefined): s is string =>
  typeof s === 'string' && s.trim() !== ''

/** Without a clearCondition, an alert clears when its condition no longer holds. */
export const defaultClear = (condition: string) => `not (${condition})`

/**
 * Compiles a condition over the product's dataPointIDs with the restricted formula language (the one of formula
 * metrics): the error names what is wrong, including names that are not data points of the product and a
 * condition reading none.
 */
export function compileCondition(
  expr: string,
  dataPointIDs: readonly string[],
): Formula | { error: string } {
  try {
    const f = compileFormula(expr, dataPointIDs)
    if (!f.symbols.length) return { error: 'must read at least one data point' }
    return f
  } catch (e) {
    if (e instanceof FormulaError) return { error: e.message }
    throw e
  }
}

/**
 * A rule watches a condition or a no-data period, not both; each formula compiles over the product's data
 * points. Returns every failing field.
 */
export function alertRuleErrors(r: AlertRuleFields, dataPointIDs: readonly string[]): FieldErrors {
  const errors: FieldErrors = {}
  const noData = r.noDataSeconds !== null && r.noDataSeconds !== undefined
  if (!given(r.condition) && !noData) errors.condition = 'required (or noDataSeconds)'
  if (given(r.condition) && noData)
    errors.noDataSeconds = 'a rule has either a condition or noDataSeconds'
  for (const field of ['condition', 'clearCondition'] as const) {
    const expr = r[field]
    if (!given(expr)) continue
    const f = compileCondition(expr, dataPointIDs)
    if ('error' in f) errors[field] = f.error
  }
  if (given(r.clearCondition) && !given(r.condition))
    errors.clearCondition ??= 'only with a condition'
  return errors
}

/** True when a condition's value holds: a non-zero number (comparisons and logic give 1 or 0). */
export const holds = (v: number) => Number.isFinite(v) && v !== 0

/** `{deviceName}` and `{value:<dataPointID>}` filled in (unknown values leave an empty string). */
export function fillContent(
  template: string,
  deviceName: string,
  values: Readonly<Record<string, unknown>>,
): string {
  return template.replace(/\{(deviceName|value:([^{}]+))\}/g, (_, whole: string, id?: string) => {
    if (whole === 'deviceName') return deviceName
    const v = values[id!.trim()]
    return v === undefined || v === null
      ? ''
      : typeof v === 'object'
        ? JSON.stringify(v)
        : // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a scalar here: objects went to JSON
          String(v)
  })
}

/** A wait in progress: the condition (raise) or the clear condition (clear) has held since `since`. */
export interface Wait {
  phase: 'raise' | 'clear'
  since: number
}

/** What one evaluation of a (rule, device) sees. */
export interface StepInput {
  /** An alert of the rule is open for the device. */
  open: boolean
  wait: Wait | null
  /** The condition holds. */
  raise: boolean
  /** The clear condition holds. */
  clear: boolean
  /** Epoch ms of the evaluation. */
  t: number
  forMs: number
  clearForMs: number
}

/**
 * The lifecycle of one (rule, device): a closed alert opens once the condition held for forSeconds; an open one
 * counts every matching evaluation and clears once the clear condition held for clearForSeconds. Answers what to
 * do and the wait to keep (null: none).
 */
export function step(s: StepInput): { action: 'raise' | 'clear' | 'none'; wait: Wait | null } {
  if (!s.open || s.raise) {
    if (!s.raise) return { action: 'none', wait: null }
    if (s.open || s.forMs <= 0) return { action: 'raise', wait: null }
    const since = s.wait?.phase === 'raise' ? s.wait.since : s.t
    if (s.t - since >= s.forMs) return { action: 'raise', wait: null }
    return { action: 'none', wait: { phase: 'raise', since } }
  }
  if (!s.clear) return { action: 'none', wait: null }
  if (s.clearForMs <= 0) return { action: 'clear', wait: null }
  const since = s.wait?.phase === 'clear' ? s.wait.since : s.t
  if (s.t - since >= s.clearForMs) return { action: 'clear', wait: null }
  return { action: 'none', wait: { phase: 'clear', since } }
}

/** An alert a dry run found: endTime null when it was still open at the end of the range. */
export interface DryRunAlert {
  startTime: number
  endTime: number | null
  alertTimes: number
}

/** The rule as a dry run (and the engine) evaluates it. */
export interface CompiledRule {
  raise: Formula
  clear: Formula
  forMs: number
  clearForMs: number
}

/**
 * Replays a condition rule over a device's values (time ascending; each entry the latest value of every data
 * point so far): the alerts it would have raised.
 */
export function replay(
  rule: CompiledRule,
  timeline: ReadonlyArray<{ t: number; scope: Record<string, number> }>,
): DryRunAlert[] {
  const out: DryRunAlert[] = []
  let current: DryRunAlert | null = null
  let wait: Wait | null = null
  for (const { t, scope } of timeline) {
    const raise = evaluate(rule.raise, scope)
    const clear = evaluate(rule.clear, scope)
    if (raise === undefined || clear === undefined) continue
    const r = step({
      open: !!current,
      wait,
      raise,
      clear,
      t,
      forMs: rule.forMs,
      clearForMs: rule.clearForMs,
    })
    wait = r.wait
    if (r.action === 'raise') {
      if (current) current.alertTimes++
      else out.push((current = { startTime: t, endTime: null, alertTimes: 1 }))
    } else if (r.action === 'clear' && current) {
      current.endTime = t
      current = null
    }
  }
  return out
}

/** A no-data rule over a device's uplink times in [start, end): each silence longer than `noDataMs`. */
export function replayNoData(
  times: readonly number[],
  start: number,
  end: number,
  noDataMs: number,
): DryRunAlert[] {
  const out: DryRunAlert[] = []
  let last = start
  for (const t of [...times, end]) {
    if (t - last > noDataMs)
      out.push({ startTime: last + noDataMs, endTime: t === end ? null : t, alertTimes: 1 })
    last = t
  }
  return out
}

/** A formula's truth over a scope; undefined when a value it reads is missing or the formula throws. */
export function evaluate(f: Formula, scope: Record<string, number>): boolean | undefined {
  try {
    const v = f.valueIn(scope)
    return v === undefined ? undefined : holds(v)
  } catch {
    return undefined
  }
}
