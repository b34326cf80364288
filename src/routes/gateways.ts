import type { Deps } from '../deps.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { wireCtx } from '../http/env.ts'
import {
  Gateway,
  GatewayCreate,
  GatewayListItem,
  GatewayUpdate,
  gatewayFilters,
} from '../schemas/gateways.ts'
import { gatewayWire } from '../wire/gateways.ts'
import { prepareGateway } from './device-input.ts'
import { deviceIDsOf } from './devices.ts'

const tag = 'Gateways'

export function gatewayRoutes({ meta, bus }: Deps) {
  const r = new Router()
  const repo = meta.devices.gateways

  r.route(
    {
      method: 'get',
      path: '/gateways',
      tag,
      summary: 'List gateways (with deviceCount)',
      query: listQuery(gatewayFilters),
      response: Page(GatewayListItem),
    },
    async (c, { query }) => {
      const { items, count } = await repo.list(c.get('tenant'), query)
      return c.json(
        pageOf(
          items.map((g) => gatewayWire.list(g, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )

  r.route(
    { method: 'get', path: '/gateways/:id', tag, summary: 'Gateway detail', response: Gateway },
    async (c, { id }) =>
      c.json(gatewayWire.detail(await repo.get(c.get('tenant'), id), wireCtx(c))),
  )

  r.route(
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
      const tenant = c.get('tenant')
      const fields = await prepareGateway(meta.devices, tenant, body)
      return c.json(
        gatewayWire.detail(
          await repo.create(tenant, c.get('caller').userIntID, fields),
          wireCtx(c),
        ),
        201,
      )
    },
  )

  r.route(
    {
      method: 'put',
      path: '/gateways/:id',
      tag,
      summary: 'Edit a gateway',
      body: GatewayUpdate,
      response: Gateway,
    },
    async (c, { id, body }) => {
      const tenant = c.get('tenant')
      const fields = await prepareGateway(
        meta.devices,
        tenant,
        body,
        await repo.current(tenant, id),
      )
      const updated = await repo.update(tenant, id, fields)
      bus.emit('device.changed', {
        tenantID: tenant,
        id,
        deviceID: String(updated.deviceID),
        kind: 'gateway',
        blocked: Number(updated.blocked) === 1,
      })
      return c.json(gatewayWire.detail(updated, wireCtx(c)))
    },
  )

  r.route(
    {
      method: 'delete',
      path: '/gateways',
      tag,
      summary: 'Delete gateways (refused while devices hang off them)',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      const tenant = c.get('tenant')
      const deviceIDs = await deviceIDsOf(repo, tenant, query.ids)
      await repo.delete(tenant, query.ids)
      for (const [id, deviceID] of deviceIDs)
        bus.emit('device.deleted', { tenantID: tenant, id, deviceID, kind: 'gateway' })
      return c.body(null, 204)
    },
  )

  return r
}
