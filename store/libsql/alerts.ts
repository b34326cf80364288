import type { InValue } from '@libsql/client'
import type { Db } from './db.ts'
import type { AlertInput, AlertRepository, ListArgs, Page } from '../types.ts'
import { NotFound } from '../errors.ts'
import { listPage, marks, type ListSpec } from './list.ts'
import { insertRows } from './logs-sql.ts'

const COLUMNS = `a.id AS id, a.alert_name AS alertName, a.alert_content AS alertContent,
  a.alert_severity AS alertSeverity, a.alert_times AS alertTimes, a.alert_detail AS alertDetail,
  a.device_id AS deviceID, a.device_name AS deviceName, a.start_time AS startTime, a.create_at AS createAt,
  a.update_at AS updateAt`

const spec = (table: 'current_alerts' | 'history_alerts'): ListSpec => ({
  columns: `SELECT ${COLUMNS}${table === 'history_alerts' ? ', a.end_time AS endTime' : ''}`,
  from: `FROM ${table} a`,
  where: 'a.tenant_id = ?',
  fields: {
    alertName: 'a.alert_name',
    deviceID: 'a.device_id',
    deviceName: 'a.device_name',
    alertSeverity: 'a.alert_severity',
    alertTimes: 'a.alert_times',
    startTime: 'a.start_time',
    ...(table === 'history_alerts' ? { endTime: 'a.end_time' } : {}),
    createAt: 'a.create_at',
    updateAt: 'a.update_at',
  },
  timeField: 'a.create_at',
  idField: 'a.id',
})

const CURRENT = spec('current_alerts')
const HISTORY = spec('history_alerts')

const RAISE_COLUMNS = [
  'tenant_id',
  'alert_name',
  'alert_content',
  'alert_severity',
  'alert_detail',
  'device_int_id',
  'device_id',
  'device_name',
  'start_time',
  'create_at',
]
/** An open alert with the same tenant, name and device is counted again and shows the latest values. */
const RAISE_UPSERT = `ON CONFLICT (tenant_id, alert_name, coalesce(device_id, '')) DO UPDATE SET
  alert_times = alert_times + 1, alert_content = excluded.alert_content, alert_severity = excluded.alert_severity,
  alert_detail = excluded.alert_detail, device_name = excluded.device_name, update_at = excluded.create_at
  RETURNING id`

const MOVED = `tenant_id, alert_name, alert_content, alert_severity, alert_times, alert_detail, device_int_id,
  device_id, device_name, start_time, create_at`

/** Current (open) and history (handled) alerts of a tenant. */
export class AlertsRepo implements AlertRepository {
  constructor(private readonly db: Db) {}

  /** Open alerts, newest first (createAt). */
  current(tenant: string, q: ListArgs): Promise<Page> {
    return listPage(this.db, CURRENT, [tenant], q)
  }

  /** Handled alerts, newest first (createAt). */
  history(tenant: string, q: ListArgs): Promise<Page> {
    return listPage(this.db, HISTORY, [tenant], q)
  }

  /**
   * Raises alerts (the ingest's rule engine calls this): each row opens a current alert, or, when one is open
   * with the same tenant, alertName and deviceID, increments its alertTimes and takes the row's content,
   * severity and detail. Multi-row INSERTs in one transaction; returns the alert ids in input order.
   */
  async raise(rows: readonly AlertInput[]): Promise<number[]> {
    if (!rows.length) return []
    const now = Date.now()
    const values = rows.map((r): InValue[] => [
      r.tenantID,
      r.alertName,
      r.alertContent ?? null,
      r.alertSeverity,
      detailText(r.alertDetail),
      r.deviceIntID ?? null,
      r.deviceID ?? null,
      r.deviceName ?? null,
      r.time ?? now,
      now,
    ])
    const results = await this.db.batch(
      insertRows('current_alerts', RAISE_COLUMNS, values, RAISE_UPSERT),
    )
    return results.flatMap((rs) => rs.rows.map((r) => Number(r.id)))
  }

  /**
   * Handles (clears) current alerts: all of `ids` move to the history with endTime = `now` (same ids), in one
   * transaction; NotFound('ids') and nothing moved when one is not an open alert of the tenant.
   */
  async clear(tenant: string, ids: number[], now = Date.now()): Promise<void> {
    await this.requireAll('current_alerts', tenant, ids)
    const where = `tenant_id = ? AND id IN (${marks(ids.length)})`
    await this.db.batch([
      {
        sql: `INSERT INTO history_alerts (id, ${MOVED}, end_time, update_at)
              SELECT id, ${MOVED}, ?, ? FROM current_alerts WHERE ${where}`,
        args: [now, now, tenant, ...ids],
      },
      { sql: `DELETE FROM current_alerts WHERE ${where}`, args: [tenant, ...ids] },
    ])
  }

  /** Deletes history alerts: all of `ids` or none (NotFound('ids')). */
  async deleteHistory(tenant: string, ids: number[]): Promise<void> {
    await this.requireAll('history_alerts', tenant, ids)
    const sql = `DELETE FROM history_alerts WHERE tenant_id = ? AND id IN (${marks(ids.length)})`
    await this.db.run(sql, [tenant, ...ids])
  }

  private async requireAll(
    table: 'current_alerts' | 'history_alerts',
    tenant: string,
    ids: number[],
  ) {
    const r = await this.db.one(
      `SELECT count(*) AS n FROM ${table} WHERE tenant_id = ? AND id IN (${marks(ids.length)})`,
      [tenant, ...ids],
    )
    if (Number(r?.n ?? 0) !== ids.length) throw new NotFound('ids')
  }
}

function detailText(detail: unknown): string | null {
  return detail === undefined || detail === null ? null : JSON.stringify(detail)
}
