/** What the retention job reads and deletes in the metadata store (src/services/retention.ts). */

/** A product's retention, as stored (null: the service's setting). */
export interface ProductRetention {
  tenantID: string
  productIntID: number
  productID: string
  rawRetentionDays: number | null
  eventRetentionDays: number | null
}

export interface RetentionRepository {
  /**
   * Claims the periodic job `name` when it is due and no process holds it: true for exactly one caller across
   * processes; the claim lasts `leaseMs` and the next run is due `intervalMs` after `now`.
   */
  claim(name: string, now: number, leaseMs: number, intervalMs: number): Promise<boolean>
  /** Ends a claim, recording what the run did (JSON text). */
  release(name: string, result: string): Promise<void>
  /** The last result a run recorded, and when the next run is due (undefined before the first run). */
  lastRun(name: string): Promise<{ result: string | null; nextRunAt: number } | undefined>
  /** Every product with its retention (all tenants). */
  products(): Promise<ProductRetention[]>
  /** Every tenant id. */
  tenants(): Promise<string[]>
  /**
   * Deletes at most `limit` uplink events of the product (null: events of no product) older than `before` (epoch
   * ms); the number deleted (fewer than `limit`: nothing older is left).
   */
  pruneEvents(productIntID: number | null, before: number, limit: number): Promise<number>
  /**
   * Deletes at most `limit` folded event blocks of the product (null: of no product) whose every event is older
   * than `before`; the blocks and the events they held.
   */
  pruneEventBlocks(
    productIntID: number | null,
    before: number,
    limit: number,
  ): Promise<{ blocks: number; events: number }>
  /** The highest uplink event id of the tail inserted before `cutoff` (0: none): what a fold may move. */
  foldBoundary(cutoff: number): Promise<number>
  /**
   * Folds the tail events with ids up to `boundary` of the next few devices after device `after` (0: the first)
   * into blocks; `next` is the device to go on after (undefined: done).
   */
  foldEvents(
    boundary: number,
    after: number,
  ): Promise<{ events: number; blocks: number; next: number | undefined }>
  /**
   * Indexes the next tail events by device (a bounded range of ids past the index's mark) and moves the mark, in
   * one transaction; `more`: newer rows wait for the next step.
   */
  indexEventDevices(): Promise<{ indexed: number; more: boolean }>
  /** Deletes at most `limit` of the tenant's connection logs older than `before`; the number deleted. */
  pruneConnectLogs(tenantID: string, before: number, limit: number): Promise<number>
  /**
   * Deletes at most `limit` of the tenant's finished control logs (commands no longer queued or sent) older than
   * `before`; the number deleted.
   */
  pruneControlLogs(tenantID: string, before: number, limit: number): Promise<number>
  /** Deletes at most `limit` of the tenant's audit log rows older than `before`; the number deleted. */
  pruneAuditLogs(tenantID: string, before: number, limit: number): Promise<number>
  /**
   * Gives up to `pages` of the store's free pages back to the file system when a quarter of its file is free (one
   * short write); the pages still due after it (0: done, or nothing to give back).
   */
  reclaim(pages: number): Promise<number>
}
