import type { Deps } from '../deps.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { actorOf, wireCtx } from '../http/env.ts'
import { policyBindingRoutes } from './policy-devices.ts'

const tag = 'Policies'

export function policyRoutes(deps: Deps, shapes: WireShapes) {
  const { meta, services } = deps
  const { Policy, PolicyCreate, PolicyListItem, PolicyUpdate, policyFilters, policyWire } =
    shapes.policies
  const r = new Router()

  r.typed(
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

  r.typed(
    { method: 'get', path: '/policies/:id', tag, summary: 'Policy detail', response: Policy },
    async (c, { id }) =>
      c.json(policyWire.detail(await meta.policies.get(c.get('tenant'), id), wireCtx(c))),
  )

  r.typed(
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
      const created = await services.policies.create(actorOf(c), body)
      return c.json(policyWire.detail(created, wireCtx(c)), 201)
    },
  )

  r.typed(
    {
      method: 'put',
      path: '/policies/:id',
      tag,
      summary: 'Edit a policy',
      body: PolicyUpdate,
      response: Policy,
    },
    async (c, { id, body }) => {
      const updated = await services.policies.update(actorOf(c), id, body)
      return c.json(policyWire.detail(updated, wireCtx(c)))
    },
  )

  r.typed(
    {
      method: 'delete',
      path: '/policies',
      tag,
      summary: 'Delete policies (refused while bound to devices)',
      query: IdsQuery,
      status: 204,
    },
    async (c, { query }) => {
      await services.policies.remove(actorOf(c), query.ids)
      return c.body(null, 204)
    },
  )

  policyBindingRoutes(r, deps, shapes)
  return r
}
