import type { FieldErrors } from '../kernel/errors.ts'
import { compileFormula, FormulaError } from '../../query/formula.ts'

/** The fields the metric rules read (a create body with defaults, or the stored record merged with an edit). */
export interface MetricFields {
  metricType?: number | null
  expressions?: string | null
  aggregateType?: number | null
  aggregateData?: number | null
  aggregateInterval?: string | null
}

/** A data point as the formula check sees it. */
export interface PointKey {
  id: number
  dataPointID: string
}

/** The symbol a formula uses for the metric's own data point. */
export const OWN_POINT = 'value'

const given = (s: string | null | undefined): s is string =>
  typeof s === 'string' && s.trim() !== ''

/** On create, metricType may be omitted: 1 when expressions is given, else 2. */
export function defaultMetricType(m: MetricFields): number {
  return m.metricType ?? (given(m.expressions) ? 1 : 2)
}

/** metricType 1 "formula": a formula metric needs its expressions. */
export function expressionsRequired(m: MetricFields): FieldErrors {
  return m.metricType === 1 && !given(m.expressions)
    ? { expressions: 'required for a formula metric (metricType 1)' }
    : {}
}

/** metricType 2 "aggregate" with aggregateType 1 to 4: an aggregate metric needs it. */
export function aggregateTypeRequired(m: MetricFields): FieldErrors {
  return m.metricType === 2 && (m.aggregateType === null || m.aggregateType === undefined)
    ? { aggregateType: 'required for an aggregate metric (metricType 2)' }
    : {}
}

/** aggregateData 1 aggregates the formula's values, so there must be a formula. */
export function formulaForAggregateData(m: MetricFields): FieldErrors {
  return m.aggregateData === 1 && !given(m.expressions)
    ? { expressions: 'required when aggregateData is 1 (formula value)' }
    : {}
}

/** aggregateInterval is an aggregate metric's window: a formula metric has none. */
export function windowOnlyForAggregates(m: MetricFields): FieldErrors {
  return m.metricType !== 2 && given(m.aggregateInterval)
    ? { aggregateInterval: 'only an aggregate metric (metricType 2) has a window' }
    : {}
}

/**
 * expressions is a mathjs expression over the product's dataPointIDs and `value` (the metric's own
 * point). Returns the ids of the data points it reads, or the error naming what is wrong.
 */
export function checkFormula(
  expr: string,
  own: PointKey,
  points: readonly PointKey[],
): { reads: number[] } | { error: string } {
  try {
    const { symbols } = compileFormula(expr, [...points.map((p) => p.dataPointID), OWN_POINT])
    const byID = new Map(points.map((p) => [p.dataPointID, p.id]))
    const reads = symbols.map((s) => (s === OWN_POINT ? own.id : byID.get(s)!))
    return { reads: [...new Set(reads)] }
  } catch (e) {
    if (e instanceof FormulaError) return { error: e.message }
    throw e
  }
}

/** Every metric rule: the errors (empty when valid) and the data points the formula reads. */
export function metricErrors(
  m: MetricFields,
  own: PointKey,
  points: readonly PointKey[],
): { errors: FieldErrors; reads: number[] } {
  const errors = {
    ...expressionsRequired(m),
    ...aggregateTypeRequired(m),
    ...formulaForAggregateData(m),
    ...windowOnlyForAggregates(m),
  }
  if (!given(m.expressions) || errors.expressions) return { errors, reads: [] }
  const formula = checkFormula(m.expressions, own, points)
  if ('error' in formula) return { errors: { ...errors, expressions: formula.error }, reads: [] }
  return { errors, reads: formula.reads }
}
