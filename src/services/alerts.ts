import type { AlertEvent } from '../kernel/events.ts'
import type { AlertRef } from '../../store/types.ts'
import type { Actor, ServiceDeps } from './types.ts'

/** The domain event of an alert's change. */
export function alertEventOf(
  a: AlertRef,
  at: number,
  extra: Pick<AlertEvent, 'reason' | 'ackUser'> = {},
): AlertEvent {
  return {
    tenantID: a.tenantID,
    alertID: a.id,
    ruleID: a.ruleID,
    alertName: a.alertName,
    alertSeverity: a.alertSeverity,
    deviceIntID: a.deviceIntID,
    deviceID: a.deviceID,
    alertTimes: a.alertTimes,
    alertDetail: a.alertDetail,
    at,
    ...extra,
  }
}

/** Alerts as operators handle them (the alert engine raises and clears current alerts itself). */
export function alertService({
  meta,
  events,
  now = Date.now,
}: ServiceDeps & { now?: () => number }) {
  return {
    /** Handles current alerts by hand: they move to the history with their end time (all of `ids` or none). */
    async clear(a: Actor, ids: number[]) {
      const t = now()
      for (const moved of await meta.alerts.clear(a.tenant, ids, t))
        events.emit('alert.cleared', alertEventOf(moved, t, { reason: 'handled' }))
    },
    /** Acknowledges a current alert: records who and when; it stays open. Answers the list record. */
    async ack(a: Actor & { username?: string | null }, id: number) {
      const t = now()
      const row = await meta.alerts.ack(a.tenant, id, a.username ?? null, t)
      const ref: AlertRef = {
        id,
        tenantID: a.tenant,
        ruleID: (row.ruleID as number | null) ?? null,
        alertName: String(row.alertName),
        alertSeverity: Number(row.alertSeverity),
        alertTimes: Number(row.alertTimes),
        alertDetail: typeof row.alertDetail === 'string' ? JSON.parse(row.alertDetail) : null,
        deviceIntID: (row.deviceIntID as number | null) ?? null,
        deviceID: (row.deviceID as string | null) ?? null,
      }
      events.emit('alert.acked', alertEventOf(ref, t, { ackUser: a.username ?? null }))
      return row
    },
    /** Deletes history alerts of the tenant. */
    removeHistory: (a: Actor, ids: number[]) => meta.alerts.deleteHistory(a.tenant, ids),
  }
}
