import type { PolicyCreate, PolicyUpdate } from '../schemas/policies.ts'
import type { SubscriptionCreate } from '../schemas/subscriptions.ts'
import type { Actor, ServiceDeps } from './types.ts'

/**
 * Topic access: policies, their bindings to devices, and devices' proxy subscriptions. Each write announces
 * `acl.changed` for the devices whose access it changed (the whole tenant for a policy edit or delete).
 */
export function policyService({ meta, events }: ServiceDeps) {
  const changed = (tenantID: string, deviceIntIDs: number[] | 'all') =>
    events.emit('acl.changed', { tenantID, deviceIntIDs })

  const policies = {
    create: (a: Actor, body: PolicyCreate) => meta.policies.create(a.tenant, a.userIntID, body),
    async update(a: Actor, id: number, body: PolicyUpdate) {
      const updated = await meta.policies.update(a.tenant, id, body)
      changed(a.tenant, 'all')
      return updated
    },
    /** Refused (Referenced) while a policy is bound to devices. */
    async remove(a: Actor, ids: number[]) {
      await meta.policies.delete(a.tenant, ids)
      changed(a.tenant, 'all')
    },
  }

  const bindings = {
    async bindDevices(a: Actor, policyIntID: number, deviceIntIDs: number[]) {
      await meta.policies.bindings.bindDevices(a.tenant, policyIntID, deviceIntIDs)
      changed(a.tenant, deviceIntIDs)
    },
    async unbindDevices(a: Actor, policyIntID: number, deviceIntIDs: number[]) {
      await meta.policies.bindings.unbindDevices(a.tenant, policyIntID, deviceIntIDs)
      changed(a.tenant, deviceIntIDs)
    },
    async bindPolicies(a: Actor, deviceIntID: number, policyIntIDs: number[]) {
      await meta.policies.bindings.bindPolicies(a.tenant, deviceIntID, policyIntIDs)
      changed(a.tenant, [deviceIntID])
    },
    async unbindPolicies(a: Actor, deviceIntID: number, policyIntIDs: number[]) {
      await meta.policies.bindings.unbindPolicies(a.tenant, deviceIntID, policyIntIDs)
      changed(a.tenant, [deviceIntID])
    },
  }

  const subscriptions = {
    async create(a: Actor, deviceIntID: number, body: SubscriptionCreate) {
      const created = await meta.subscriptions.create(a.tenant, deviceIntID, body)
      changed(a.tenant, [deviceIntID])
      return created
    },
    async remove(a: Actor, deviceIntID: number, ids: number[]) {
      await meta.subscriptions.delete(a.tenant, deviceIntID, ids)
      changed(a.tenant, [deviceIntID])
    },
  }

  return { policies, bindings, subscriptions }
}
