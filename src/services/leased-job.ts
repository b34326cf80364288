/**
 * A periodic job that runs at most once per interval across the service's processes: each process checks now and
 * then whether a run is due, and the one that claims the job's lease row (atomically, in the metadata store) runs
 * it, recording its result in the row. Used by the retention job and the event log's fold.
 */
import type { RetentionRepository } from '../../store/meta/retention.ts'

export interface LeasedJobOptions<R> {
  /** The lease row's name. */
  name: string
  leases: Pick<RetentionRepository, 'claim' | 'release'>
  intervalMs: number
  now: () => number
  /** The run; `closed()` turns true once the job is closing (a run should stop at its next step). */
  run(closed: () => boolean): Promise<R>
  /** Hears of a finished run (logs, events). */
  done?(result: R): void
  /** A check's failure (a run that threw). */
  failed: (e: unknown) => void
  /** Delay of the first check after start(), ms. */
  firstCheckMs: number
  /** How often a process checks, ms (at most the interval). */
  checkMs: number
}

export function leasedJob<R>(o: LeasedJobOptions<R>) {
  let timer: NodeJS.Timeout | undefined
  let running: Promise<unknown> | undefined
  let closed = false

  /** Runs the job when it is due and no process holds it; its result, or undefined when not run here. */
  async function runIfDue(): Promise<R | undefined> {
    if (closed || running || o.intervalMs === 0) return undefined
    if (!(await o.leases.claim(o.name, o.now(), o.intervalMs, o.intervalMs))) return undefined
    const work = o.run(() => closed)
    running = work
    try {
      const result = await work
      await o.leases.release(o.name, JSON.stringify(result))
      o.done?.(result)
      return result
    } catch (e) {
      await o.leases.release(o.name, JSON.stringify({ error: String(e) })).catch(() => {})
      throw e
    } finally {
      running = undefined
    }
  }

  const check = () => void runIfDue().catch(o.failed)

  return {
    runIfDue,
    /** Checks `firstCheckMs` after start-up, then every check interval, whether a run is due. */
    start() {
      if (o.intervalMs === 0) return
      timer = setTimeout(() => {
        check()
        timer = setInterval(check, Math.min(o.checkMs, o.intervalMs))
        timer.unref()
      }, o.firstCheckMs)
      timer.unref()
    },
    /** Stops checking; a run under way ends after its current step. */
    async close() {
      closed = true
      clearTimeout(timer)
      clearInterval(timer)
      await running?.catch(() => undefined)
    },
    /** Whether close() was called. */
    closed: () => closed,
  }
}
