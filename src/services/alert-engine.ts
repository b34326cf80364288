import type { DomainEvents, EventBus, StoredValue } from '../kernel/events.ts'
import type {
  AlertRef,
  ClearReason,
  IngestDevice,
  MetaStore,
  ModelPoint,
} from '../../store/types.ts'
import type { TelemetryStore } from '../../store/telemetry.ts'
import { compileCondition } from '../rules/alerts.ts'
import {
  compileRule,
  ruleAlert,
  stepDevice,
  type ConditionCompiler,
  type Outcome,
} from './alert-eval.ts'
import {
  alertsByDevice,
  deviceLatest,
  noAlerts,
  productRules,
  type DeviceLatest,
  type LiveRule,
  type ProductRules,
} from './alert-index.ts'
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

/** A value, or its promise when it must be read first (cache hits cost no microtask turn). */
type Soon<T> = T | Promise<T>

/** The engine's reads and their caches: devices, product models, indexed rules and latest values. */
export function alertReads(meta: MetaStore, telemetry: TelemetryStore) {
  const models = modelReads(meta)
  return { ...models, ...deviceReads(meta, telemetry, models.rulesOf, models.cachedRules) }
}

/** Product models and their indexed rules, cached per product. */
function modelReads(meta: MetaStore) {
  const rules = new Map<number, { at: number; rules: ProductRules }>()
  const points = new Map<number, ModelPoint[]>()
  /** Per product: condition → its compiled formula (or why not), kept until the model changes. */
  const formulas = new Map<number, Map<string, ReturnType<ConditionCompiler>>>()

  async function pointsOf(productIntID: number) {
    let p = points.get(productIntID)
    if (!p) points.set(productIntID, (p = (await meta.ingest.productModel(productIntID)).points))
    return p
  }

  /** A product's rules when cached and fresh, without reading them. */
  function cachedRules(productIntID: number): ProductRules | undefined {
    const hit = rules.get(productIntID)
    return hit && Date.now() - hit.at < RULES_TTL_MS ? hit.rules : undefined
  }

  /** A product's enabled rules, compiled and indexed; read again after RULES_TTL_MS. */
  function rulesOf(productIntID: number): Soon<ProductRules> {
    const hit = rules.get(productIntID)
    if (hit && Date.now() - hit.at < RULES_TTL_MS) return hit.rules
    return readRules(productIntID)
  }

  async function readRules(productIntID: number) {
    const model = await pointsOf(productIntID)
    const ids = model.map((p) => p.dataPointID)
    let known = formulas.get(productIntID)
    if (!known) {
      known = new Map()
      formulas.set(productIntID, known)
    }
    const compile: ConditionCompiler = (expr) => {
      let f = known.get(expr)
      if (!f) known.set(expr, (f = compileCondition(expr, ids)))
      return f
    }
    const compiled: LiveRule[] = []
    for (const r of await meta.alertRules.enabledOf(productIntID)) {
      const live = compileRule(r, ids, compile)
      if (live) compiled.push(live)
    }
    const indexed = productRules(compiled, model)
    rules.set(productIntID, { at: Date.now(), rules: indexed })
    return indexed
  }

  return {
    pointsOf,
    rulesOf,
    cachedRules,
    /** A product's model or rules changed: read them again. */
    forgetModel(e: { productIntID: number }) {
      points.delete(e.productIntID)
      rules.delete(e.productIntID)
      formulas.delete(e.productIntID)
    },
    /** Rules of this product changed: read them again at the next evaluation. */
    forgetRules(productIntID: number) {
      rules.delete(productIntID)
    },
  }
}

/** Devices and their latest values, cached per device; `rulesOf` tells which products have nothing to evaluate. */
function deviceReads(
  meta: MetaStore,
  telemetry: TelemetryStore,
  rulesOf: (productIntID: number) => Soon<ProductRules>,
  cachedRules: (productIntID: number) => ProductRules | undefined,
) {
  const devices = new Map<string, IngestDevice>()
  /** deviceIntID → the latest value of each data point seen here (older ones are read once from the store). */
  const latest = new Map<number, DeviceLatest>()

  function deviceOf(deviceID: string): Soon<IngestDevice | undefined> {
    return devices.get(deviceID) ?? readDevice(deviceID)
  }

  async function readDevice(deviceID: string) {
    const d = await meta.ingest.device('deviceID', deviceID)
    if (d) devices.set(deviceID, d)
    return d
  }

  /** The latest values of a device, completed from the store the first time it is seen. */
  function latestOf(d: IngestDevice): Soon<DeviceLatest> {
    return latest.get(d.id) ?? readLatest(d)
  }

  async function readLatest(d: IngestDevice) {
    const stored = await telemetry.latest(d.tenantID, d.deviceID)
    let l = latest.get(d.id) // read meanwhile
    if (!l) {
      l = deviceLatest([...stored].map(([id, v]) => [id, v.value]))
      latest.set(d.id, l)
    }
    return l
  }

  /**
   * Reads what a batch needs and the caches lack in a few statements a tenant, not a round trip a device: first
   * the devices, then their latest values. One read after another, each behind the store's writes, a cold start
   * with the fleet reconnecting kept the first batch waiting for seconds while the queue filled up. Answers the
   * products among them that have nothing to evaluate (see `evaluates`), whose latest values are not read.
   */
  async function prefetch(uplinks: readonly Stored[]): Promise<ReadonlySet<number>> {
    const named = devicesNamed(uplinks)
    await readUnknownDevices(meta, named, devices)
    const idle = await idleProducts(named, devices, rulesOf)
    await readColdLatest(telemetry, named, idle, devices, latest)
    return idle
  }

  /**
   * True when every device of `e` is known here and its product's rules, cached and fresh, evaluate nothing: the
   * uplink needs no evaluation (and its devices' latest values are forgotten, as `prefetch` does for idle products).
   * The common case of a product without rules then costs no queue turn and no read.
   */
  function idleUplink(e: Stored): boolean {
    let last: string | undefined
    for (const v of e.values) {
      if (v.deviceID === last) continue
      last = v.deviceID
      const d = devices.get(last)
      if (!d || d.tenantID !== e.tenantID) return false
      const rules = cachedRules(d.productIntID)
      if (!rules || evaluates(rules)) return false
    }
    for (const id of e.deviceIntIDs) latest.delete(id)
    return true
  }

  return {
    deviceOf,
    latestOf,
    prefetch,
    idleUplink,
    /** A device changed or is gone: read it and its latest values again. */
    forgetDevice(e: { deviceID: string; id: number }) {
      devices.delete(e.deviceID)
      latest.delete(e.id)
    },
  }
}

/** Reads the named devices `devices` lacks into it, in one statement a tenant. */
async function readUnknownDevices(
  meta: MetaStore,
  named: ReadonlyMap<string, ReadonlySet<string>>,
  devices: Map<string, IngestDevice>,
) {
  await Promise.all(
    [...named].map(async ([tenant, ids]) => {
      const unknown = [...ids].filter((id) => !devices.has(id))
      if (!unknown.length) return
      for (const d of await meta.ingest.devicesByDeviceIDs(tenant, unknown))
        devices.set(d.deviceID, d)
    }),
  )
}

/** The products of the named (known) devices that have nothing to evaluate (see `evaluates`). */
async function idleProducts(
  named: ReadonlyMap<string, ReadonlySet<string>>,
  devices: ReadonlyMap<string, IngestDevice>,
  rulesOf: (productIntID: number) => Soon<ProductRules>,
) {
  const products = new Set<number>()
  for (const [tenant, ids] of named)
    for (const id of ids) {
      const d = devices.get(id)
      if (d && d.tenantID === tenant) products.add(d.productIntID)
    }
  const idle = new Set<number>()
  for (const id of products) {
    const soon = rulesOf(id)
    if (!evaluates(soon instanceof Promise ? await soon : soon)) idle.add(id)
  }
  return idle
}

/**
 * Reads into `latest` the latest values of the named (known) devices it lacks, in one statement a tenant, except
 * for devices of `idle` products, whose latest values are forgotten.
 */
async function readColdLatest(
  telemetry: TelemetryStore,
  named: ReadonlyMap<string, ReadonlySet<string>>,
  idle: ReadonlySet<number>,
  devices: ReadonlyMap<string, IngestDevice>,
  latest: Map<number, DeviceLatest>,
) {
  await Promise.all(
    [...named].map(async ([tenant, ids]) => {
      const cold: string[] = []
      for (const id of ids) {
        const d = devices.get(id)
        if (!d || d.tenantID !== tenant) continue
        // nothing reads its latest values: they are read again once its product has rules
        if (idle.has(d.productIntID)) latest.delete(d.id)
        else if (!latest.has(d.id)) cold.push(id)
      }
      if (!cold.length) return
      const stored = await telemetry.latestOf(tenant, cold)
      for (const id of cold) {
        const d = devices.get(id)
        // a device forgotten or read meanwhile keeps what it has
        if (!d || latest.has(d.id)) continue
        const values = [...(stored.get(id) ?? [])]
        latest.set(d.id, deviceLatest(values.map(([p, v]) => [p, v.value])))
      }
    }),
  )
}

type AlertReads = ReturnType<typeof alertReads>

/** The deviceIDs the uplinks' values name, by the uplink's tenant (a run of one device's values looked at once). */
function devicesNamed(uplinks: readonly Stored[]): Map<string, Set<string>> {
  const named = new Map<string, Set<string>>()
  for (const e of uplinks) {
    let ids = named.get(e.tenantID)
    if (!ids) named.set(e.tenantID, (ids = new Set()))
    let last: string | undefined
    for (const v of e.values) {
      if (v.deviceID === last) continue
      last = v.deviceID
      ids.add(last)
    }
  }
  return named
}

/**
 * Whether a product's uplinks have anything to evaluate: an enabled rule or a data point with a built-in alert.
 * Without either, evaluating a device's uplink only keeps its latest values, which nothing reads: its devices are
 * left out of a batch (no alert or wait is read for them), and their latest values are read again from the store
 * once the product has rules.
 */
function evaluates(p: ProductRules): boolean {
  return p.rules.length > 0 || p.checked.size > 0
}

/** What the evaluation steps use. */
interface Turn {
  meta: MetaStore
  events: EventBus
  reads: AlertReads
  now: () => number
}

/**
 * Queued uplinks (each `telemetry.stored` is one) grouped by their device, each device's uplinks in order, with
 * only the values of that device; values of devices `deviceOf` does not know are left out. The device is looked
 * up once per run of its values in an uplink (an uplink's values are grouped by device), and awaited only when
 * `deviceOf` must read it.
 */
export async function uplinksByDevice(
  uplinks: readonly Stored[],
  deviceOf: (deviceID: string) => Soon<IngestDevice | undefined>,
): Promise<Map<IngestDevice, Array<readonly StoredValue[]>>> {
  const byDevice = new Map<IngestDevice, Array<readonly StoredValue[]>>()
  const add = (d: IngestDevice, vals: readonly StoredValue[]) => {
    const list = byDevice.get(d)
    if (list) list.push(vals)
    else byDevice.set(d, [vals])
  }
  for (const e of uplinks) {
    const { values } = e
    // the common case: one device's values (kept as they are, no copy)
    const one = values.length > 0 && values.every((v) => v.deviceID === values[0]!.deviceID)
    if (one) {
      const got = deviceOf(values[0]!.deviceID)
      const d = got instanceof Promise ? await got : got
      if (d) add(d, values)
      continue
    }
    const mine = new Map<IngestDevice, StoredValue[]>()
    let id: string | undefined
    let d: IngestDevice | undefined
    for (const v of values) {
      if (v.deviceID !== id) {
        id = v.deviceID
        const got = deviceOf(id)
        d = got instanceof Promise ? await got : got
      }
      if (!d) continue
      const list = mine.get(d)
      if (list) list.push(v)
      else mine.set(d, [v])
    }
    for (const [dev, vals] of mine) add(dev, vals)
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
  const idle = await reads.prefetch(uplinks)
  const byDevice = await uplinksByDevice(uplinks, reads.deviceOf)
  for (const d of byDevice.keys()) if (idle.has(d.productIntID)) byDevice.delete(d)
  if (!byDevice.size) return
  const ids: number[] = []
  for (const d of byDevice.keys()) ids.push(d.id)
  const [open, states] = await Promise.all([meta.alerts.openOf(ids), meta.alertRules.states(ids)])
  const alerts = alertsByDevice(open, states)
  const out: Outcome = {
    t: now(),
    raise: [],
    close: new Map(),
    closeRaised: [],
    put: [],
    drop: [],
  }
  for (const [d, list] of byDevice) {
    const rulesSoon = reads.rulesOf(d.productIntID)
    const rules = rulesSoon instanceof Promise ? await rulesSoon : rulesSoon
    const latestSoon = reads.latestOf(d)
    const latest = latestSoon instanceof Promise ? await latestSoon : latestSoon
    const mine = alerts.get(d.id) ?? noAlerts()
    stepDevice({ d, uplinks: list, alerts: mine, rules, latest }, out)
  }
  await meta.alertRules.saveStates(out.put, out.drop)
  const raised = await meta.alerts.raiseAlerts(out.raise, alertEventCtx(out.t))
  emitAlertEvents(events, 'alert.raised', raised.events)
  for (const id of raisedAndCleared(raised.alerts, out.closeRaised)) out.close.set(id, 'condition')
  await closeAlerts({ meta, events }, out.close, out.t)
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

/** How often a queue that keeps dropping uplinks says so in the log. */
const DROP_LOG_MS = 10_000

/**
 * Committed uplinks waiting for evaluation, drained one batch at a time by `evaluate` (off the ingest path: a push
 * never waits). Beyond `max` queued values an uplink is dropped and counted (`backlog`, the service's metrics); the
 * log says so at the first drop and then at most every 10 s (on the clock `now`), with the values dropped since. A
 * failed batch is logged too.
 */
export function uplinkQueue(
  evaluate: (batch: Stored[]) => Promise<void>,
  log: (message: string, e?: unknown) => void,
  max = MAX_QUEUED_VALUES,
  now: () => number = Date.now,
) {
  const queue: Stored[] = []
  let queued = 0
  let running: Promise<void> | null = null
  let dropped = 0
  let unlogged = 0
  let loggedAt = -Infinity

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
        dropped += e.values.length
        unlogged += e.values.length
        if (now() - loggedAt >= DROP_LOG_MS) {
          log(`queue full: ${unlogged} values not evaluated (${dropped} since the start)`)
          loggedAt = now()
          unlogged = 0
        }
        return
      }
      queue.push(e)
      queued += e.values.length
      kick()
    },
    /** Values waiting for evaluation, and those dropped since the start because the queue was full. */
    backlog(): { queued: number; dropped: number } {
      return { queued, dropped }
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
    if (!closed && !reads.idleUplink(e)) queue.push(e)
  }

  /** Listens to committed uplinks, and to model and device changes for the caches (or stops). */
  function listen(on: boolean) {
    const bus = on ? events.on.bind(events) : events.off.bind(events)
    bus('telemetry.stored', onStored)
    bus('model.changed', (e) => reads.forgetModel(e))
    bus('device.changed', (e) => reads.forgetDevice(e))
    bus('device.deleted', (e) => reads.forgetDevice(e))
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
    /** Values waiting for evaluation and those dropped since the start (the service's metrics). */
    backlog: () => queue.backlog(),
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
