import type { StoredValue } from '../kernel/events.ts'
import type { AlertRef, AlertRuleRecord, AlertState, ModelPoint } from '../../store/types.ts'
import type { Formula } from '../../query/formula.ts'

/** pointDataType of fault points. */
const FAULT = 4
/** Distinct uplink shapes remembered per product; beyond it they are forgotten all at once. */
const MAX_SHAPES = 1024

/** An enabled rule with its formulas compiled (once per edit); a no-data rule has none. */
export interface LiveRule {
  record: AlertRuleRecord
  raise: Formula | null
  clear: Formula | null
  /** The data points either formula reads. */
  reads: string[]
  /** The devices it watches (null: every device of the product). */
  devices: ReadonlySet<number> | null
}

/**
 * A product's enabled rules indexed for evaluation: an uplink visits only the rules reading a data point it
 * carries (and the no-data rules, which every uplink concerns), never the others.
 */
export interface ProductRules {
  /** The enabled rules, in their stored order. */
  rules: readonly LiveRule[]
  /** dataPointID → the condition rules reading it, in rule order. */
  byPoint: ReadonlyMap<string, readonly LiveRule[]>
  /** The data points with a limit or a fault value (the built-in alerts), by dataPointID. */
  checked: ReadonlyMap<string, ModelPoint>
  /** Uplink shape (its dataPointIDs) → the rules it concerns, in rule order; filled as shapes are seen. */
  shapes: Map<string, readonly LiveRule[]>
  /** The last shape seen and its rules (devices of a product mostly send one shape): no key to build. */
  last: { ids: readonly string[]; rules: readonly LiveRule[] } | null
  noData: boolean
}

/** Whether a point has a built-in alert: a fault point with a faultValue, another with a limit. */
const isChecked = (p: ModelPoint) =>
  p.pointDataType === FAULT
    ? p.faultValue !== null && p.faultValue !== undefined && p.faultValue !== ''
    : p.upperLimit !== null || p.lowerLimit !== null

/** Indexes a product's compiled rules (in their stored order) and its model. */
export function productRules(
  rules: readonly LiveRule[],
  model: readonly ModelPoint[],
): ProductRules {
  const byPoint = new Map<string, LiveRule[]>()
  for (const r of rules)
    for (const id of r.reads) {
      const list = byPoint.get(id)
      if (list) list.push(r)
      else byPoint.set(id, [r])
    }
  return {
    rules,
    byPoint,
    checked: new Map(model.filter(isChecked).map((p) => [p.dataPointID, p])),
    shapes: new Map(),
    last: null,
    noData: rules.some((r) => !r.raise),
  }
}

const NONE: readonly LiveRule[] = []

/**
 * The rules one uplink's values concern, in rule order: each condition rule reading at least one of its data
 * points, and every no-data rule. Remembered per shape (uplinks of a device usually carry the same points).
 */
export function rulesFor(p: ProductRules, values: readonly StoredValue[]): readonly LiveRule[] {
  if (!p.noData && !p.byPoint.size) return NONE
  if (p.last && sameShape(p.last.ids, values)) return p.last.rules
  let key = ''
  for (const v of values) key += v.dataPointID + '\n' // DATA_POINT_ID: no line breaks
  let hit = p.shapes.get(key)
  if (!hit) {
    const touched = new Set<LiveRule>()
    for (const v of values) for (const r of p.byPoint.get(v.dataPointID) ?? NONE) touched.add(r)
    hit = p.rules.filter((r) => !r.raise || touched.has(r))
    if (p.shapes.size >= MAX_SHAPES) p.shapes.clear()
    p.shapes.set(key, hit)
  }
  p.last = { ids: values.map((v) => v.dataPointID), rules: hit }
  return hit
}

function sameShape(ids: readonly string[], values: readonly StoredValue[]) {
  if (ids.length !== values.length) return false
  for (let i = 0; i < ids.length; i++) if (ids[i] !== values[i]!.dataPointID) return false
  return true
}

/** One device's open alerts and pending waits within an evaluation batch (updated as it goes). */
export interface DeviceAlerts {
  /** Rule id → its open alert here (`id` 0: opened in this batch, not yet written). */
  open: Map<number, AlertRef>
  /** Built-in alert (ruleID null) name → the open one. */
  builtIn: Map<string, AlertRef>
  /** Rule id → its wait here. */
  waits: Map<number, AlertState>
}

export const noAlerts = (): DeviceAlerts => ({
  open: new Map(),
  builtIn: new Map(),
  waits: new Map(),
})

/** The batch's open alerts and waits (one read each) by device; the first of each key wins. */
export function alertsByDevice(
  open: readonly AlertRef[],
  waits: readonly AlertState[],
): Map<number, DeviceAlerts> {
  const by = new Map<number, DeviceAlerts>()
  const of = (id: number) => {
    let a = by.get(id)
    if (!a) by.set(id, (a = noAlerts()))
    return a
  }
  for (const a of open) {
    if (a.deviceIntID === null) continue
    const mine = of(a.deviceIntID)
    if (a.ruleID === null) {
      if (!mine.builtIn.has(a.alertName)) mine.builtIn.set(a.alertName, a)
    } else if (!mine.open.has(a.ruleID)) mine.open.set(a.ruleID, a)
  }
  for (const s of waits) {
    const mine = of(s.deviceIntID)
    if (!mine.waits.has(s.ruleID)) mine.waits.set(s.ruleID, s)
  }
  return by
}

/**
 * A device's latest value of each data point seen here and, beside it, the numeric scope formulas read
 * (numbers as they are, booleans as 1 and 0, other values left out), both updated in place per uplink.
 */
export interface DeviceLatest {
  last: Map<string, StoredValue['value']>
  scope: Record<string, number>
}

/** Sets one latest value, in the map and in the scope. */
export function setLatest(l: DeviceLatest, id: string, value: StoredValue['value']) {
  l.last.set(id, value)
  if (typeof value === 'number') l.scope[id] = value
  else if (typeof value === 'boolean') l.scope[id] = value ? 1 : 0
  else delete l.scope[id]
}

/** A device's latest values from these (the store's, the first time it is seen). */
export function deviceLatest(values: Iterable<[string, StoredValue['value']]>): DeviceLatest {
  const l: DeviceLatest = { last: new Map(), scope: Object.create(null) as DeviceLatest['scope'] } // scope keys are dataPointIDs
  for (const [id, v] of values) setLatest(l, id, v)
  return l
}
