import { z } from 'zod'
import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { actorOf, wireCtx } from '../http/env.ts'

const tag = 'Groups'

export function groupRoutes(deps: Deps, shapes: WireShapes) {
  const { meta, services } = deps
  const {
    Group,
    GroupCreate,
    GroupDevice,
    GroupDevicesAdd,
    GroupDevicesAdded,
    GroupListItem,
    GroupUpdate,
    NotJoinedDevicesQuery,
    SelectOption,
    groupDeviceFilters,
    groupFilters,
    groupDeviceWire,
    groupWire,
  } = shapes.groups
  const { expand } = shapes.groups
  const r = new Router()

  r.typed(
    {
      method: 'get',
      path: '/groups',
      tag,
      summary: 'List groups',
      query: listQuery(groupFilters),
      response: Page(GroupListItem),
    },
    async (c, { query }) => {
      const { items, count } = await meta.groups.list(c.get('tenant'), query)
      const rows = await expand(meta, c.get('tenant'), items)
      return c.json(
        pageOf(
          rows.map((g) => groupWire.list(g, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )

  r.typed(
    { method: 'get', path: '/groups/:id', tag, summary: 'Group detail', response: Group },
    async (c, { id }) => {
      const [group] = await expand(meta, c.get('tenant'), [
        await meta.groups.get(c.get('tenant'), id),
      ])
      return c.json(groupWire.detail(group!, wireCtx(c)))
    },
  )

  r.typed(
    {
      method: 'post',
      path: '/groups',
      tag,
      summary: 'Create a group of one product',
      body: GroupCreate,
      response: Group,
      status: 201,
    },
    async (c, { body }) => {
      const [created] = await expand(meta, c.get('tenant'), [
        await services.groups.create(actorOf(c), body),
      ])
      return c.json(groupWire.detail(created!, wireCtx(c)), 201)
    },
  )

  r.typed(
    {
      method: 'put',
      path: '/groups/:id',
      tag,
      summary: 'Edit a group',
      description:
        'productID can change only while the group has no devices (422 errors.productID).',
      body: GroupUpdate,
      response: Group,
    },
    async (c, { id, body }) => {
      const [updated] = await expand(meta, c.get('tenant'), [
        await services.groups.update(actorOf(c), id, body),
      ])
      return c.json(groupWire.detail(updated!, wireCtx(c)))
    },
  )

  r.typed(
    {
      method: 'delete',
      path: '/groups',
      tag,
      summary: 'Delete groups (refused while they have devices)',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await services.groups.remove(actorOf(c), query.ids)
      return c.body(null, 204)
    },
  )

  memberRoutes(r, deps, shapes.groups)
  return r
}

/** The devices of a group and the platform_select helper. */
function memberRoutes(
  r: Router,
  { meta, services }: Deps,
  {
    GroupDevice,
    GroupDevicesAdd,
    GroupDevicesAdded,
    NotJoinedDevicesQuery,
    SelectOption,
    groupDeviceFilters,
    groupDeviceWire,
    groupWire,
  }: WireShapes['groups'],
) {
  r.typed(
    {
      method: 'get',
      path: '/groups/:id/devices',
      tag,
      summary: 'Devices of a group',
      query: listQuery(groupDeviceFilters),
      response: Page(GroupDevice),
    },
    async (c, { id, query }) => {
      const { items, count } = await meta.groups.members.list(c.get('tenant'), id, query)
      return c.json(
        pageOf(
          items.map((d) => groupDeviceWire.list(d, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )

  r.typed(
    {
      method: 'post',
      path: '/groups/:id/devices',
      tag,
      summary: 'Add devices to a group',
      description:
        "Every id must be a device of the tenant (404 errors.ids) of the group's product (422 errors.ids). " +
        'Adding a member again changes nothing. The answer counts the new members.',
      body: GroupDevicesAdd,
      response: GroupDevicesAdded,
      status: 201,
    },
    async (c, { id, body }) =>
      c.json(
        groupWire.added(await services.groups.addMembers(actorOf(c), id, body.ids), wireCtx(c)),
        201,
      ),
  )

  r.typed(
    {
      method: 'delete',
      path: '/groups/:id/devices',
      tag,
      summary: 'Remove devices from a group',
      query: IdsQuery,
      status: 204,
    },
    async (c, { id, query }) => {
      await services.groups.removeMembers(actorOf(c), id, query.ids)
      return c.body(null, 204)
    },
  )

  r.typed(
    {
      method: 'get',
      path: '/platform_select/groups/:id/not_joined_devices',
      tag,
      summary:
        "Devices of the group's product not in the group (select options, newest first, at most 1000)",
      query: NotJoinedDevicesQuery,
      response: z.array(SelectOption),
    },
    async (c, { id, query }) =>
      c.json(await meta.groups.members.notJoined(c.get('tenant'), id, query.deviceName_like)),
  )
}
