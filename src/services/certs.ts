import type { CertCreate, CertUpdate } from '../schemas/certs.ts'
import { certImmutableChanges } from '../rules/certs.ts'
import { assertValid } from '../rules/product-model.ts'
import type { Actor, ServiceDeps } from './types.ts'

/** Client certificates signed by the tenant's CA, and the devices that may present them (authType 2). */
export function certService({ meta }: ServiceDeps) {
  return {
    /** Issues a certificate (the tenant's CA is made on first use). */
    create: (a: Actor, body: CertCreate) => meta.certs.create(a.tenant, a.userIntID, body),
    /** Only the name and the enable flag may change; the issued certificate never does. */
    async update(a: Actor, id: number, body: CertUpdate) {
      assertValid(certImmutableChanges(await meta.certs.get(a.tenant, id), body))
      return meta.certs.update(a.tenant, id, body)
    },
    remove: (a: Actor, ids: number[]) => meta.certs.delete(a.tenant, ids),
    bindDevices: (a: Actor, id: number, deviceIntIDs: number[]) =>
      meta.certs.bindDevices(a.tenant, id, deviceIntIDs),
    unbindDevices: (a: Actor, id: number, deviceIntIDs: number[]) =>
      meta.certs.unbindDevices(a.tenant, id, deviceIntIDs),
  }
}
