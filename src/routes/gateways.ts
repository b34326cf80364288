import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { listQuery, Page } from '../http/paging.ts'
import { actorOf, wireCtx } from '../http/env.ts'
import { connectionRoute } from './devices.ts'
import { pageJson, removeRoute } from './records.ts'

const tag = 'Gateways'

export function gatewayRoutes(deps: Deps, shapes: WireShapes) {
  const { meta, services } = deps
  const { Gateway, GatewayCreate, GatewayListItem, GatewayUpdate, gatewayFilters, gatewayWire } =
    shapes.gateways
  const r = new Router()
  const repo = meta.devices.gateways

  r.typed(
    {
      method: 'get',
      path: '/gateways',
      tag,
      summary: 'List gateways (with deviceCount)',
      query: listQuery(gatewayFilters, { sorts: ['lastSeenAt'] }),
      response: Page(GatewayListItem),
    },
    async (c, { query }) =>
      pageJson(c, await repo.list(c.get('tenant'), query), gatewayWire.list, query),
  )

  connectionRoute(r, deps, ['gateway'], {
    path: '/gateways/:id/connection',
    tag,
    summary:
      'How the gateway connects: broker URLs, credentials, topics, example mosquitto commands',
    description: 'As /devices/{id}/connection, for a gateway (its children send through it).',
  })

  r.typed(
    { method: 'get', path: '/gateways/:id', tag, summary: 'Gateway detail', response: Gateway },
    async (c, { id }) =>
      c.json(gatewayWire.detail(await repo.get(c.get('tenant'), id), wireCtx(c))),
  )

  r.typed(
    {
      method: 'post',
      path: '/gateways',
      tag,
      summary: 'Create a gateway',
      body: GatewayCreate,
      response: Gateway,
      status: 201,
    },
    async (c, { body }) => {
      const created = await services.gateways.create(actorOf(c), body)
      return c.json(gatewayWire.detail(created, wireCtx(c)), 201)
    },
  )

  r.typed(
    {
      method: 'put',
      path: '/gateways/:id',
      tag,
      summary: 'Edit a gateway',
      body: GatewayUpdate,
      response: Gateway,
    },
    async (c, { id, body }) =>
      c.json(gatewayWire.detail(await services.gateways.update(actorOf(c), id, body), wireCtx(c))),
  )

  removeRoute(
    r,
    {
      path: '/gateways',
      tag,
      summary:
        'Delete gateways with everything keyed by them (refused while devices hang off them)',
    },
    (a, ids) => services.gateways.remove(a, ids),
  )

  return r
}
