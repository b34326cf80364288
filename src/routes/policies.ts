import type { Deps } from '../deps.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { wireCtx } from '../http/env.ts'
import {
  Policy,
  PolicyCreate,
  PolicyListItem,
  PolicyUpdate,
  policyFilters,
} from '../schemas/policies.ts'
import { policyWire } from '../wire/policies.ts'
import { policyBindingRoutes } from './policy-devices.ts'

const tag = 'Policies'

export function policyRoutes({ meta, bus }: Deps) {
  const r = new Router()

  r.route(
    {
      method: 'get',
      path: '/policies',
      tag,
      summary: 'List policies',
      query: listQuery(policyFilters),
      response: Page(PolicyListItem),
    },
    async (c, { query }) => {
      const { items, count } = await meta.policies.list(c.get('tenant'), query)
      return c.json(
        pageOf(
          items.map((p) => policyWire.list(p, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )

  r.route(
    { method: 'get', path: '/policies/:id', tag, summary: 'Policy detail', response: Policy },
    async (c, { id }) =>
      c.json(policyWire.detail(await meta.policies.get(c.get('tenant'), id), wireCtx(c))),
  )

  r.route(
    {
      method: 'post',
      path: '/policies',
      tag,
      summary: 'Create a topic access policy',
      description:
        "topic is an MQTT topic filter relative to the device's topic prefix (no leading '/').",
      body: PolicyCreate,
      response: Policy,
      status: 201,
    },
    async (c, { body }) => {
      const created = await meta.policies.create(c.get('tenant'), c.get('caller').userIntID, body)
      return c.json(policyWire.detail(created, wireCtx(c)), 201)
    },
  )

  r.route(
    {
      method: 'put',
      path: '/policies/:id',
      tag,
      summary: 'Edit a policy',
      body: PolicyUpdate,
      response: Policy,
    },
    async (c, { id, body }) => {
      const updated = await meta.policies.update(c.get('tenant'), id, body)
      bus.emit('acl.changed', { tenantID: c.get('tenant'), deviceIntIDs: 'all' })
      return c.json(policyWire.detail(updated, wireCtx(c)))
    },
  )

  r.route(
    {
      method: 'delete',
      path: '/policies',
      tag,
      summary: 'Delete policies (refused while bound to devices)',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await meta.policies.delete(c.get('tenant'), query.ids)
      bus.emit('acl.changed', { tenantID: c.get('tenant'), deviceIntIDs: 'all' })
      return c.body(null, 204)
    },
  )

  policyBindingRoutes(r, meta, bus)
  return r
}
