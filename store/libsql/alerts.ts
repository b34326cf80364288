import type { InValue } from '@libsql/client'
import type { Db } from './db.ts'
import type {
  AlertEventCtx,
  AlertInput,
  AlertRef,
  AlertRepository,
  ClearReason,
  ListArgs,
  Row,
} from '../types.ts'
import { NotFound } from '../errors.ts'
import { listPage, marks, tenantList } from './list.ts'
import { readRequired } from './records.ts'
import { CURRENT_ALERT_TABLE, HISTORY_ALERT_TABLE } from '../fields/alerts.ts'
import { insertRows } from './db.ts'
import { alertEventsOf, alertEventStatements } from './alert-events.ts'

const CURRENT = tenantList(CURRENT_ALERT_TABLE, 'FROM current_alerts a', 'a')

const HISTORY = tenantList(HISTORY_ALERT_TABLE, 'FROM history_alerts a', 'a')

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
  'rule_id',
  'announced',
]
/** The open key (migration 110): one open alert per (rule, device), or per (name, device) without a rule. */
const OPEN_KEY = `(tenant_id, coalesce(rule_id, 0), iif(rule_id IS NULL, alert_name, ''), coalesce(device_id, ''))`

/** The columns of an AlertRef. */
const REF = `id, tenant_id AS tenantID, rule_id AS ruleID, alert_name AS alertName, alert_severity AS alertSeverity,
  alert_times AS alertTimes, alert_detail AS alertDetail, device_int_id AS deviceIntID, device_id AS deviceID,
  ack_user AS ackUser`

/**
 * An open alert with the same key is counted again and shows the latest values (without an event: it keeps
 * announced = 1). A new one is inserted with announced = 0 and announced by ANNOUNCE in the same transaction.
 */
const RAISE_UPSERT = `ON CONFLICT ${OPEN_KEY} DO UPDATE SET
  alert_times = alert_times + 1, alert_name = excluded.alert_name, alert_content = excluded.alert_content,
  alert_severity = excluded.alert_severity, alert_detail = excluded.alert_detail,
  device_name = excluded.device_name, update_at = excluded.create_at
  RETURNING ${REF}`

const MOVED = `tenant_id, alert_name, alert_content, alert_severity, alert_times, alert_detail, device_int_id,
  device_id, device_name, start_time, create_at, rule_id, ack_at, ack_user`

/**
 * The no-data alerts due at ?1 (now): devices of enabled no-data rules whose last uplink (or the later of the
 * rule's last edit and the device's creation) is older than the rule's noDataSeconds, with `{deviceName}` of the
 * rule's alertContent filled in (it has no values). A device's last uplink is the newest of its indexed tail rows,
 * of the rows above the index's mark (`newest`: one pass over them, ./event-devices.ts) and of its blocks. The
 * insert does nothing for an alert already open (another node or an earlier tick opened it).
 */
const NO_DATA = `WITH newest (device, t) AS MATERIALIZED (
    SELECT device_int_id, max(msg_time) FROM events
     WHERE id > (SELECT upto FROM event_device_mark) AND device_int_id IS NOT NULL GROUP BY device_int_id)
  INSERT INTO current_alerts (${RAISE_COLUMNS.join(', ')})
  SELECT r.tenant_id, r.rule_name, replace(r.alert_content, '{deviceName}', d.device_name), r.alert_severity,
    json_object('noDataSeconds', r.no_data_seconds), d.id, d.device_id, d.device_name, ?1, ?2, r.id, 0
  FROM alert_rules r JOIN devices d ON d.product_int_id = r.product_int_id AND d.tenant_id = r.tenant_id
  WHERE r.enable = 1 AND r.no_data_seconds IS NOT NULL
    AND (r.device_int_ids IS NULL OR d.id IN (SELECT value FROM json_each(r.device_int_ids)))
    AND max(coalesce((SELECT max(x.msg_time) FROM event_devices x WHERE x.device_int_id = d.id), 0),
      coalesce((SELECT n.t FROM newest n WHERE n.device = d.id), 0),
      coalesce((SELECT max(b.t1) FROM event_blocks b WHERE b.device_int_id = d.id), 0),
      coalesce((SELECT s.since FROM alert_states s WHERE s.rule_id = r.id AND s.device_int_id = d.id), 0),
      coalesce(r.update_at, r.create_at), d.create_at) < ?1 - r.no_data_seconds * 1000
    AND NOT EXISTS (SELECT 1 FROM current_alerts c WHERE c.rule_id = r.id AND c.device_int_id = d.id)
  ON CONFLICT DO NOTHING`

/** The alerts opened in this transaction: their alert.raised events, then they are marked announced. */
const ANNOUNCE = (ctx: AlertEventCtx) => [
  ...alertEventStatements('alert.raised', 'c.announced = 0', [], ctx),
  { sql: 'UPDATE current_alerts SET announced = 1 WHERE announced = 0', args: [] },
]

const refOf = (r: Row): AlertRef => ({
  id: Number(r.id),
  tenantID: String(r.tenantID),
  ruleID: r.ruleID === null || r.ruleID === undefined ? null : Number(r.ruleID),
  alertName: String(r.alertName),
  alertSeverity: Number(r.alertSeverity),
  alertTimes: Number(r.alertTimes),
  alertDetail: typeof r.alertDetail === 'string' ? JSON.parse(r.alertDetail) : null,
  deviceIntID: r.deviceIntID === null || r.deviceIntID === undefined ? null : Number(r.deviceIntID),
  deviceID: (r.deviceID as string | null) ?? null,
  ackUser: (r.ackUser as string | null) ?? null,
})

/** Current (open) and history (handled) alerts of a tenant. */
export class AlertsRepo implements AlertRepository {
  constructor(private readonly db: Db) {}

  async countCurrent() {
    const rows = await this.db.all(
      'SELECT alert_severity AS severity, count(*) AS n FROM current_alerts GROUP BY alert_severity',
    )
    return Object.fromEntries(rows.map((r) => [Number(r.severity), Number(r.n)]))
  }
  /** Open alerts, newest first (createAt). */
  current(tenant: string, q: ListArgs) {
    return listPage(this.db, CURRENT, [tenant], q)
  }

  /** Handled alerts, newest first (createAt). */
  history(tenant: string, q: ListArgs) {
    return listPage(this.db, HISTORY, [tenant], q)
  }

  /**
   * Raises alerts without events (tests; the alert engine calls raiseAlerts): each row opens a current alert, or,
   * when one is open with the same key, increments its alertTimes and takes the row's content, severity and
   * detail. Multi-row INSERTs in one transaction; returns the alert ids in input order.
   */
  async raise(rows: readonly AlertInput[]): Promise<number[]> {
    const results = await this.db.batch(this.upserts(rows, 1))
    return results.flatMap((rs) => rs.rows.map((r) => Number(r.id)))
  }

  async raiseAlerts(rows: readonly AlertInput[], ctx: AlertEventCtx) {
    if (!rows.length) return { alerts: [], events: [] }
    const upserts = this.upserts(rows, 0)
    const results = await this.db.batch([...upserts, ...ANNOUNCE(ctx)])
    return {
      alerts: results.slice(0, upserts.length).flatMap((rs) => rs.rows.map((r) => refOf(r))),
      events: alertEventsOf(results[upserts.length]),
    }
  }

  /** The upserts of `rows`; a new alert gets `announced` (0: ANNOUNCE writes its event in the transaction). */
  private upserts(rows: readonly AlertInput[], announced: 0 | 1) {
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
      r.ruleID ?? null,
      announced,
    ])
    return insertRows('current_alerts', RAISE_COLUMNS, values, RAISE_UPSERT)
  }

  async raiseNoData(ctx: AlertEventCtx) {
    const results = await this.db.batch([
      { sql: NO_DATA, args: [ctx.at, Date.now()] },
      ...ANNOUNCE(ctx),
    ])
    return alertEventsOf(results[1])
  }

  async close(ids: readonly number[], reason: ClearReason, ctx: AlertEventCtx) {
    if (!ids.length) return []
    return this.move(`id IN (${marks(ids.length)})`, [...ids], reason, ctx)
  }

  async closeOfRules(ruleIDs: readonly number[], reason: ClearReason, ctx: AlertEventCtx) {
    if (!ruleIDs.length) return []
    return this.move(`rule_id IN (${marks(ruleIDs.length)})`, [...ruleIDs], reason, ctx)
  }

  async closeOfGoneRules(ctx: AlertEventCtx) {
    return this.move(
      `rule_id IS NOT NULL AND rule_id NOT IN (SELECT id FROM alert_rules WHERE enable = 1)`,
      [],
      'rule',
      ctx,
    )
  }

  async openOf(deviceIntIDs: readonly number[]): Promise<AlertRef[]> {
    if (!deviceIntIDs.length) return []
    const rows = await this.db.all(
      `SELECT ${REF} FROM current_alerts WHERE device_int_id IN (${marks(deviceIntIDs.length)})`,
      [...deviceIntIDs],
    )
    return rows.map(refOf)
  }

  async ack(tenant: string, id: number, ackUser: string | null, ctx: AlertEventCtx) {
    const first = 'tenant_id = ? AND id = ? AND ack_at IS NULL'
    const results = await this.db.batch([
      ...alertEventStatements('alert.acked', first, [tenant, id], ctx, {
        sql: `, 'ackUser', ?`,
        args: [ackUser],
      }),
      {
        sql: `UPDATE current_alerts SET ack_at = ?, ack_user = ?, update_at = ? WHERE ${first}`,
        args: [ctx.at, ackUser, ctx.at, tenant, id],
      },
    ])
    const alert = await readRequired(
      this.db,
      CURRENT_ALERT_TABLE,
      'FROM current_alerts a WHERE a.tenant_id = ? AND a.id = ?',
      [tenant, id],
    )
    return { alert, events: alertEventsOf(results[0]) }
  }

  /**
   * Moves the open alerts matching `where` to the history (same ids) and stores their alert.cleared events, in
   * one transaction; answers the events.
   */
  private async move(where: string, args: InValue[], reason: ClearReason, ctx: AlertEventCtx) {
    const results = await this.db.batch([
      {
        sql: `INSERT OR IGNORE INTO history_alerts (id, ${MOVED}, end_time, update_at)
              SELECT id, ${MOVED}, ?, ? FROM current_alerts WHERE ${where}`,
        args: [ctx.at, ctx.at, ...args],
      },
      ...alertEventStatements('alert.cleared', where, args, ctx, {
        sql: `, 'reason', ?`,
        args: [reason],
      }),
      { sql: `DELETE FROM current_alerts WHERE ${where}`, args },
    ])
    return alertEventsOf(results[1])
  }

  /**
   * Handles (clears) current alerts: all of `ids` move to the history with endTime = `ctx.at` (same ids), with
   * their alert.cleared events, in one transaction; NotFound('ids') and nothing moved when one is not an open
   * alert of the tenant.
   */
  async clear(tenant: string, ids: number[], ctx: AlertEventCtx) {
    await this.requireAll('current_alerts', tenant, ids)
    const where = `tenant_id = ? AND id IN (${marks(ids.length)})`
    return this.move(where, [tenant, ...ids], 'handled', ctx)
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
