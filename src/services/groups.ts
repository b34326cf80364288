import type { GroupCreate, GroupUpdate } from '../schemas/groups.ts'
import type { Actor, ServiceDeps } from './types.ts'

/** Groups of devices of one product, and their members. */
export function groupService({ meta, events }: ServiceDeps) {
  const membersChanged = (a: Actor, groupIntID: number, deviceIntIDs: number[]) =>
    events.emit('groupMembers.changed', { tenantID: a.tenant, groupIntID, deviceIntIDs })
  return {
    create: (a: Actor, body: GroupCreate) => meta.groups.create(a.tenant, a.userIntID, body),
    /** productID can change only while the group has no devices (422 errors.productID). */
    update: (a: Actor, id: number, body: GroupUpdate) => meta.groups.update(a.tenant, id, body),
    /** Refused (Referenced) while a group has devices. */
    remove: (a: Actor, ids: number[]) => meta.groups.delete(a.tenant, ids),
    /** Adds devices of the group's product; answers how many were new members. */
    async addMembers(a: Actor, groupIntID: number, ids: number[]) {
      const added = await meta.groups.members.add(a.tenant, groupIntID, ids)
      membersChanged(a, groupIntID, ids)
      return added
    },
    async removeMembers(a: Actor, groupIntID: number, ids: number[]) {
      await meta.groups.members.remove(a.tenant, groupIntID, ids)
      membersChanged(a, groupIntID, ids)
    },
  }
}
