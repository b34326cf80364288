/**
 * The retention job (docs/retention.md): deletes uplink events, connection logs, finished control logs and
 * raw data point values older than their limits (the RETENTION_* settings; a product's own `rawRetentionDays`
 * and `eventRetentionDays` override the setting for its devices). It runs at most once per interval across the
 * service's processes (a lease row in the metadata store decides who), and once shortly after start-up. Every
 * delete is a small step (a few hundred rows, or the old chunks of a few hundred series) with a turn of the event
 * loop between steps, so ingest and the API keep their share of the store. The pages the deletes freed go back to
 * the file system in steps too (each store's `reclaim`, once a quarter of its file is free).
 */
import { errorLog, fallbackLogger } from '../kernel/log.ts'
import { leasedJob } from './leased-job.ts'
import type { ServiceDeps } from './types.ts'
import type { DomainEvents } from '../kernel/events.ts'
import type { ProductRetention } from '../../store/meta/retention.ts'
import type { RetentionRule } from '../../store/telemetry.ts'

const DAY = 86_400_000
const JOB = 'retention'
/** Rows a delete step removes at most. */
const STEP_ROWS = 500
/** Folded event blocks a delete step removes at most (each holds up to 1,024 events). */
const STEP_BLOCKS = 8
/** Free pages of the metadata file a step gives back at most (1 MiB of 4 KiB pages, a few ms). */
const STEP_PAGES = 256

export interface RetentionConfig {
  RETENTION_RAW_DAYS: number
  /** Absent: 0 (forever). */
  RETENTION_ROLLUP_DAYS?: number
  RETENTION_EVENTS_DAYS: number
  RETENTION_LOGS_DAYS: number
  /** Absent: 365. */
  RETENTION_AUDIT_DAYS?: number
  RETENTION_INTERVAL_SECONDS: number
}

export interface RetentionDeps extends ServiceDeps {
  config: RetentionConfig
  now?: () => number
  /** Delay of the first check after start(), ms (default 30 s: start-up work goes first). */
  firstCheckMs?: number
  /** How often a process checks whether a run is due, ms (default a minute, at most the interval). */
  checkMs?: number
}

/** What one run deleted (the payload of `retention.completed`). `values` is -1 when the store cannot count. */
export type RetentionResult = DomainEvents['retention.completed'][0]

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** A run under way: its start, the products' own limits, and whether the service is closing. */
interface Run {
  d: RetentionDeps
  startedAt: number
  products: ProductRetention[]
  closed: () => boolean
}

/** Deletes in steps until a step removes fewer than STEP_ROWS rows; the total. */
async function drain(closed: () => boolean, step: () => Promise<number>): Promise<number> {
  let total = 0
  for (;;) {
    if (closed()) return total
    const n = await step()
    total += n
    if (n < STEP_ROWS) return total
    await nextTurn()
  }
}

const limit = (days: number | null | undefined, fallback: number): number | undefined => {
  const effective = days ?? fallback
  return effective > 0 ? effective * DAY : undefined
}

/** Deletes the uplink event rows past their product's limit, or the setting's; the rows deleted. */
async function pruneEventRows({ d, startedAt, products, closed }: Run): Promise<number> {
  const { RETENTION_EVENTS_DAYS } = d.config
  let events = 0
  for (const p of products) {
    const keep = limit(p.eventRetentionDays, RETENTION_EVENTS_DAYS)
    if (keep !== undefined)
      events += await drain(closed, () =>
        d.meta.retention.pruneEvents(p.productIntID, startedAt - keep, STEP_ROWS),
      )
  }
  const keepEvents = limit(null, RETENTION_EVENTS_DAYS)
  if (keepEvents !== undefined)
    events += await drain(closed, () =>
      d.meta.retention.pruneEvents(null, startedAt - keepEvents, STEP_ROWS),
    )
  return events
}

/** Deletes the folded event blocks past the limits; the events they held. */
async function pruneEventBlocks({ d, startedAt, products, closed }: Run): Promise<number> {
  const { RETENTION_EVENTS_DAYS } = d.config
  let events = 0
  // folded events go whole blocks at a time, once their newest event is past the limit
  const blockRules = products.map(
    (p): { productIntID: number | null; keep: number | undefined } => ({
      productIntID: p.productIntID,
      keep: limit(p.eventRetentionDays, RETENTION_EVENTS_DAYS),
    }),
  )
  blockRules.push({ productIntID: null, keep: limit(null, RETENTION_EVENTS_DAYS) })
  for (const { productIntID, keep } of blockRules) {
    if (keep === undefined) continue
    for (;;) {
      if (closed()) break
      const r = await d.meta.retention.pruneEventBlocks(productIntID, startedAt - keep, STEP_BLOCKS)
      events += r.events
      if (r.blocks < STEP_BLOCKS) break
      await nextTurn()
    }
  }
  return events
}

/**
 * Deletes every tenant's connection logs and finished control logs past RETENTION_LOGS_DAYS, and its audit log
 * past RETENTION_AUDIT_DAYS.
 */
async function pruneLogs({ d, startedAt, closed }: Run) {
  let connectLogs = 0
  let controlLogs = 0
  let auditLogs = 0
  const keepLogs = limit(null, d.config.RETENTION_LOGS_DAYS)
  const keepAudit = limit(null, d.config.RETENTION_AUDIT_DAYS ?? 365)
  const tenants =
    keepLogs !== undefined || keepAudit !== undefined ? await d.meta.retention.tenants() : []
  if (keepAudit !== undefined)
    for (const tenantID of tenants)
      auditLogs += await drain(closed, () =>
        d.meta.retention.pruneAuditLogs(tenantID, startedAt - keepAudit, STEP_ROWS),
      )
  if (keepLogs !== undefined)
    for (const tenantID of tenants) {
      const before = startedAt - keepLogs
      connectLogs += await drain(closed, () =>
        d.meta.retention.pruneConnectLogs(tenantID, before, STEP_ROWS),
      )
      controlLogs += await drain(closed, () =>
        d.meta.retention.pruneControlLogs(tenantID, before, STEP_ROWS),
      )
    }
  return { connectLogs, controlLogs, auditLogs }
}

/** Deletes the raw values (and rollups) past their limits; the values deleted, -1 when the store cannot count. */
async function pruneValues({ d, startedAt, products, closed }: Run): Promise<number> {
  const { RETENTION_RAW_DAYS } = d.config
  const rules: RetentionRule[] = []
  for (const p of products) {
    const keep = limit(p.rawRetentionDays, RETENTION_RAW_DAYS)
    if (keep !== undefined)
      rules.push({ tenantID: p.tenantID, productID: p.productID, before: startedAt - keep })
  }
  const keepRaw = limit(null, RETENTION_RAW_DAYS)
  const keepRollups = limit(null, d.config.RETENTION_ROLLUP_DAYS ?? 0)
  // nothing to delete (no limit set anywhere): the telemetry store is not called (its thread may be at rest)
  const none = rules.length === 0 && keepRaw === undefined && keepRollups === undefined
  return closed() || none
    ? 0
    : await d.telemetry.deleteBefore(
        rules,
        keepRaw !== undefined ? startedAt - keepRaw : undefined,
        keepRollups !== undefined ? startedAt - keepRollups : undefined,
      )
}

export function retentionService(d: RetentionDeps) {
  const now = d.now ?? Date.now
  const log = errorLog(d.logger, 'retention')
  const jobLog = (d.logger ?? fallbackLogger()).child({ component: 'retention' })
  const intervalMs = d.config.RETENTION_INTERVAL_SECONDS * 1000

  async function run(): Promise<RetentionResult> {
    const startedAt = now()
    const products: ProductRetention[] = await d.meta.retention.products()
    const r: Run = { d, startedAt, products, closed }
    let events = await pruneEventRows(r)
    events += await pruneEventBlocks(r)
    const { connectLogs, controlLogs, auditLogs } = await pruneLogs(r)
    for (let left = 1; left > 0 && !closed();) {
      left = await d.meta.retention.reclaim(STEP_PAGES)
      await nextTurn()
    }
    const values = await pruneValues(r)
    return { startedAt, ms: now() - startedAt, events, connectLogs, controlLogs, auditLogs, values }
  }

  const job = leasedJob({
    name: JOB,
    leases: d.meta.retention,
    intervalMs,
    now,
    run: () => run(),
    done(result) {
      jobLog.info({ ...result }, 'retention run')
      d.events.emit('retention.completed', result)
    },
    failed: (e) => log('retention run failed', e),
    firstCheckMs: d.firstCheckMs ?? 30_000,
    checkMs: d.checkMs ?? 60_000,
  })
  const closed = () => job.closed()

  return {
    /** Runs the job when it is due and no process holds it; the result, or undefined when not run here. */
    runIfDue: job.runIfDue,
    /** Checks shortly after start-up, then every check interval, whether a run is due. */
    start: () => job.start(),
    /** Stops checking; a run under way ends after its current step. */
    close: () => job.close(),
  }
}

export type RetentionService = ReturnType<typeof retentionService>
