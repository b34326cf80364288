import type { InValue } from '@libsql/client'
import type { Db } from './db.ts'
import type {
  ConnectLogInput,
  ControlLogInput,
  EventInput,
  ListArgs,
  LogRepository,
} from '../types.ts'
import { NotFound } from '../errors.ts'
import { listPage, type TableListSpec } from './list.ts'
import { EventLog } from './event-log.ts'
import type { FieldTable } from '../fields/table.ts'
import {
  connectLogInserts,
  connectLogSpec,
  controlLogInserts,
  controlLogSpec,
  DEVICE_ROWS,
  eventRows,
  GROUP_ROWS,
} from './logs-sql.ts'

/**
 * Connection logs, uplink messages (events) and downlink messages (control logs). The read side serves the
 * log lists; the write side is the port the ingest pipeline uses (multi-row INSERTs, one transaction per call).
 */
export class LogsRepo implements LogRepository {
  private readonly eventLog: EventLog
  constructor(private readonly db: Db) {
    this.eventLog = new EventLog(db)
  }

  /** Connection logs of the tenant, newest first (msgTime). */
  connectLogs(tenant: string, q: ListArgs) {
    return listPage(this.db, connectLogSpec(), [tenant], q)
  }

  /** Uplink messages of the tenant, newest first (the tail and the folded blocks: store/libsql/event-log.ts). */
  events(tenant: string, q: ListArgs) {
    return this.eventLog.list(tenant, q)
  }

  /** Device downlinks of the tenant (not the groups' own rows), newest first. */
  controlLogs(tenant: string, q: ListArgs) {
    return listPage(this.db, controlLogSpec(DEVICE_ROWS), [tenant], q)
  }

  /** Connection logs of one device or gateway of the tenant; NotFound when it is not the tenant's. */
  deviceConnectLogs(tenant: string, deviceIntID: number, q: ListArgs) {
    return this.deviceList(connectLogSpec(' AND l.device_int_id = ?'), tenant, deviceIntID, q)
  }

  /** Uplink messages of one device or gateway of the tenant (gateway-only with `kind`); NotFound otherwise. */
  async deviceEvents(tenant: string, deviceIntID: number, q: ListArgs, kind?: 'gateway') {
    await this.ownDevice(tenant, deviceIntID, kind)
    return this.eventLog.list(tenant, q, deviceIntID)
  }

  /** Downlinks to one device or gateway of the tenant (gateway-only with `kind`); NotFound otherwise. */
  deviceControlLogs(tenant: string, deviceIntID: number, q: ListArgs, kind?: 'gateway') {
    const spec = controlLogSpec(' AND c.device_int_id = ?')
    return this.deviceList(spec, tenant, deviceIntID, q, kind)
  }

  /** A page of `spec` (its where ending with the device condition) once the device is the tenant's. */
  private async deviceList<T extends FieldTable>(
    spec: TableListSpec<T>,
    tenant: string,
    deviceIntID: number,
    q: ListArgs,
    kind?: 'gateway',
  ) {
    await this.ownDevice(tenant, deviceIntID, kind)
    return listPage(this.db, spec, [tenant, deviceIntID], q)
  }

  /** A group's own control logs (one per group command); NotFound when the group is not the tenant's. */
  async groupControlLogs(tenant: string, groupIntID: number, q: ListArgs) {
    const g = await this.db.one('SELECT id FROM groups WHERE tenant_id = ? AND id = ?', [
      tenant,
      groupIntID,
    ])
    if (!g) throw new NotFound()
    return listPage(this.db, controlLogSpec(GROUP_ROWS), [tenant, groupIntID], q)
  }

  private async ownDevice(tenant: string, id: number, kind?: 'gateway') {
    const sql = `SELECT id FROM devices WHERE tenant_id = ? AND id = ?${kind ? ' AND kind = ?' : ''}`
    const r = await this.db.one(sql, kind ? [tenant, id, kind] : [tenant, id])
    if (!r) throw new NotFound()
  }

  /** Appends connection logs in one transaction (multi-row INSERTs). Returns how many were written. */
  async addConnectLogs(rows: readonly ConnectLogInput[]): Promise<number> {
    if (!rows.length) return 0
    await this.db.batch(connectLogInserts(rows, Date.now()))
    return rows.length
  }

  /** Appends uplink messages in one transaction (multi-row INSERTs). Returns how many were written. */
  async addEvents(rows: readonly EventInput[]): Promise<number> {
    if (!rows.length) return 0
    await this.db.insertJson(eventRows(rows, Date.now()))
    return rows.length
  }

  /** Appends one control log; returns its id. */
  async addControlLog(row: ControlLogInput): Promise<number> {
    const [id] = await this.addControlLogs([row])
    return id!
  }

  /** Appends control logs in one transaction (multi-row INSERTs); returns their ids in input order. */
  async addControlLogs(rows: readonly ControlLogInput[]): Promise<number[]> {
    if (!rows.length) return []
    const results = await this.db.batch(controlLogInserts(rows, Date.now()))
    return results.flatMap((rs) => rs.rows.map((r) => Number(r.id)))
  }

  /**
   * Sets the publishStatus of a control log by record id (number) or of every log of a task (taskID string),
   * and its updateAt. With `whenStatus`, only logs currently in that status change (e.g. a timeout sets 0 only
   * while still 1, so a late timer never overwrites an acknowledgement). Returns how many logs changed.
   */
  async setControlLogStatus(
    ref: number | string,
    publishStatus: number,
    opts: { whenStatus?: number; tenantID?: string } = {},
  ): Promise<number> {
    const conds = [typeof ref === 'number' ? 'id = ?' : 'task_id = ?']
    const args: InValue[] = [publishStatus, Date.now(), ref]
    if (opts.whenStatus !== undefined) {
      conds.push('publish_status = ?')
      args.push(opts.whenStatus)
    }
    if (opts.tenantID !== undefined) {
      conds.push('tenant_id = ?')
      args.push(opts.tenantID)
    }
    const sql = `UPDATE control_logs SET publish_status = ?, update_at = ? WHERE ${conds.join(' AND ')}`
    const r = await this.db.run(sql, args)
    return r.changes
  }
}
