/**
 * What a thread asks of V8's collector, through the `gc()` that node's `--expose-gc` gives (`npm start` and the
 * tests' child services pass it; without it both functions here do nothing).
 */
type Gc = (options: {
  type: 'minor' | 'major'
  execution: 'async'
  flavor?: 'last-resort'
}) => unknown

const gc = (): Gc | undefined => (globalThis as { gc?: Gc }).gc

/**
 * A young-generation collection asked of V8, for a stream that moves many large Buffers through quickly (an upload):
 * each chunk a socket read is a Buffer whose bytes live outside V8's heap, and V8 collects them only once they grew by
 * 64 MiB (its fixed external-memory limit), so a 200 MiB upload would raise the peak RSS by that much. Asked every
 * 8 MiB, the dead chunks go at once: the peak grows by ~10 MiB. The collection runs as its own task, not here.
 */
export function collectYoungGeneration(): void {
  gc()?.({ type: 'minor', execution: 'async' })
}

/** Bytes of a stream between two collections of collectYoungGeneration. */
export const COLLECT_EVERY_BYTES = 8 << 20

/**
 * One memory-reducing collection (V8's `CollectAllAvailableGarbage`: full collections until nothing more is freed,
 * then the heap's free and pooled pages given back to the system), as its own task. It pauses the thread for
 * ~20-50 ms, which is why collectAtRest asks for it only at rest.
 */
export function reduceMemory(): void {
  gc()?.({ type: 'major', execution: 'async', flavor: 'last-resort' })
}

export interface RestOptions {
  /** How often the thread's event loop is looked at, ms. */
  checkMs?: number
  /** Event-loop utilization (0-1) of a window from which on the thread counts as having worked. */
  busy?: number
  /** Utilization under which a window counts as quiet. */
  quiet?: number
  /** Quiet windows in a row after work before the collection. */
  quietWindows?: number
  /** The thread's utilization since the last call (tests inject one). */
  utilization?: () => number
  /** What runs at rest (tests inject one). */
  collect?: () => void
}

export const REST_DEFAULTS = {
  checkMs: 5_000,
  busy: 0.1,
  quiet: 0.05,
  quietWindows: 2,
} as const satisfies RestOptions

/** The event-loop utilization of this thread since the previous call (since the thread started, the first time). */
function loopUtilization(): () => number {
  let last = performance.eventLoopUtilization()
  return () => {
    const now = performance.eventLoopUtilization()
    const window = performance.eventLoopUtilization(now, last)
    last = now
    return window.utilization
  }
}

/**
 * Gives a thread's memory back once it goes quiet after work. A burst of work (the start-up, a load) grows V8's
 * young generation and leaves pages in its pool; V8 returns them to the system only in a memory-reducing
 * collection, which its own memory reducer runs when it judges the isolate idle. Here it never does: the service's
 * pollers (the outbox, deliveries, schedules) allocate a little every few seconds, which the reducer takes for
 * activity. The startup bench at rest, 45 s after ready: 153 MB RSS without, 126 MB with one such collection in
 * each thread.
 *
 * So the thread's event loop is looked at every `checkMs`: after a window with at least `busy` utilization (the
 * start counts as one) and then `quietWindows` windows under `quiet`, reduceMemory runs once, and not again before
 * the thread has worked again. A steady load never sees it. Answers the function that stops it; its timer does not
 * keep the thread alive.
 */
export function collectAtRest(options: RestOptions = {}): () => void {
  const o = { ...REST_DEFAULTS, ...options }
  const utilization = o.utilization ?? loopUtilization()
  const collect = o.collect ?? reduceMemory
  let worked = true
  let quietFor = 0
  let collected = false
  const timer = setInterval(() => {
    const u = utilization()
    // the window of the collection itself is not work
    if (collected) collected = false
    else if (u >= o.busy) {
      worked = true
      quietFor = 0
    } else if (u < o.quiet) {
      quietFor++
      if (worked && quietFor >= o.quietWindows) {
        worked = false
        collected = true
        collect()
      }
    } else quietFor = 0
  }, o.checkMs)
  timer.unref()
  return () => clearInterval(timer)
}
