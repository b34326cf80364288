import type { Db } from './db.ts'

/** TODO: filled in by the resource's implementation. */
export class SubscriptionsRepo {
  constructor(
    readonly db: Db,
    readonly tz: string,
  ) {}
}
