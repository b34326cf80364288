import type { Deps } from '../deps.ts'
import { Router } from '../http/router.ts'
import { listQuery, Page } from '../http/paging.ts'
import { actorOf, wireCtx } from '../http/env.ts'
import { pageJson, removeRoute, type WireForm } from './records.ts'
import { policyBindingRoutes, type PolicyVariant } from './policy-devices.ts'

const tag = 'Policies'

export function policyRoutes<P extends WireForm>(deps: Deps, v: PolicyVariant<P>) {
  const { meta, services } = deps
  const { Policy, PolicyCreate, PolicyListItem, PolicyUpdate, policyFilters, policyWire } = v
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
    async (c, { query }) =>
      pageJson(c, await meta.policies.list(c.get('tenant'), query), policyWire.list, query),
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

  removeRoute(
    r,
    { path: '/policies', tag, summary: 'Delete policies (refused while bound to devices)' },
    (a, ids) => services.policies.remove(a, ids),
  )

  policyBindingRoutes(r, deps, v)
  return r
}
