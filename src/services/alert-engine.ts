import type { DomainEvents, EventBus, StoredValue } from '../kernel/events.ts'
import type {
  AlertRef,
  AlertState,
  ClearReason,
  IngestDevice,
  MetaStore,
  ModelPoint,
} from '../../store/types.ts'
import type { TelemetryStore } from '../../store/telemetry.ts'
import { compileRule, ruleAlert, stepDevice, type LiveRule, type Outcome } from './alert-eval.ts'
import { alertEventCtx, emitAlertEvents } from './alerts.ts'
import { errorLog, type Logger } from '../kernel/log.ts'

export interface AlertEngineDeps {
  meta: MetaStore
  telemetry: TelemetryStore
  events: EventBus
  now?: () => number
  log?: (message: string, e?: unknown) => void
  /** Where the default `log` writes; default: the fallback logger. */
  logger?: Logger
}

type Stored = DomainEvents['telemetry.stored'][0]

/** How often no-data rules and waits that have held long enough are looked at. */
const TICK_MS = 2000
/** Rules of a product are re-read at least this often (edits on other nodes). */
const RULES_TTL_MS = 5000
/** Values queued beyond this are dropped (and logged): evaluation never holds ingest back. */
const MAX_QUEUED_VALUES = 200_000

/** The engine's reads and their caches: devices, product models, compiled rules and latest values. */
export function alertReads(meta: MetaStore, telemetry: TelemetryStore) {
  const rules = new Map<number, { at: number; rules: LiveRule[] }>()
  const points = new Map<number, ModelPoint[]>()
  const devices = new Map<string, IngestDevice>()
  /** deviceIntID → the latest value of each data point seen here (older ones are read once from the store). */
  const latest = new Map<number, Map<string, StoredValue['value']>>()

  async function deviceOf(deviceID: string) {
    let d = devices.get(deviceID)
    if (!d) {
      d = await meta.ingest.device('deviceID', deviceID)
      if (d) devices.set(deviceID, d)
    }
    return d
  }

  async function pointsOf(productIntID: number) {
    let p = points.get(productIntID)
    if (!p) points.set(productIntID, (p = (await meta.ingest.productModel(productIntID)).points))
    return p
  }

  async function rulesOf(productIntID: number) {
    const hit = rules.get(productIntID)
    if (hit && Date.now() - hit.at < RULES_TTL_MS) return hit.rules
    const ids = (await pointsOf(productIntID)).map((p) => p.dataPointID)
    const compiled: LiveRule[] = []
    for (const r of await meta.alertRules.enabledOf(productIntID)) {
      const live = compileRule(r, ids)
      if (live) compiled.push(live)
    }
    rules.set(productIntID, { at: Date.now(), rules: compiled })
    return compiled
  }

  /** The latest values of a device, completed from the store the first time it is seen. */
  async function latestOf(d: IngestDevice) {
    let m = latest.get(d.id)
    if (!m) {
      m = new Map()
      for (const [id, v] of await telemetry.latest(d.tenantID, d.deviceID)) m.set(id, v.value)
      latest.set(d.id, m)
    }
    return m
  }

  return {
    deviceOf,
    pointsOf,
    rulesOf,
    latestOf,
    /** A product's model or rules changed: read them again. */
    forgetModel(e: { productIntID: number }) {
      points.delete(e.productIntID)
      rules.delete(e.productIntID)
    },
    /** Rules of this product changed: read them again at the next evaluation. */
    forgetRules(productIntID: number) {
      rules.delete(productIntID)
    },
    /** A device changed or is gone: read it and its latest values again. */
    forgetDevice(e: { deviceID: string; id: number }) {
      devices.delete(e.deviceID)
      latest.delete(e.id)
    },
  }
}

type AlertReads = ReturnType<typeof alertReads>

/** What the evaluation steps use. */
interface Turn {
  meta: MetaStore
  events: EventBus
  reads: AlertReads
  now: () => number
}

/**
 * Queued uplinks (each `telemetry.stored` is one) grouped by their device, each device's uplinks in order, with
 * only the values of that device; values of devices `deviceOf` does not know are left out.
 */
export async function uplinksByDevice(
  uplinks: readonly Stored[],
  deviceOf: (deviceID: string) => Promise<IngestDevice | undefined>,
): Promise<Map<IngestDevice, StoredValue[][]>> {
  const byDevice = new Map<IngestDevice, StoredValue[][]>()
  for (const e of uplinks) {
    const mine = new Map<IngestDevice, StoredValue[]>()
    for (const v of e.values) {
      const d = await deviceOf(v.deviceID)
      if (d) mine.set(d, [...(mine.get(d) ?? []), v])
    }
    for (const [d, vals] of mine) byDevice.set(d, [...(byDevice.get(d) ?? []), vals])
  }
  return byDevice
}

/** The ids of the alerts just opened whose rule and device were also cleared in the same turn. */
export function raisedAndCleared(
  raised: readonly AlertRef[],
  closeRaised: Outcome['closeRaised'],
): number[] {
  return raised
    .filter((a) =>
      closeRaised.some((x) => x.ruleID === a.ruleID && x.deviceIntID === a.deviceIntID),
    )
    .map((a) => a.id)
}

/** Alert ids to close grouped by their reason, each group in the order given. */
export function idsByReason(close: ReadonlyMap<number, ClearReason>): Map<ClearReason, number[]> {
  const byReason = new Map<ClearReason, number[]>()
  for (const [id, reason] of close) byReason.set(reason, [...(byReason.get(reason) ?? []), id])
  return byReason
}

/** Evaluates queued uplinks, in order per device; one write per kind. */
async function evaluateBatch({ meta, events, reads, now }: Turn, uplinks: readonly Stored[]) {
  const byDevice = await uplinksByDevice(uplinks, reads.deviceOf)
  if (!byDevice.size) return
  const ids = [...byDevice.keys()].map((d) => d.id)
  const [open, states] = await Promise.all([meta.alerts.openOf(ids), meta.alertRules.states(ids)])
  const out: Outcome = {
    t: now(),
    raise: [],
    close: new Map(),
    closeRaised: [],
    put: [],
    drop: [],
  }
  for (const [d, list] of byDevice) {
    const mine = open.filter((a) => a.deviceIntID === d.id)
    const waits = states.filter((s) => s.deviceIntID === d.id)
    await evaluateDevice(reads, d, list, mine, waits, out)
  }
  await meta.alertRules.saveStates(out.put, out.drop)
  const raised = await meta.alerts.raiseAlerts(out.raise, alertEventCtx(out.t))
  emitAlertEvents(events, 'alert.raised', raised.events)
  for (const id of raisedAndCleared(raised.alerts, out.closeRaised)) out.close.set(id, 'condition')
  await closeAlerts({ meta, events }, out.close, out.t)
}

/** One device's uplinks in order (its model, latest values and rules read first). */
async function evaluateDevice(
  reads: AlertReads,
  d: IngestDevice,
  uplinks: StoredValue[][],
  open: AlertRef[],
  waits: AlertState[],
  out: Outcome,
) {
  const model = await reads.pointsOf(d.productIntID)
  const last = await reads.latestOf(d)
  const live = (await reads.rulesOf(d.productIntID)).filter(
    (r) => !r.record.deviceIntIDs || r.record.deviceIntIDs.includes(d.id),
  )
  stepDevice({ d, uplinks, open, waits, model, last, live }, out)
}

/** Moves alerts to the history, one transaction per reason (each alert.cleared is written with its move). */
async function closeAlerts(
  { meta, events }: Pick<Turn, 'meta' | 'events'>,
  close: ReadonlyMap<number, ClearReason>,
  t: number,
) {
  for (const [reason, ids] of idsByReason(close))
    emitAlertEvents(events, 'alert.cleared', await meta.alerts.close(ids, reason, alertEventCtx(t)))
}

/** No-data alerts due, and waits that held long enough while their devices stayed quiet. */
async function tick({ meta, events, now }: Turn) {
  const t = now()
  emitAlertEvents(events, 'alert.raised', await meta.alerts.raiseNoData(alertEventCtx(t)))
  for (const s of await meta.alertRules.dueStates(t, 500)) {
    if (!(await meta.alertRules.claimState(s))) continue
    const d = await meta.ingest.device('id', s.deviceIntID)
    const rule = d && (await meta.alertRules.get(d.tenantID, s.ruleID).catch(() => undefined))
    if (!d || !rule || !rule.enable) continue
    const current = (await meta.alerts.openOf([d.id])).find((a) => a.ruleID === rule.id)
    if (s.phase === 'raise' && !current) {
      const detail = (s.detail ?? {}) as Record<string, unknown>
      const raised = await meta.alerts.raiseAlerts(
        [ruleAlert(rule, d, detail, t)],
        alertEventCtx(t),
      )
      emitAlertEvents(events, 'alert.raised', raised.events)
    } else if (s.phase === 'clear' && current) {
      await closeAlerts({ meta, events }, new Map([[current.id, 'condition']]), t)
    }
  }
}

/**
 * Committed uplinks waiting for evaluation, drained one batch at a time by `evaluate` (off the ingest path: a push
 * never waits). Beyond `max` queued values an uplink is dropped and logged; a failed batch is logged too.
 */
export function uplinkQueue(
  evaluate: (batch: Stored[]) => Promise<void>,
  log: (message: string, e?: unknown) => void,
  max = MAX_QUEUED_VALUES,
) {
  const queue: Stored[] = []
  let queued = 0
  let running: Promise<void> | null = null

  function kick() {
    if (running || !queue.length) return
    running = drain().finally(() => {
      running = null
      kick()
    })
  }

  async function drain() {
    const batch = queue.splice(0)
    queued = 0
    try {
      await evaluate(batch)
    } catch (e) {
      log('evaluation failed', e)
    }
  }

  return {
    push(e: Stored) {
      if (queued + e.values.length > max) {
        log(`queue full: ${e.values.length} values not evaluated`)
        return
      }
      queue.push(e)
      queued += e.values.length
      kick()
    },
    /** Resolves once every uplink pushed so far was evaluated. */
    async settle() {
      while (running || queue.length) {
        kick()
        await running
      }
    },
  }
}

/**
 * The alert engine: evaluates the built-in limit and fault alerts and the alert rules on every committed uplink
 * (`telemetry.stored`, queued here and evaluated in batches off the ingest path), and no-data rules and pending
 * waits on a timer. Alerts are opened, counted and cleared through the alert store (one open alert per rule and
 * device, by its unique key), which writes the `alert.raised` (openings only) and `alert.cleared` outbox events in
 * the transaction of each change; they are emitted on the bus after the commit.
 */
export function alertEngine(deps: AlertEngineDeps) {
  const { meta, telemetry, events } = deps
  const log = deps.log ?? errorLog(deps.logger, 'alerts')
  const reads = alertReads(meta, telemetry)
  const turn: Turn = { meta, events, reads, now: deps.now ?? Date.now }
  const queue = uplinkQueue((batch) => evaluateBatch(turn, batch), log)
  let timer: NodeJS.Timeout | undefined
  let closed = false

  function onStored(e: Stored) {
    if (!closed) queue.push(e)
  }

  /** Listens to committed uplinks, and to model and device changes for the caches (or stops). */
  function listen(on: boolean) {
    const bus = on ? events.on.bind(events) : events.off.bind(events)
    bus('telemetry.stored', onStored)
    bus('model.changed', reads.forgetModel)
    bus('device.changed', reads.forgetDevice)
    bus('device.deleted', reads.forgetDevice)
  }

  return {
    /** Listens to committed uplinks and model changes and starts the timer. */
    start() {
      listen(true)
      const loop = () => {
        if (closed) return
        tick(turn)
          .catch((e) => log('tick failed', e))
          .finally(() => {
            if (!closed) timer = setTimeout(loop, TICK_MS).unref()
          })
      }
      timer = setTimeout(loop, TICK_MS).unref()
      // a rule disabled or deleted just before a stop may have left its alerts open: close them now
      void meta.alerts
        .closeOfGoneRules(alertEventCtx(turn.now()))
        .then((moved) => emitAlertEvents(events, 'alert.cleared', moved))
        .catch((e) => log('closing alerts of disabled rules failed', e))
    },
    /** Rules of this product changed here: read them again at the next evaluation. */
    invalidate(productIntID: number) {
      reads.forgetRules(productIntID)
    },
    /** Resolves once every value queued so far was evaluated. */
    idle: () => queue.settle(),
    /** Runs one timer turn now (tests). */
    tick: () => tick(turn),
    /** Stops listening; evaluates what was queued. */
    async close() {
      closed = true
      clearTimeout(timer)
      listen(false)
      await queue.settle()
    },
  }
}

export type AlertEngine = ReturnType<typeof alertEngine>
