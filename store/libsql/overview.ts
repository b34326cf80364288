import type { Db } from './db.ts'
import { EventLog } from './event-log.ts'
import type { FleetCounts, OverviewRepository } from '../meta/overview.ts'

/**
 * Devices, gateways, online and blocked come from `device_counts` (migration 240, kept by triggers): a few rows per
 * tenant, whatever the fleet's size. Messages in the window are counted by the event log (tail and folded blocks), open alerts current_alerts_tenant.
 */
const COUNTS = `SELECT
  (SELECT coalesce(sum(n), 0) FROM device_counts WHERE tenant_id = ?1 AND kind = 'device') AS devices,
  (SELECT coalesce(sum(n), 0) FROM device_counts WHERE tenant_id = ?1 AND kind = 'gateway') AS gateways,
  (SELECT coalesce(sum(online), 0) FROM device_counts WHERE tenant_id = ?1) AS online,
  (SELECT coalesce(sum(blocked), 0) FROM device_counts WHERE tenant_id = ?1) AS blocked`

const ALERTS = `SELECT alert_severity AS severity, count(*) AS n FROM current_alerts WHERE tenant_id = ?
  GROUP BY alert_severity`

/** The fleet overview of a tenant (GET /api/v1/overview). */
export class OverviewRepo implements OverviewRepository {
  private readonly eventLog: EventLog
  constructor(private readonly db: Db) {
    this.eventLog = new EventLog(db)
  }

  async counts(tenant: string, since: number, until: number): Promise<FleetCounts> {
    const [[counts, alerts], messages] = await Promise.all([
      this.db.read([
        { sql: COUNTS, args: [tenant] },
        { sql: ALERTS, args: [tenant] },
      ]),
      // the event log's tail and folded blocks (until is exclusive)
      this.eventLog.count(tenant, since, until - 1),
    ])
    const c = counts![0]!
    const openAlerts = { 1: 0, 2: 0, 3: 0, 4: 0 }
    for (const a of alerts!) {
      const s = Number(a.severity)
      if (s === 1 || s === 2 || s === 3 || s === 4) openAlerts[s] = Number(a.n)
    }
    return {
      devices: Number(c.devices),
      gateways: Number(c.gateways),
      online: Number(c.online),
      blocked: Number(c.blocked),
      openAlerts,
      messages,
    }
  }
}
