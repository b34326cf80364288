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
import {
  compileCondition,
  defaultClear,
  evaluate,
  fillContent,
  step,
  type Wait,
} from '../rules/alerts.ts'
import {
  rulesFor,
  setLatest,
  type DeviceAlerts,
  type DeviceLatest,
  type LiveRule,
  type ProductRules,
} from './alert-index.ts'

/** Built-in alerts: severity 2 (major), named after the data point. */
const BUILT_IN_SEVERITY = 2
/** pointDataType of fault points. */
const FAULT = 4

/** Compiles a condition over the product's dataPointIDs (a cache may answer for formulas seen before). */
export type ConditionCompiler = (expr: string) => Formula | { error: string }

/** Compiles a stored rule; undefined (skipped) when its formulas no longer compile (a data point was removed). */
export function compileRule(
  r: AlertRuleRecord,
  ids: readonly string[],
  compile: ConditionCompiler = (expr) => compileCondition(expr, ids),
): LiveRule | undefined {
  const devices = r.deviceIntIDs ? new Set(r.deviceIntIDs) : null
  if (!r.condition) return { record: r, raise: null, clear: null, reads: [], devices }
  const raise = compile(r.condition)
  const clear = compile(r.clearCondition || defaultClear(r.condition))
  if ('error' in raise || 'error' in clear) return undefined
  const reads = [...new Set([...raise.symbols, ...clear.symbols])]
  return { record: r, raise, clear, reads, devices }
}

const NO_BUILT_IN: { raise: readonly AlertInput[]; ok: readonly string[] } = { raise: [], ok: [] }

/**
 * The limit and fault alerts of one device's values: a numeric value above upperLimit or below lowerLimit, a
 * fault point's value equal to its faultValue (`checked`: the points with a limit or a fault value, by id).
 * Answers the alerts to raise and the names of the points whose latest value here is back to normal (their open
 * built-in alert clears).
 */
export function builtInAlerts(
  d: IngestDevice,
  checked: ReadonlyMap<string, ModelPoint>,
  values: readonly StoredValue[],
  t: number,
): { raise: readonly AlertInput[]; ok: readonly string[] } {
  if (!checked.size) return NO_BUILT_IN
  const raise: AlertInput[] = []
  const ok: string[] = []
  const verdict = new Map<ModelPoint, { bad: string | null; value: StoredValue['value'] }>()
  for (const v of values) {
    const p = checked.get(v.dataPointID)
    if (!p) continue
    const bad = violation(p, v.value)
    if (bad !== undefined) verdict.set(p, { bad, value: v.value })
  }
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
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a value and a fault value compared as text
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
  uplinks: ReadonlyArray<readonly StoredValue[]>
  /** Its open alerts and pending waits (updated here). */
  alerts: DeviceAlerts
  /** Its product's rules, indexed. */
  rules: ProductRules
  /** Its latest values and their scope (updated here). */
  latest: DeviceLatest
}

/**
 * One device's uplinks in order: its built-in alerts, then the lifecycle step of each rule the uplink concerns
 * (those reading one of its data points; no-data rules note the uplink and clear). Adds what to write to `out`.
 */
export function stepDevice({ d, uplinks, alerts, rules, latest }: DeviceTurn, out: Outcome) {
  const { t } = out
  const { open, waits } = alerts
  /** Rules whose wait changed (written once at the end). */
  let changed: Set<number> | undefined
  for (const vals of uplinks) {
    const built = builtInAlerts(d, rules.checked, vals, t)
    for (const a of built.raise) out.raise.push(a)
    for (const name of built.ok) {
      const a = alerts.builtIn.get(name)
      if (a) out.close.set(a.id, 'condition')
    }
    for (const v of vals) setLatest(latest, v.dataPointID, v.value)
    const { scope, last } = latest
    for (const rule of rulesFor(rules, vals)) {
      if (rule.devices && !rule.devices.has(d.id)) continue
      const ruleID = rule.record.id
      // most devices have no open alert and no wait: no lookup a rule then
      const current = open.size ? open.get(ruleID) : undefined
      if (!rule.raise) {
        // a no-data rule: the device sent something
        if (current) out.close.set(current.id, 'condition')
        open.delete(ruleID)
        waits.set(ruleID, { ruleID, deviceIntID: d.id, phase: 'seen', since: t, detail: null })
        ;(changed ??= new Set()).add(ruleID)
        continue
      }
      const r = evaluate(rule.raise, scope)
      if (r === undefined) continue
      const wait = waits.size ? waits.get(ruleID) : undefined
      const before = wait && wait.phase !== 'seen' ? wait : null
      // nothing open, nothing pending, the condition does not hold: nothing to do (the common case)
      if (!r && !current && !before) continue
      // the clear condition only matters while an alert is open
      const c = current ? evaluate(rule.clear!, scope) : false
      if (c === undefined) continue
      const next = step({
        open: !!current,
        wait: before ? { phase: before.phase as Wait['phase'], since: before.since } : null,
        raise: r,
        clear: c,
        t,
        forMs: rule.record.forSeconds * 1000,
        clearForMs: rule.record.clearForSeconds * 1000,
      })
      const same =
        (!before && !next.wait) ||
        (before &&
          next.wait &&
          before.phase === next.wait.phase &&
          before.since === next.wait.since)
      if (same && next.action === 'none') continue // nothing changed: nothing to write
      const detail = Object.fromEntries(rule.reads.map((id) => [id, last.get(id) ?? null]))
      if (next.wait) waits.set(ruleID, { ruleID, deviceIntID: d.id, ...next.wait, detail })
      else waits.delete(ruleID)
      ;(changed ??= new Set()).add(ruleID)
      if (next.action === 'raise') {
        out.raise.push(ruleAlert(rule.record, d, detail, t))
        if (!current) open.set(ruleID, { id: 0 } as AlertRef)
      }
      if (next.action === 'clear' && current) {
        if (current.id) out.close.set(current.id, 'condition')
        else out.closeRaised.push({ ruleID, deviceIntID: d.id })
        open.delete(ruleID)
      }
    }
  }
  for (const ruleID of changed ?? []) {
    const wait = waits.get(ruleID)
    if (wait) out.put.push(wait)
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
