import type { Db } from './db.ts'
import { EventFoldRepo } from './event-fold.ts'
import { indexStep } from './event-devices.ts'
import type { ProductRetention, RetentionRepository } from '../meta/retention.ts'

/**
 * The retention job's reads and deletes. Each prune is one DELETE of at most `limit` rows found by a range of an
 * index ordered by time (events_product, connect_logs_tenant, control_logs_tenant): a step touches only rows it
 * deletes (and, for control logs, the unfinished commands of the range), so it holds the write lock briefly.
 */
export class RetentionRepo implements RetentionRepository {
  private readonly fold: EventFoldRepo
  constructor(private readonly db: Db) {
    this.fold = new EventFoldRepo(db)
  }

  foldBoundary(cutoff: number) {
    return this.fold.boundary(cutoff)
  }

  foldEvents(boundary: number, after: number) {
    return this.fold.step(boundary, after)
  }

  indexEventDevices() {
    return indexStep(this.db)
  }

  async pruneEventBlocks(productIntID: number | null, before: number, limit: number) {
    const [r] = await this.db.batch([
      {
        sql: `DELETE FROM event_blocks WHERE id IN (SELECT id FROM event_blocks INDEXED BY event_blocks_product
                WHERE product_int_id IS ? AND t1 < ? LIMIT ?) RETURNING n`,
        args: [productIntID, before, limit],
      },
    ])
    const events = r!.rows.reduce((sum, row) => sum + Number(row.n ?? row[0]), 0)
    return { blocks: r!.rows.length, events }
  }

  async claim(name: string, now: number, leaseMs: number, intervalMs: number): Promise<boolean> {
    const [, claimed] = await this.db.batch([
      { sql: 'INSERT OR IGNORE INTO job_leases (name) VALUES (?)', args: [name] },
      {
        sql: `UPDATE job_leases SET claimed_until = ?, next_run_at = ?
              WHERE name = ? AND claimed_until <= ? AND next_run_at <= ?`,
        args: [now + leaseMs, now + intervalMs, name, now, now],
      },
    ])
    return claimed!.rowsAffected === 1
  }

  async release(name: string, result: string): Promise<void> {
    await this.db.run('UPDATE job_leases SET claimed_until = 0, last_result = ? WHERE name = ?', [
      result,
      name,
    ])
  }

  async lastRun(name: string) {
    const r = await this.db.one(
      'SELECT last_result AS result, next_run_at AS nextRunAt FROM job_leases WHERE name = ?',
      [name],
    )
    return r ? { result: r.result as string | null, nextRunAt: Number(r.nextRunAt) } : undefined
  }

  async products(): Promise<ProductRetention[]> {
    const rows = await this.db.all(
      `SELECT tenant_id AS tenantID, id AS productIntID, product_id AS productID,
              raw_retention_days AS rawRetentionDays, event_retention_days AS eventRetentionDays
         FROM products ORDER BY id`,
    )
    const days = (v: unknown) => (v === null || v === undefined ? null : Number(v))
    return rows.map((r) => ({
      tenantID: String(r.tenantID),
      productIntID: Number(r.productIntID),
      productID: String(r.productID),
      rawRetentionDays: days(r.rawRetentionDays),
      eventRetentionDays: days(r.eventRetentionDays),
    }))
  }

  async tenants(): Promise<string[]> {
    return (await this.db.all('SELECT tenant_id AS t FROM tenants ORDER BY tenant_id')).map((r) =>
      String(r.t),
    )
  }

  async pruneEvents(productIntID: number | null, before: number, limit: number): Promise<number> {
    const r = await this.db.run(
      `DELETE FROM events WHERE id IN (SELECT id FROM events INDEXED BY events_product
         WHERE product_int_id IS ? AND msg_time < ? LIMIT ?)`,
      [productIntID, before, limit],
    )
    return r.changes
  }

  async pruneConnectLogs(tenantID: string, before: number, limit: number): Promise<number> {
    const r = await this.db.run(
      `DELETE FROM connect_logs WHERE id IN (SELECT id FROM connect_logs INDEXED BY connect_logs_tenant
         WHERE tenant_id = ? AND msg_time < ? LIMIT ?)`,
      [tenantID, before, limit],
    )
    return r.changes
  }

  async pruneAuditLogs(tenantID: string, before: number, limit: number): Promise<number> {
    const r = await this.db.run(
      `DELETE FROM audit_logs WHERE id IN (SELECT id FROM audit_logs INDEXED BY audit_logs_tenant_time
         WHERE tenant_id = ? AND time < ? LIMIT ?)`,
      [tenantID, before, limit],
    )
    return r.changes
  }

  async pruneControlLogs(tenantID: string, before: number, limit: number): Promise<number> {
    const r = await this.db.run(
      `DELETE FROM control_logs WHERE id IN (SELECT id FROM control_logs INDEXED BY control_logs_tenant
         WHERE tenant_id = ? AND msg_time < ?
           AND (command_status IS NULL OR command_status NOT IN ('queued', 'sent')) LIMIT ?)`,
      [tenantID, before, limit],
    )
    return r.changes
  }

  reclaim(pages: number): Promise<number> {
    return this.db.reclaim(pages)
  }
}
