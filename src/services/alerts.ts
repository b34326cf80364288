import type { AlertEvent, EventBus } from '../kernel/events.ts'
import type { AlertEventCtx } from '../../store/types.ts'
import { enumerations } from '../enums.ts'
import type { Actor, ServiceDeps } from './types.ts'

/** alertSeverity → its English label: events have no reader whose language they could follow. */
const SEVERITY_LABELS: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(enumerations.alertSeverity).map(([code, l]) => [Number(code), l.en]),
)

/** What an alert change at `at` passes to the alert store, which writes its events with the change. */
export const alertEventCtx = (at: number): AlertEventCtx => ({
  at,
  severityLabels: SEVERITY_LABELS,
})

/** Announces alert events committed by the store (the live stream's wake-up, metrics, webhooks' wake-up). */
export function emitAlertEvents(
  bus: EventBus,
  name: 'alert.raised' | 'alert.cleared' | 'alert.acked',
  list: readonly AlertEvent[],
) {
  for (const e of list) bus.emit(name, e)
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
      const moved = await meta.alerts.clear(a.tenant, ids, alertEventCtx(now()))
      emitAlertEvents(events, 'alert.cleared', moved)
    },
    /**
     * Acknowledges a current alert: records who and when the first time (a later ack changes nothing and emits
     * nothing); it stays open. Answers the list record.
     */
    async ack(a: Actor & { username?: string | null }, id: number) {
      const ctx = alertEventCtx(now())
      const { alert, events: acked } = await meta.alerts.ack(a.tenant, id, a.username ?? null, ctx)
      emitAlertEvents(events, 'alert.acked', acked)
      return alert
    },
    /** Deletes history alerts of the tenant. */
    removeHistory: (a: Actor, ids: number[]) => meta.alerts.deleteHistory(a.tenant, ids),
  }
}
