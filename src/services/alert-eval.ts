import type { StoredValue } from '../kernel/events.ts'
import type {
  AlertInput,
  AlertRef,
  AlertRuleRecord,
  AlertState,
  ClearReason,
  IngestDevice,
  ModelPoint,
} from '../../store/types.ts'
import type { Formula } from '../../query/formula.ts'
import { compileCondition, defaultClear, evaluate, fillContent, step } from '../rules/alerts.ts'

/** Built-in alerts: severity 2 (major), named after the data point. */
const BUILT_IN_SEVERITY = 2
/** pointDataType of fault points. */
const FAULT = 4

/** An enabled rule with its formulas compiled (once per edit); a no-data rule has none. */
export interface LiveRule {
  record: AlertRuleRecord
  raise: Formula | null
  clear: Formula | null
  /** The data points either formula reads. */
  reads: string[]
}

/** Compiles a stored rule; undefined (skipped) when its formulas no longer compile (a data point was removed). */
export function compileRule(r: AlertRuleRecord, ids: readonly string[]): LiveRule | undefined {
  if (!r.condition) return { record: r, raise: null, clear: null, reads: [] }
  const raise = compileCondition(r.condition, ids)
  const clear = compileCondition(r.clearCondition || defaultClear(r.condition), ids)
  if ('error' in raise || 'error' in clear) return undefined
  return { record: r, raise, clear, reads: [...new Set([...raise.symbols, ...clear.symbols])] }
}

/** The numeric scope of formulas: numbers as they are, booleans as 1 and 0, other values left out. */
export function scopeOf(values: ReadonlyMap<string, StoredValue['value']>): Record<string, number> {
  const scope: Record<string, number> = Object.create(null) // keys are dataPointIDs
  for (const [id, v] of values) {
    if (typeof v === 'number') scope[id] = v
    else if (typeof v === 'boolean') scope[id] = v ? 1 : 0
  }
  return scope
}

/**
 * The limit and fault alerts of one device's values: a numeric value above upperLimit or below lowerLimit, a
 * fault point's value equal to its faultValue. Answers the alerts to raise and the names of the points whose
 * latest value here is back to normal (their open built-in alert clears).
 */
export function builtInAlerts(
  d: IngestDevice,
  model: readonly ModelPoint[],
  values: readonly StoredValue[],
  t: number,
): { raise: AlertInput[]; ok: string[] } {
  const byID = new Map(model.map((p) => [p.dataPointID, p]))
  const verdict = new Map<ModelPoint, { bad: string | null; value: StoredValue['value'] }>()
  for (const v of values) {
    const p = byID.get(v.dataPointID)
    if (!p) continue
    const bad = violation(p, v.value)
    if (bad !== undefined) verdict.set(p, { bad, value: v.value })
  }
  const raise: AlertInput[] = []
  const ok: string[] = []
  for (const [p, { bad, value }] of verdict) {
    if (bad === null) {
      ok.push(p.dataPointName)
      continue
    }
    raise.push({
      tenantID: d.tenantID,
      alertName: p.dataPointName,
      alertContent: `${p.dataPointID} ${bad}`,
      alertSeverity: BUILT_IN_SEVERITY,
      alertDetail: { [p.dataPointID]: value },
      deviceIntID: d.id,
      deviceID: d.deviceID,
      deviceName: d.deviceName,
      time: t,
    })
  }
  return { raise, ok }
}

/** What is wrong with a value (null: nothing); undefined when the point has no limit or fault value. */
function violation(p: ModelPoint, v: StoredValue['value']): string | null | undefined {
  if (p.pointDataType === FAULT) {
    if (p.faultValue === null || p.faultValue === undefined || p.faultValue === '') return undefined
    return String(v) === String(p.faultValue) ? `fault ${String(v)}` : null
  }
  if (p.upperLimit === null && p.lowerLimit === null) return undefined
  if (typeof v !== 'number') return undefined
  if (p.upperLimit !== null && v > p.upperLimit) return `${v} above upperLimit ${p.upperLimit}`
  if (p.lowerLimit !== null && v < p.lowerLimit) return `${v} below lowerLimit ${p.lowerLimit}`
  return null
}

/** What one evaluation turn writes. */
export interface Outcome {
  t: number
  raise: AlertInput[]
  close: Map<number, ClearReason>
  /** Alerts opened and cleared within the same turn (their ids are known once opened). */
  closeRaised: Array<{ ruleID: number; deviceIntID: number }>
  put: AlertState[]
  drop: Array<{ ruleID: number; deviceIntID: number }>
}

/** What one device's evaluation reads. */
export interface DeviceTurn {
  d: IngestDevice
  /** Its uplinks of the turn, in order. */
  uplinks: StoredValue[][]
  /** Its open alerts and pending waits. */
  open: AlertRef[]
  waits: AlertState[]
  model: readonly ModelPoint[]
  /** The latest value of each of its data points (updated here). */
  last: Map<string, StoredValue['value']>
  /** The enabled rules watching it. */
  live: LiveRule[]
}

/**
 * One device's uplinks in order: its built-in alerts, then each rule's lifecycle step per uplink (no-data rules
 * note the uplink and clear). Adds what to write to `out`.
 */
export function stepDevice(
  { d, uplinks, open, waits, model, last, live }: DeviceTurn,
  out: Outcome,
) {
  const { t } = out
  /** Per rule: whether its alert is open here, and its wait. */
  const state = new Map(
    live.map((r) => [
      r.record.id,
      {
        open: open.find((a) => a.ruleID === r.record.id),
        wait: waits.find((s) => s.ruleID === r.record.id) ?? null,
        changed: false,
      },
    ]),
  )
  for (const vals of uplinks) {
    const built = builtInAlerts(d, model, vals, t)
    out.raise.push(...built.raise)
    for (const name of built.ok) {
      const a = open.find((x) => x.ruleID === null && x.alertName === name)
      if (a) out.close.set(a.id, 'condition')
    }
    for (const v of vals) last.set(v.dataPointID, v.value)
    const touched = new Set(vals.map((v) => v.dataPointID))
    const scope = scopeOf(last)
    for (const rule of live) {
      const s = state.get(rule.record.id)!
      if (!rule.raise) {
        // a no-data rule: the device sent something
        if (s.open) out.close.set(s.open.id, 'condition')
        s.open = undefined
        s.wait = {
          ruleID: rule.record.id,
          deviceIntID: d.id,
          phase: 'seen',
          since: t,
          detail: null,
        }
        s.changed = true
        continue
      }
      if (!rule.reads.some((id) => touched.has(id))) continue
      const r = evaluate(rule.raise, scope)
      // the clear condition only matters while an alert is open
      const c = s.open ? evaluate(rule.clear!, scope) : false
      if (r === undefined || c === undefined) continue
      const next = step({
        open: !!s.open,
        wait:
          s.wait && s.wait.phase !== 'seen' ? { phase: s.wait.phase, since: s.wait.since } : null,
        raise: r,
        clear: c,
        t,
        forMs: rule.record.forSeconds * 1000,
        clearForMs: rule.record.clearForSeconds * 1000,
      })
      const before = s.wait && s.wait.phase !== 'seen' ? s.wait : null
      const same =
        (!before && !next.wait) ||
        (before &&
          next.wait &&
          before.phase === next.wait.phase &&
          before.since === next.wait.since)
      if (same && next.action === 'none') continue // nothing changed: nothing to write (the common case)
      const detail = Object.fromEntries(rule.reads.map((id) => [id, last.get(id) ?? null]))
      const key = { ruleID: rule.record.id, deviceIntID: d.id }
      s.wait = next.wait ? { ...key, ...next.wait, detail } : null
      s.changed = true
      if (next.action === 'raise') {
        out.raise.push(ruleAlert(rule.record, d, detail, t))
        s.open ??= { id: 0 } as AlertRef
      }
      if (next.action === 'clear' && s.open) {
        if (s.open.id) out.close.set(s.open.id, 'condition')
        else out.closeRaised.push({ ruleID: rule.record.id, deviceIntID: d.id })
        s.open = undefined
      }
    }
  }
  for (const [ruleID, s] of state) {
    if (!s.changed) continue
    if (s.wait) out.put.push(s.wait)
    else out.drop.push({ ruleID, deviceIntID: d.id })
  }
}

/** The alert a rule raises for a device. */
export function ruleAlert(
  rule: AlertRuleRecord,
  d: IngestDevice,
  detail: Record<string, unknown>,
  t: number,
): AlertInput {
  return {
    tenantID: d.tenantID,
    ruleID: rule.id,
    alertName: rule.ruleName,
    alertContent: rule.alertContent
      ? fillContent(rule.alertContent, d.deviceName, detail)
      : rule.condition,
    alertSeverity: rule.alertSeverity,
    alertDetail: detail,
    deviceIntID: d.id,
    deviceID: d.deviceID,
    deviceName: d.deviceName,
    time: t,
  }
}
