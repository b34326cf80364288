import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { actorOf, mayReadSecrets, wireCtx } from '../http/env.ts'
import { DeviceConnection } from '../schemas/onboarding.ts'
import { onboardingService } from '../services/onboarding.ts'

const tag = 'Devices'

export function deviceRoutes(deps: Deps, shapes: WireShapes) {
  const { Device, DeviceCreate, DeviceListItem, DeviceUpdate, DeviceWrite, deviceWire } =
    shapes.devices
  const devices = shapes.devices.access(deps)
  const { deviceFilters, deviceListExtra, deviceKinds } = shapes.devices
  const onboarding = onboardingService(deps)
  const r = new Router()

  r.typed(
    {
      method: 'get',
      path: '/devices',
      tag,
      summary:
        'List devices (?parentDevice= children of a device, ?gateway= devices under a gateway, ?groupID=)',
      query: listQuery(deviceFilters, { extra: deviceListExtra, sorts: ['lastSeenAt'] }),
      response: Page(DeviceListItem),
    },
    async (c, { query }) => {
      const groupID = query.raw.groupID as string | undefined
      const { items, count } = await devices.list(c.get('tenant'), query, { groupID })
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

  r.typed(
    { method: 'get', path: '/devices/:id', tag, summary: 'Device detail', response: Device },
    async (c, { id }) =>
      c.json(deviceWire.detail(await devices.get(c.get('tenant'), id), wireCtx(c))),
  )

  r.typed(
    {
      method: 'get',
      path: '/devices/:id/connection',
      tag,
      summary:
        'How the device connects: broker URLs, credentials, topics, example mosquitto commands',
      description:
        'The token is shown to the admin and user roles only (viewers read null). Topics are full; the ' +
        'embedded broker also takes them relative to topicPrefix.',
      response: DeviceConnection,
    },
    async (c, { id }) =>
      c.json(
        await onboarding.connection(
          c.get('tenant'),
          id,
          deviceKinds,
          mayReadSecrets(c.get('caller')),
        ),
      ),
  )

  r.typed(
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
      const created = await devices.create(actorOf(c), body)
      return c.json(deviceWire.write(created, wireCtx(c)), 201)
    },
  )

  r.typed(
    {
      method: 'put',
      path: '/devices/:id',
      tag,
      summary: 'Edit a device',
      body: DeviceUpdate,
      response: DeviceWrite,
    },
    async (c, { id, body }) =>
      c.json(deviceWire.write(await devices.update(actorOf(c), id, body), wireCtx(c))),
  )

  r.typed(
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
      await devices.remove(actorOf(c), query.ids)
      return c.body(null, 204)
    },
  )

  return r
}
