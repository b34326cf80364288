/**
 * The time budget of one query (QUERY_TIMEOUT_MS): every store call of the query runs through `race`, which bounds
 * a call that may hang (InfluxDB over the network) and checks the budget when the call is done (the embedded store
 * reads on the event loop's thread, so its timer would only fire after the work).
 */
import { Unavailable } from '../src/kernel/errors.ts'

/** The budget ran out: an Unavailable, so the API answers 503 with Retry-After (src/http/errors.ts). */
export class QueryTimeout extends Unavailable {}

export class Deadline {
  readonly at: number

  constructor(readonly ms: number) {
    this.at = Date.now() + ms
  }

  /** Throws QueryTimeout once the budget is spent. */
  check() {
    if (Date.now() > this.at)
      throw new QueryTimeout(`the query took longer than ${this.ms} ms (QUERY_TIMEOUT_MS)`)
  }

  /**
   * `work`, or QueryTimeout when the budget runs out first. Also checked once `work` is done: a store reading on
   * the event loop's thread finishes before the timer can fire, late or not.
   */
  async race<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new QueryTimeout(`the query took longer than ${this.ms} ms (QUERY_TIMEOUT_MS)`)),
        Math.max(0, this.at - Date.now()),
      )
    })
    try {
      const out = await Promise.race([work, late])
      this.check()
      return out
    } finally {
      clearTimeout(timer)
    }
  }
}

/** `work` within `budget` (Deadline.race), or just `work` when there is no budget (exports, tests). */
export function within<T>(budget: Deadline | undefined, work: Promise<T>): Promise<T> {
  return budget ? budget.race(work) : work
}
