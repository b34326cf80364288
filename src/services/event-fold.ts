/**
 * The event log's fold job (docs/retention.md): every EVENT_FOLD_SECONDS, once across the service's processes
 * (a lease row decides who), moves uplink events inserted more than FOLD_AGE_MS ago from the tail into compressed
 * blocks of up to 1,024 messages per device (store/libsql/event-fold.ts). Lists read both parts, so nothing an API
 * caller sees changes. A step folds a few devices (at most 4,096 rows); after it the fold pauses twice the step's
 * time, so ingest keeps most of the database writer and of the CPU. Then the pages the moved rows freed go back to
 * the file system once they are a quarter of the file (a young file, or the first fold after an upgrade; at steady
 * state the tail is a few minutes of 30 days and its pages are reused), in steps too.
 */
import { errorLog, fallbackLogger } from '../kernel/log.ts'
import { leasedJob } from './leased-job.ts'
import type { ServiceDeps } from './types.ts'

const JOB = 'event-fold'
/**
 * How often each process indexes the tail's new rows by device (store/libsql/event-devices.ts): rows above the
 * index's mark are read by a scan, so the mark stays about this far behind ingest. Every process runs it; a step is
 * one transaction that reads the mark, so two processes never index a row twice. Every 2 s rather than every
 * second: a step then adds twice the entries for the same index pages (alternated bench pairs, bench/README.md).
 */
const INDEX_MS = 2000
/** Events younger than this stay in the tail (longer than any write in flight takes to commit). */
export const FOLD_AGE_MS = 5 * 60_000

export interface EventFoldDeps extends ServiceDeps {
  config: { EVENT_FOLD_SECONDS: number }
  now?: () => number
  /** Delay of the first check after start(), ms (default a minute). */
  firstCheckMs?: number
}

/** What one run folded. */
export interface FoldResult {
  startedAt: number
  ms: number
  events: number
  blocks: number
}

/** After each step the fold waits PAUSE_FACTOR times the step's own time (at least PAUSE_MIN_MS). */
const PAUSE_FACTOR = 2
const PAUSE_MIN_MS = 5
/** Free pages a step gives back at most (1 MiB of 4 KiB pages). */
const RECLAIM_PAGES = 256
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Indexes the tail's new rows by device: every INDEX_MS once started, and whenever a fold asks. */
function tailIndexer(meta: ServiceDeps['meta'], log: (message: string, e?: unknown) => void) {
  let timer: NodeJS.Timeout | undefined
  let indexing: Promise<void> | undefined
  let closed = false

  /** Indexes the tail by device up to its newest row, a step (at most INDEX_STEP_ROWS) at a time. */
  async function catchUp(): Promise<void> {
    // between two steps, the writer's turn for ingest
    while ((await meta.retention.indexEventDevices()).more && !closed) await pause(PAUSE_MIN_MS)
  }

  /** catchUp, unless one runs already (then that one). */
  function index(): Promise<void> {
    indexing ??= catchUp().finally(() => (indexing = undefined))
    return indexing
  }

  return {
    index,
    start() {
      timer = setInterval(() => void index().catch((e) => log('event index failed', e)), INDEX_MS)
      timer.unref()
    },
    /** Stops indexing; an index run under way ends after its step. */
    async close() {
      closed = true
      clearInterval(timer)
      await indexing?.catch(() => {})
    },
  }
}

export function eventFoldService(d: EventFoldDeps) {
  const now = d.now ?? Date.now
  const log = errorLog(d.logger, 'event-fold')
  const jobLog = (d.logger ?? fallbackLogger()).child({ component: 'event-fold' })
  const intervalMs = d.config.EVENT_FOLD_SECONDS * 1000
  const indexer = tailIndexer(d.meta, log)

  /** Folds every event inserted before `cutoff` (default FOLD_AGE_MS ago), step by step. */
  async function fold(cutoff = now() - FOLD_AGE_MS): Promise<FoldResult> {
    const startedAt = now()
    const repo = d.meta.retention
    // a step folds only rows in the index by device: the index is brought up to the newest row first, paced
    await indexer.index()
    const boundary = await repo.foldBoundary(cutoff)
    let events = 0
    let blocks = 0
    let after: number | undefined = 0
    while (boundary > 0 && after !== undefined && !job.closed()) {
      const t0 = performance.now()
      const step = await repo.foldEvents(boundary, after)
      events += step.events
      blocks += step.blocks
      after = step.next
      // paced: a step's time again twice over for ingest and the API (the fold takes at most a third of the
      // database writer's time and of the CPU it needs)
      await pause(Math.max(PAUSE_MIN_MS, (performance.now() - t0) * PAUSE_FACTOR))
    }
    while (events > 0 && !job.closed() && (await repo.reclaim(RECLAIM_PAGES)) > 0)
      await pause(PAUSE_MIN_MS)
    return { startedAt, ms: now() - startedAt, events, blocks }
  }

  const job = leasedJob({
    name: JOB,
    leases: d.meta.retention,
    intervalMs,
    now,
    run: () => fold(),
    done(result) {
      if (result.events) jobLog.info({ ...result }, 'event log folded')
    },
    failed: (e) => log('event fold failed', e),
    firstCheckMs: d.firstCheckMs ?? 60_000,
    checkMs: 60_000,
  })

  return {
    /** Runs a fold when one is due and no process holds the job; its result, or undefined when not run here. */
    runIfDue: job.runIfDue,
    fold,
    /**
     * Checks a minute after start-up, then every minute (at most the interval), whether a fold is due; indexes the
     * tail's new rows by device every INDEX_MS.
     */
    start() {
      job.start()
      indexer.start()
    },
    /** Stops checking and indexing; a fold under way ends after its current step, an index run after its step. */
    async close() {
      await indexer.close()
      await job.close()
    },
  }
}

export type EventFoldService = ReturnType<typeof eventFoldService>
