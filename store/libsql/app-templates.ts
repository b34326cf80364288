import type { Db } from './db.ts'

/** TODO: filled in by the resource's implementation. */
export class AppTemplatesRepo {
  constructor(
    readonly db: Db,
    readonly tz: string,
  ) {}
}
