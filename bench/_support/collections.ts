import { PerformanceObserver, constants } from 'node:perf_hooks'

/** A garbage collection of this thread: its start and duration (ms, `performance.now`'s clock), and whether full. */
export interface Collection {
  at: number
  ms: number
  full: boolean
}

/**
 * Records this thread's garbage collections (`gc` performance entries) from now on: `between(t0, t1)` answers those
 * that started in that window, `stop()` ends the recording.
 */
export function recordCollections() {
  const all: Collection[] = []
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      all.push({
        at: e.startTime,
        ms: e.duration,
        full:
          (e as unknown as { detail?: { kind: number } }).detail?.kind ===
          constants.NODE_PERFORMANCE_GC_MAJOR,
      })
  })
  observer.observe({ entryTypes: ['gc'] })
  return {
    between: (t0: number, t1: number) => all.filter((g) => g.at >= t0 && g.at < t1),
    stop: () => observer.disconnect(),
  }
}
