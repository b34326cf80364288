import type { Db } from './db.ts'

/** TODO: filled in by the resource's implementation. */
export class MetricsRepo {
  constructor(
    readonly db: Db,
    readonly tz: string,
  ) {}
}
