import type { Actor, ServiceDeps } from './types.ts'

/** Alerts as operators handle them (the alert engine raises and clears current alerts itself). */
export function alertService({ meta }: ServiceDeps) {
  return {
    /** Deletes history alerts of the tenant. */
    removeHistory: (a: Actor, ids: number[]) => meta.alerts.deleteHistory(a.tenant, ids),
  }
}
