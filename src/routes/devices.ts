import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { actorOf, wireCtx } from '../http/env.ts'

const tag = 'Devices'

export function deviceRoutes({ meta, services }: Deps, shapes: WireShapes) {
  const { Device, DeviceCreate, DeviceListItem, DeviceUpdate, DeviceWrite, deviceWire } =
    shapes.devices
  const { deviceFilters, deviceListExtra } = shapes.devices
  const r = new Router()

  r.route(
    {
      method: 'get',
      path: '/devices',
      tag,
      summary:
        'List devices (?parentDevice= children of a device, ?gateway= devices under a gateway, ?groupID=)',
      query: listQuery(deviceFilters, { extra: deviceListExtra }),
      response: Page(DeviceListItem),
    },
    async (c, { query }) => {
      const groupID = query.raw.groupID as string | undefined
      const { items, count } = await meta.devices.list(c.get('tenant'), query, { groupID })
      const ctx = wireCtx(c)
      return c.json(
        pageOf(
          items.map((d) => deviceWire.list(d, ctx)),
          count,
          query,
        ),
      )
    },
  )

  r.route(
    { method: 'get', path: '/devices/:id', tag, summary: 'Device detail', response: Device },
    async (c, { id }) =>
      c.json(deviceWire.detail(await meta.devices.get(c.get('tenant'), id), wireCtx(c))),
  )

  r.route(
    {
      method: 'post',
      path: '/devices',
      tag,
      summary: 'Create a device',
      body: DeviceCreate,
      response: DeviceWrite,
      status: 201,
    },
    async (c, { body }) => {
      const created = await services.devices.create(actorOf(c), body)
      return c.json(deviceWire.write(created, wireCtx(c)), 201)
    },
  )

  r.route(
    {
      method: 'put',
      path: '/devices/:id',
      tag,
      summary: 'Edit a device',
      body: DeviceUpdate,
      response: DeviceWrite,
    },
    async (c, { id, body }) =>
      c.json(deviceWire.write(await services.devices.update(actorOf(c), id, body), wireCtx(c))),
  )

  r.route(
    {
      method: 'delete',
      path: '/devices',
      tag,
      summary:
        'Delete devices with everything keyed by them (refused while they have child devices)',
      description:
        'Removes their stored values and latest values, events, connection and control logs, alerts, ' +
        'subscriptions, group memberships and policy and certificate bindings. A device created again with ' +
        'the same deviceID starts empty.',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await services.devices.remove(actorOf(c), query.ids)
      return c.body(null, 204)
    },
  )

  return r
}
