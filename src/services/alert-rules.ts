import { Invalid, NotFound } from '../kernel/errors.ts'
import { parseTime } from '../kernel/time.ts'
import type { AlertRuleInput, AlertRuleRecord, ClearReason, MetaStore } from '../../store/types.ts'
import type { AlertRuleBody, AlertRuleTestBody } from '../schemas/alert-rules.ts'
import {
  alertRuleErrors,
  compileCondition,
  defaultClear,
  replay,
  replayNoData,
  type DryRunAlert,
} from '../rules/alerts.ts'
import type { Formula } from '../../query/formula.ts'
import type { AlertEngine } from './alert-engine.ts'
import type { Actor, ServiceDeps } from './types.ts'
import { alertEventCtx, emitAlertEvents } from './alerts.ts'

/** At most this many stored values are replayed by one dry run. */
const MAX_TEST_VALUES = 200_000

export interface AlertRuleDeps extends ServiceDeps {
  engine: AlertEngine
  config: { TIMEZONE: string }
  now?: () => number
}

/** Alert rules: checked (conditions compiled over the product's data points), stored, and dry-run. */
export function alertRuleService(deps: AlertRuleDeps) {
  const { meta, events, engine } = deps
  const now = deps.now ?? Date.now

  /** Moves the open alerts of these rules to the history (disabled or deleted). */
  async function closeOf(ruleIDs: number[], reason: ClearReason) {
    const moved = await meta.alerts.closeOfRules(ruleIDs, reason, alertEventCtx(now()))
    emitAlertEvents(events, 'alert.cleared', moved)
  }

  return {
    async create(a: Actor, b: AlertRuleBody) {
      const input = await inputOf(meta, a.tenant, b as Required<AlertRuleBody>)
      const r = await meta.alertRules.create(a.tenant, a.userIntID, input, now())
      engine.invalidate(r.productIntID)
      return r
    },

    async update(a: Actor, id: number, b: AlertRuleBody) {
      const before = await meta.alertRules.get(a.tenant, id)
      const merged = { ...bodyOf(before) }
      for (const [k, v] of Object.entries(b)) if (v !== undefined) Object.assign(merged, { [k]: v })
      // a rule turned into a no-data rule (or back) drops the other kind's fields
      if (b.noDataSeconds && b.condition === undefined) merged.condition = null
      if (b.condition && b.noDataSeconds === undefined) merged.noDataSeconds = null
      const input = await inputOf(meta, a.tenant, merged)
      const r = await meta.alertRules.update(a.tenant, id, input, now())
      engine.invalidate(before.productIntID)
      engine.invalidate(r.productIntID)
      if (before.enable && !r.enable) await closeOf([id], 'rule')
      return r
    },

    async remove(a: Actor, ids: number[]) {
      const gone = await Promise.all(
        ids.map((id) => meta.alertRules.get(a.tenant, id).catch(() => undefined)),
      )
      await meta.alertRules.delete(a.tenant, ids)
      for (const r of gone) if (r) engine.invalidate(r.productIntID)
      await closeOf(ids, 'rule')
    },

    /** The alerts a rule would have raised over a device's stored values of a range; writes nothing. */
    test: (a: Actor, b: AlertRuleTestBody): Promise<DryRunAlert[]> => dryRun(deps, a.tenant, b),
  }
}

/** The product by productID with its dataPointIDs; 404 errors.productID otherwise. */
async function productOf(meta: MetaStore, tenant: string, productID: string) {
  const product = await meta.products.byProductID(tenant, productID)
  const id = product.id
  const { points } = await meta.ingest.productModel(id)
  return { id, ids: points.map((p) => p.dataPointID) }
}

/** Checks a rule body (complete) and answers what the store takes. */
async function inputOf(
  meta: MetaStore,
  tenant: string,
  b: Required<AlertRuleBody>,
): Promise<AlertRuleInput> {
  const product = await productOf(meta, tenant, b.productID)
  const errors = alertRuleErrors(b, product.ids)
  if (Object.keys(errors).length) throw new Invalid(errors)
  for (const id of b.deviceIntIDs ?? []) {
    const d = await meta.ingest.device('id', id)
    if (!d || d.tenantID !== tenant || d.productIntID !== product.id)
      throw new NotFound({ deviceIntIDs: `no device ${id} of the product` })
  }
  return {
    ruleName: b.ruleName,
    productIntID: product.id,
    deviceIntIDs: b.deviceIntIDs?.length ? [...new Set(b.deviceIntIDs)] : null,
    condition: b.condition || null,
    alertSeverity: b.alertSeverity,
    forSeconds: b.forSeconds ?? 0,
    clearCondition: b.clearCondition || null,
    clearForSeconds: b.clearForSeconds ?? 0,
    noDataSeconds: b.noDataSeconds ?? null,
    alertContent: b.alertContent ?? null,
    enable: b.enable ?? 1,
  }
}

/** A stored rule as a complete body, which an edit's fields are merged into. */
const bodyOf = (r: AlertRuleRecord): Required<AlertRuleBody> => ({
  ruleName: r.ruleName,
  productID: r.productID,
  deviceIntIDs: r.deviceIntIDs,
  condition: r.condition,
  alertSeverity: r.alertSeverity,
  forSeconds: r.forSeconds,
  clearCondition: r.clearCondition,
  clearForSeconds: r.clearForSeconds,
  noDataSeconds: r.noDataSeconds,
  alertContent: r.alertContent,
  enable: r.enable as 0 | 1,
})

/** `test`: the body checked as a rule's, then replayed over the device's stored values of the range. */
async function dryRun(
  { meta, telemetry, config }: AlertRuleDeps,
  tenant: string,
  b: AlertRuleTestBody,
): Promise<DryRunAlert[]> {
  const product = await productOf(meta, tenant, b.productID)
  const errors = alertRuleErrors(b, product.ids)
  const start = parseTime(b.startTime, config.TIMEZONE)
  const end = parseTime(b.endTime, config.TIMEZONE)
  if (start === null) errors.startTime = 'must be YYYY-MM-DD HH:MM:SS'
  if (end === null) errors.endTime = 'must be YYYY-MM-DD HH:MM:SS'
  else if (start !== null && end <= start) errors.endTime = 'must be after startTime'
  if (Object.keys(errors).length) throw new Invalid(errors)
  const d = await meta.ingest.device('deviceID', b.deviceID)
  if (!d || d.tenantID !== tenant || d.productIntID !== product.id)
    throw new NotFound({ deviceID: 'no such device of the product' })
  const range = { tenantID: tenant, deviceID: d.deviceID, start: start!, end: end! + 1000 }
  if (!b.condition) {
    const series = await telemetry.readRaw({ ...range, dataPointIDs: product.ids })
    const times = [...new Set([...series.values()].flatMap((s) => s.time))].sort((x, y) => x - y)
    return replayNoData(times, range.start, range.end, b.noDataSeconds! * 1000)
  }
  const raise = compileCondition(b.condition, product.ids) as Formula
  const clear = compileCondition(b.clearCondition || defaultClear(b.condition), product.ids)
  const reads = [...new Set([...raise.symbols, ...(clear as Formula).symbols])]
  const query = { ...range, dataPointIDs: reads }
  if ((await telemetry.count(query)) > MAX_TEST_VALUES)
    throw new Invalid({ endTime: `more than ${MAX_TEST_VALUES} values` })
  return replay(
    {
      raise,
      clear: clear as Formula,
      forMs: (b.forSeconds ?? 0) * 1000,
      clearForMs: (b.clearForSeconds ?? 0) * 1000,
    },
    timelineOf(await telemetry.readRaw(query)),
  )
}

/** Stored series merged into one timeline: at each time, the latest numeric value of every data point so far. */
function timelineOf(series: Map<string, { time: number[]; value: unknown[] }>) {
  const entries: Array<{ t: number; id: string; v: number }> = []
  for (const [id, s] of series)
    s.time.forEach((t, i) => {
      const v = s.value[i]
      if (typeof v === 'number') entries.push({ t, id, v })
      else if (typeof v === 'boolean') entries.push({ t, id, v: v ? 1 : 0 })
    })
  entries.sort((x, y) => x.t - y.t)
  const scope = Object.create(null) as Record<string, number> // keys are dataPointIDs
  const out: Array<{ t: number; scope: Record<string, number> }> = []
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!
    scope[e.id] = e.v
    if (entries[i + 1]?.t !== e.t)
      out.push({
        t: e.t,
        scope: Object.assign(Object.create(null) as Record<string, number>, scope),
      })
  }
  return out
}
