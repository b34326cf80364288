import type { InValue } from '@libsql/client'
import type { Db } from './db.ts'
import type { ListArgs, Page } from '../types.ts'
import { NotFound } from '../errors.ts'
import { listPage } from './list.ts'
import {
  connectLogSpec,
  controlLogSpec,
  DEVICE_ROWS,
  eventSpec,
  GROUP_ROWS,
  insertRows,
} from './logs-sql.ts'

/** One connection attempt (CONTRACT §5: every attempt is logged; a refused one has status 2). */
export interface ConnectLogInput {
  /** Null when the client id matched no device (the log then shows in no tenant's list). */
  tenantID: string | null
  deviceIntID?: number | null
  /** The MQTT client id. */
  deviceID: string
  deviceName?: string | null
  /** 0 offline (disconnected), 1 online (connected), 2 authentication failed. */
  connectStatus: number
  IP?: string | null
  keepAlive?: number | null
  /** Epoch milliseconds of the connect/disconnect; default now. */
  msgTime?: number
}

/** One uplink message, logged with its raw payload (CONTRACT §5). */
export interface EventInput {
  tenantID: string
  deviceIntID?: number | null
  deviceID: string
  /** The device's name at the time (logs outlive the device record). */
  deviceName?: string | null
  /** Shows the product's name in the list (Variant B). */
  productIntID?: number | null
  /** The device's relative topic. */
  topic?: string | null
  payload?: string | null
  IP?: string | null
  /** 1 (default): every value was stored as a data point; 0: some or all were not, `reason` says why. */
  status?: number
  reason?: string | null
  /** Epoch milliseconds the platform received it; default now. */
  msgTime?: number
}

/**
 * One downlink. A command to a device names the device; a group command writes one row naming the group and no
 * device (the group's control log); deliveries of a group command to its devices may add one row per device
 * (device fields set, group fields optional) which show in the device logs only.
 */
export interface ControlLogInput {
  tenantID: string
  deviceIntID?: number | null
  deviceID?: string | null
  deviceName?: string | null
  groupIntID?: number | null
  groupID?: string | null
  groupName?: string | null
  /** The task_id sent in the command envelope; acknowledgements find the log by it. */
  taskID?: string | null
  topic?: string | null
  /** The payload as the caller gave it (text; gateway logs parse it as JSON when they can). */
  payload?: string | null
  /** 0 failed, 1 issued, 2 acknowledged, 3 no receipt needed (CONTRACT §5). */
  publishStatus: number
  /** The issuing user's name (shown as publishUser, and createUser in gateway logs). */
  publishUser?: string | null
  userIntID?: number | null
  /** Epoch milliseconds it was issued; default now. */
  msgTime?: number
}

/** What prune removed, per table. */
export interface PruneResult {
  events: number
  connectLogs: number
  controlLogs: number
}

const CONNECT_COLUMNS = [
  'tenant_id',
  'device_int_id',
  'device_id',
  'device_name',
  'connect_status',
  'ip',
  'keep_alive',
  'msg_time',
  'create_at',
]
const EVENT_COLUMNS = [
  'tenant_id',
  'device_int_id',
  'device_id',
  'device_name',
  'product_int_id',
  'topic',
  'payload',
  'ip',
  'status',
  'reason',
  'msg_time',
  'create_at',
]
const CONTROL_COLUMNS = [
  'tenant_id',
  'device_int_id',
  'device_id',
  'device_name',
  'group_int_id',
  'group_id',
  'group_name',
  'task_id',
  'topic',
  'payload',
  'publish_status',
  'publish_user',
  'user_int_id',
  'msg_time',
  'create_at',
]
/** Rows deleted per prune statement, so a large prune never holds the write lock for long. */
const PRUNE_CHUNK = 5000

/**
 * Connection logs, uplink messages (events) and downlink messages (control logs). The read side serves the
 * log lists; the write side is the port the ingest pipeline uses (multi-row INSERTs, one transaction per call).
 */
export class LogsRepo {
  constructor(
    readonly db: Db,
    readonly tz: string,
  ) {}

  /** Connection logs of the tenant, newest first (msgTime). */
  connectLogs(tenant: string, q: ListArgs): Promise<Page> {
    return listPage(this.db, connectLogSpec(), [tenant], q, this.tz)
  }

  /** Uplink messages of the tenant, newest first. */
  events(tenant: string, q: ListArgs): Promise<Page> {
    return listPage(this.db, eventSpec(), [tenant], q, this.tz)
  }

  /** Device downlinks of the tenant (not the groups' own rows), newest first. */
  controlLogs(tenant: string, q: ListArgs): Promise<Page> {
    return listPage(this.db, controlLogSpec(DEVICE_ROWS), [tenant], q, this.tz)
  }

  /** Connection logs of one device or gateway of the tenant; NotFound when it is not the tenant's. */
  async deviceConnectLogs(tenant: string, deviceIntID: number, q: ListArgs): Promise<Page> {
    await this.ownDevice(tenant, deviceIntID)
    return listPage(
      this.db,
      connectLogSpec(' AND l.device_int_id = ?'),
      [tenant, deviceIntID],
      q,
      this.tz,
    )
  }

  /** Uplink messages of one device or gateway of the tenant (gateway-only with `kind`); NotFound otherwise. */
  async deviceEvents(
    tenant: string,
    deviceIntID: number,
    q: ListArgs,
    kind?: 'gateway',
  ): Promise<Page> {
    await this.ownDevice(tenant, deviceIntID, kind)
    return listPage(
      this.db,
      eventSpec(' AND e.device_int_id = ?'),
      [tenant, deviceIntID],
      q,
      this.tz,
    )
  }

  /** Downlinks to one device or gateway of the tenant (gateway-only with `kind`); NotFound otherwise. */
  async deviceControlLogs(
    tenant: string,
    deviceIntID: number,
    q: ListArgs,
    kind?: 'gateway',
  ): Promise<Page> {
    await this.ownDevice(tenant, deviceIntID, kind)
    return listPage(
      this.db,
      controlLogSpec(' AND c.device_int_id = ?'),
      [tenant, deviceIntID],
      q,
      this.tz,
    )
  }

  /** A group's own control logs (one per group command); NotFound when the group is not the tenant's. */
  async groupControlLogs(tenant: string, groupIntID: number, q: ListArgs): Promise<Page> {
    const g = await this.db.one('SELECT id FROM groups WHERE tenant_id = ? AND id = ?', [
      tenant,
      groupIntID,
    ])
    if (!g) throw new NotFound()
    return listPage(this.db, controlLogSpec(GROUP_ROWS), [tenant, groupIntID], q, this.tz)
  }

  private async ownDevice(tenant: string, id: number, kind?: 'gateway') {
    const sql = `SELECT id FROM devices WHERE tenant_id = ? AND id = ?${kind ? ' AND kind = ?' : ''}`
    const r = await this.db.one(sql, kind ? [tenant, id, kind] : [tenant, id])
    if (!r) throw new NotFound()
  }

  /** Appends connection logs in one transaction (multi-row INSERTs). Returns how many were written. */
  async addConnectLogs(rows: readonly ConnectLogInput[]): Promise<number> {
    if (!rows.length) return 0
    const now = Date.now()
    const values = rows.map((r): InValue[] => [
      r.tenantID,
      r.deviceIntID ?? null,
      r.deviceID,
      r.deviceName ?? null,
      r.connectStatus,
      r.IP ?? null,
      r.keepAlive ?? null,
      r.msgTime ?? now,
      now,
    ])
    await this.db.batch(insertRows('connect_logs', CONNECT_COLUMNS, values))
    return rows.length
  }

  /** Appends uplink messages in one transaction (multi-row INSERTs). Returns how many were written. */
  async addEvents(rows: readonly EventInput[]): Promise<number> {
    if (!rows.length) return 0
    const now = Date.now()
    const values = rows.map((r): InValue[] => [
      r.tenantID,
      r.deviceIntID ?? null,
      r.deviceID,
      r.deviceName ?? null,
      r.productIntID ?? null,
      r.topic ?? null,
      r.payload ?? null,
      r.IP ?? null,
      r.status ?? 1,
      r.reason ?? null,
      r.msgTime ?? now,
      now,
    ])
    await this.db.batch(insertRows('events', EVENT_COLUMNS, values))
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
    const now = Date.now()
    const values = rows.map((r): InValue[] => [
      r.tenantID,
      r.deviceIntID ?? null,
      r.deviceID ?? null,
      r.deviceName ?? null,
      r.groupIntID ?? null,
      r.groupID ?? null,
      r.groupName ?? null,
      r.taskID ?? null,
      r.topic ?? null,
      r.payload ?? null,
      r.publishStatus,
      r.publishUser ?? null,
      r.userIntID ?? null,
      r.msgTime ?? now,
      now,
    ])
    const results = await this.db.batch(
      insertRows('control_logs', CONTROL_COLUMNS, values, 'RETURNING id'),
    )
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

  /**
   * Retention: deletes events, connection logs and control logs whose msgTime is more than `olderThanMs`
   * milliseconds before `now`, in chunks (the oldest rows come first by id, so each chunk is found quickly).
   */
  async prune(olderThanMs: number, now = Date.now()): Promise<PruneResult> {
    const cutoff = now - olderThanMs
    return {
      events: await this.pruneTable('events', cutoff),
      connectLogs: await this.pruneTable('connect_logs', cutoff),
      controlLogs: await this.pruneTable('control_logs', cutoff),
    }
  }

  private async pruneTable(
    table: 'events' | 'connect_logs' | 'control_logs',
    cutoff: number,
  ): Promise<number> {
    let total = 0
    for (;;) {
      const r = await this.db.run(
        `DELETE FROM ${table} WHERE id IN (SELECT id FROM ${table} WHERE msg_time < ? ORDER BY id LIMIT ?)`,
        [cutoff, PRUNE_CHUNK],
      )
      total += r.changes
      if (r.changes < PRUNE_CHUNK) return total
    }
  }
}
