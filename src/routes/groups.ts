import { z } from 'zod'
import type { Deps } from '../deps.ts'
import type { GroupMemberRecord, GroupRecord } from '../../store/fields/products.ts'
import { Router } from '../http/router.ts'
import { listQuery, type FilterFields } from '../http/paging.ts'
import type { GroupCreate as Create, GroupUpdate as Update } from '../schemas/groups.ts'
import type { RecordSerializer } from '../wire/shape.ts'
import type { ShapesA } from '../wire/shapes.ts'
import { expandedRoutes, memberRoutes, type WireForm } from './records.ts'

const tag = 'Groups'

/** What both variants' groups share: membership bodies and answers, the select helper. */
type Alike = Pick<
  ShapesA['groups'],
  | 'GroupDevicesAdd'
  | 'GroupDevicesAdded'
  | 'NotJoinedDevicesQuery'
  | 'SelectOption'
  | 'groupDeviceFilters'
>

/**
 * The groups of one variant: its forms (detail `D`, list item `L`, member `M`), bodies (whose output the group
 * service takes), filters, the serializers of `R` (a stored group as the variant answers it, `expand` adding what
 * the variant shows beside the stored fields) and of members.
 */
export interface GroupVariant<
  R,
  D extends WireForm,
  L extends WireForm,
  M extends WireForm,
  C extends Create,
  U extends Update,
> extends Alike {
  Group: D
  GroupListItem: L
  GroupDevice: M
  GroupCreate: z.ZodType<C>
  GroupUpdate: z.ZodType<U>
  groupFilters: FilterFields
  groupWire: RecordSerializer<R, { detail: D; list: L }> &
    Pick<ShapesA['groups']['groupWire'], 'added'>
  groupDeviceWire: RecordSerializer<GroupMemberRecord, { list: M }>
  expand(tenant: string, rows: GroupRecord[]): Promise<R[]>
}

export function groupRoutes<
  R,
  D extends WireForm,
  L extends WireForm,
  M extends WireForm,
  C extends Create,
  U extends Update,
>(deps: Deps, v: GroupVariant<R, D, L, M, C, U>) {
  const { meta, services } = deps
  const r = new Router()
  expandedRoutes(r, {
    tag,
    path: '/groups',
    summaries: {
      list: 'List groups',
      detail: 'Group detail',
      create: 'Create a group of one product',
      update: 'Edit a group',
      remove: 'Delete groups (refused while they have devices)',
    },
    updateNote: 'productID can change only while the group has no devices (422 errors.productID).',
    detail: v.Group,
    list: v.GroupListItem,
    create: v.GroupCreate,
    update: v.GroupUpdate,
    filters: v.groupFilters,
    wire: v.groupWire,
    expand: v.expand,
    read: meta.groups,
    write: services.groups,
  })
  groupMemberRoutes(r, deps, v)
  return r
}

/** The devices of a group and the platform_select helper. */
function groupMemberRoutes<M extends WireForm>(
  r: Router,
  { meta, services }: Deps,
  v: Alike & {
    GroupDevice: M
    groupDeviceWire: RecordSerializer<GroupMemberRecord, { list: M }>
    groupWire: Pick<ShapesA['groups']['groupWire'], 'added'>
  },
) {
  memberRoutes(r, {
    tag,
    path: '/groups/:id/devices',
    list: {
      summary: 'Devices of a group',
      query: listQuery(v.groupDeviceFilters),
      form: v.GroupDevice,
      read: (tenant, id, q) => meta.groups.members.list(tenant, id, q),
      wire: v.groupDeviceWire.list,
    },
    add: {
      summary: 'Add devices to a group',
      description:
        "Every id must be a device of the tenant (404 errors.ids) of the group's product (422 errors.ids). " +
        'Adding a member again changes nothing. The answer counts the new members.',
      body: v.GroupDevicesAdd,
      response: v.GroupDevicesAdded,
      write: (a, id, body) => services.groups.addMembers(a, id, body.ids),
      wire: v.groupWire.added,
    },
    remove: {
      summary: 'Remove devices from a group',
      write: (a, id, ids) => services.groups.removeMembers(a, id, ids),
    },
  })

  r.typed(
    {
      method: 'get',
      path: '/platform_select/groups/:id/not_joined_devices',
      tag,
      summary:
        "Devices of the group's product not in the group (select options, newest first, at most 1000)",
      query: v.NotJoinedDevicesQuery,
      response: z.array(v.SelectOption),
    },
    async (c, { id, query }) =>
      c.json(await meta.groups.members.notJoined(c.get('tenant'), id, query.deviceName_like)),
  )
}
