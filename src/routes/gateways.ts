import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { listQuery } from '../http/paging.ts'
import { crud, Form } from '../http/crud.ts'
import { connectionRoute } from './devices.ts'

const tag = 'Gateways'

export function gatewayRoutes(deps: Deps, shapes: WireShapes) {
  const { meta, services } = deps
  const { Gateway, GatewayCreate, GatewayListItem, GatewayUpdate, gatewayFilters, gatewayWire } =
    shapes.gateways
  const r = new Router()
  const path = '/gateways'
  const detail = Form.of(Gateway, gatewayWire.detail)
  // The connection route sits between list and detail (the OpenAPI document lists them in that order).
  crud(r, {
    tag,
    path,
    store: meta.devices.gateways,
    list: {
      summary: 'List gateways (with deviceCount)',
      query: listQuery(gatewayFilters, { sorts: ['lastSeenAt'] }),
      form: Form.of(GatewayListItem, gatewayWire.list),
    },
  })

  connectionRoute(r, deps, ['gateway'], {
    path: '/gateways/:id/connection',
    tag,
    summary:
      'How the gateway connects: broker URLs, credentials, topics, example mosquitto commands',
    description: 'As /devices/{id}/connection, for a gateway (its children send through it).',
  })

  return crud(r, {
    tag,
    path,
    store: meta.devices.gateways,
    service: services.gateways,
    detail: { summary: 'Gateway detail', form: detail },
    create: { summary: 'Create a gateway', body: GatewayCreate, form: detail },
    update: { summary: 'Edit a gateway', body: GatewayUpdate, form: detail },
    remove: {
      summary:
        'Delete gateways with everything keyed by them (refused while devices hang off them)',
    },
  })
}
