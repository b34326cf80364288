import type { Db } from './db.ts'
import type { FleetCounts, OverviewRepository } from '../meta/overview.ts'

/**
 * Each count walks an index of the tenant only: devices_tenant_kind (devices, gateways), the partial indexes of
 * migration 200 (online, blocked), events_tenant (messages in the window), current_alerts_tenant (open alerts).
 * The literal `device_status = 1` and `blocked = 1` let SQLite pick the partial indexes.
 */
const COUNTS = `SELECT
  (SELECT count(*) FROM devices WHERE tenant_id = ?1 AND kind = 'device') AS devices,
  (SELECT count(*) FROM devices WHERE tenant_id = ?1 AND kind = 'gateway') AS gateways,
  (SELECT count(*) FROM devices WHERE tenant_id = ?1 AND device_status = 1) AS online,
  (SELECT count(*) FROM devices WHERE tenant_id = ?1 AND blocked = 1) AS blocked,
  (SELECT count(*) FROM events WHERE tenant_id = ?1 AND msg_time >= ?2 AND msg_time < ?3) AS messages`

const ALERTS = `SELECT alert_severity AS severity, count(*) AS n FROM current_alerts WHERE tenant_id = ?
  GROUP BY alert_severity`

/** The fleet overview of a tenant (GET /api/v1/overview). */
export class OverviewRepo implements OverviewRepository {
  constructor(private readonly db: Db) {}

  async counts(tenant: string, since: number, until: number): Promise<FleetCounts> {
    const [counts, alerts] = await this.db.read([
      { sql: COUNTS, args: [tenant, since, until] },
      { sql: ALERTS, args: [tenant] },
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
      messages: Number(c.messages),
    }
  }
}
