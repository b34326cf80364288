import type { Actor, ServiceDeps } from './types.ts'

/** Alerts as operators handle them (the alert engine raises and clears current alerts itself). */
export function alertService({ meta }: ServiceDeps) {
  return {
    /** Handles current alerts by hand: they move to the history with their end time (all of `ids` or none). */
    clear: (a: Actor, ids: number[]) => meta.alerts.clear(a.tenant, ids),
    /** Deletes history alerts of the tenant. */
    removeHistory: (a: Actor, ids: number[]) => meta.alerts.deleteHistory(a.tenant, ids),
  }
}
