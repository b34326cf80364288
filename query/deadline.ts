/**
 * The time budget of one query (QUERY_TIMEOUT_MS): long queries check it between slices (cooperative: the
 * embedded store reads on the event loop's thread, so a timer alone would only fire after the work is done), and
 * `race` bounds a single store call that may hang (InfluxDB over the network).
 */
import { Unavailable } from '../store/errors.ts'

/** The budget ran out: an Unavailable, so the API answers 503 with Retry-After (src/app.ts). */
export class QueryTimeout extends Unavailable {}

export class Deadline {
  readonly at: number

  constructor(readonly ms: number) {
    this.at = Date.now() + ms
  }

  /** Throws QueryTimeout once the budget is spent. */
  check() {
    if (Date.now() > this.at) throw new QueryTimeout(`the query took longer than ${this.ms} ms (QUERY_TIMEOUT_MS)`)
  }

  /** `work`, or QueryTimeout when the budget runs out first. */
  async race<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new QueryTimeout(`the query took longer than ${this.ms} ms (QUERY_TIMEOUT_MS)`)), Math.max(0, this.at - Date.now()))
    })
    try {
      return await Promise.race([work, late])
    } finally {
      clearTimeout(timer)
    }
  }
}

/** No budget (exports, tests). */
export const NO_DEADLINE = { check() {}, race: <T>(work: Promise<T>) => work }
export type Budget = Pick<Deadline, 'check' | 'race'>
