import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { actorOf, mayReadSecrets, wireCtx } from '../http/env.ts'
import { DeviceConnection } from '../schemas/onboarding.ts'
import { onboardingService } from '../services/onboarding.ts'

const tag = 'Gateways'

export function gatewayRoutes({ meta, services, endpoints }: Deps, shapes: WireShapes) {
  const { Gateway, GatewayCreate, GatewayListItem, GatewayUpdate, gatewayFilters, gatewayWire } =
    shapes.gateways
  const r = new Router()
  const repo = meta.devices.gateways
  const onboarding = onboardingService({ meta, endpoints })

  r.typed(
    {
      method: 'get',
      path: '/gateways',
      tag,
      summary: 'List gateways (with deviceCount)',
      query: listQuery(gatewayFilters, { sorts: ['lastSeenAt'] }),
      response: Page(GatewayListItem),
    },
    async (c, { query }) => {
      const { items, count } = await repo.list(c.get('tenant'), query)
      const ctx = wireCtx(c)
      return c.json(
        pageOf(
          items.map((g) => gatewayWire.list(g, ctx)),
          count,
          query,
        ),
      )
    },
  )

  r.typed(
    {
      method: 'get',
      path: '/gateways/:id/connection',
      tag,
      summary:
        'How the gateway connects: broker URLs, credentials, topics, example mosquitto commands',
      description: 'As /devices/{id}/connection, for a gateway (its children send through it).',
      response: DeviceConnection,
    },
    async (c, { id }) =>
      c.json(
        await onboarding.connection(
          c.get('tenant'),
          id,
          ['gateway'],
          mayReadSecrets(c.get('caller')),
        ),
      ),
  )

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

  r.typed(
    {
      method: 'delete',
      path: '/gateways',
      tag,
      summary:
        'Delete gateways with everything keyed by them (refused while devices hang off them)',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await services.gateways.remove(actorOf(c), query.ids)
      return c.body(null, 204)
    },
  )

  return r
}
