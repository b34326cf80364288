import { z } from 'zod'
import type { Deps } from '../deps.ts'
import type { GroupMemberRecord, GroupRecord } from '../../store/fields/products.ts'
import { Router } from '../http/router.ts'
import { listQuery, type FilterFields } from '../http/paging.ts'
import type { GroupCreate as Create, GroupUpdate as Update } from '../schemas/groups.ts'
import type { RecordSerializer } from '../wire/shape.ts'
import type { ShapesA } from '../wire/shapes.ts'
import { crud, expanded, Form, type WireForm } from '../http/crud.ts'

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
  expand: (tenant: string, rows: GroupRecord[]) => Promise<R[]>
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
  const detail = Form.of(v.Group, v.groupWire.detail)
  const item = Form.of(v.GroupListItem, v.groupWire.list)
  crud(r, {
    tag,
    path: '/groups',
    ...expanded(meta.groups, services.groups, v.expand),
    list: { summary: 'List groups', query: listQuery(v.groupFilters), form: item },
    detail: { summary: 'Group detail', form: detail },
    create: { summary: 'Create a group of one product', body: v.GroupCreate, form: detail },
    update: {
      summary: 'Edit a group',
      description:
        'productID can change only while the group has no devices (422 errors.productID).',
      body: v.GroupUpdate,
      form: detail,
    },
    remove: { summary: 'Delete groups (refused while they have devices)' },
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
  crud(r, {
    tag,
    path: '/groups/:id/devices',
    list: {
      summary: 'Devices of a group',
      query: listQuery(v.groupDeviceFilters),
      form: Form.of(v.GroupDevice, v.groupDeviceWire.list),
      read: (tenant, q, id) => meta.groups.members.list(tenant, id, q),
    },
    create: {
      summary: 'Add devices to a group',
      description:
        "Every id must be a device of the tenant (404 errors.ids) of the group's product (422 errors.ids). " +
        'Adding a member again changes nothing. The answer counts the new members.',
      body: v.GroupDevicesAdd,
      form: Form.of(v.GroupDevicesAdded, v.groupWire.added),
      write: (a, body, id) => services.groups.addMembers(a, id, body.ids),
    },
    remove: {
      summary: 'Remove devices from a group',
      write: (a, ids, id) => services.groups.removeMembers(a, id, ids),
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
