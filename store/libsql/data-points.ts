import type { Db } from './db.ts'

/** TODO: filled in by the resource's implementation. */
export class DataPointsRepo {
  constructor(
    readonly db: Db,
    readonly tz: string,
  ) {}
}
