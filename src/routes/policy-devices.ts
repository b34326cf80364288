import { z } from 'zod'
import type { Deps } from '../deps.ts'
import type { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { actorOf, wireCtx } from '../http/env.ts'
import type { WireShapes } from '../wire/shapes.ts'

const tag = 'Policies'
/** Bindings of policies and devices, from the policy side. */
export function policyBindingRoutes(r: Router, { meta, services }: Deps, shapes: WireShapes) {
  const {
    DevicePoliciesBind,
    Policy,
    PolicyCandidateDevice,
    PolicyDevice,
    PolicyDevicesBind,
    PolicyListItem,
    policyCandidateFilters,
    policyDeviceFilters,
    policyFilters,
    policyDeviceWire,
    policyWire,
  } = shapes.policies
  const candidateQuery = listQuery(policyCandidateFilters, {
    extra: { groupName_like: z.string().optional() },
  })
  r.typed(
    {
      method: 'get',
      path: '/policies/:id/devices',
      tag,
      summary: 'Devices bound to a policy',
      query: listQuery(policyDeviceFilters),
      response: Page(PolicyDevice),
    },
    async (c, { id, query }) => {
      const { items, count } = await meta.policies.bindings.devices(c.get('tenant'), id, query)
      return c.json(
        pageOf(
          items.map((d) => policyDeviceWire.bound(d, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )

  r.typed(
    {
      method: 'post',
      path: '/policies/:id/devices',
      tag,
      summary: 'Bind devices to a policy',
      description:
        'Idempotent; unknown or foreign ids are 404 errors.devicesIntID. ' +
        'Answers the policy (its mqtt_acl lists the bound devices).',
      body: PolicyDevicesBind,
      response: Policy,
      status: 201,
    },
    async (c, { id, body }) => {
      await services.policyBindings.bindDevices(actorOf(c), id, body.devicesIntID)
      return c.json(
        policyWire.detail(await meta.policies.get(c.get('tenant'), id), wireCtx(c)),
        201,
      )
    },
  )

  r.typed(
    {
      method: 'delete',
      path: '/policies/:id/devices',
      tag,
      summary: 'Unbind devices from a policy',
      query: IdsQuery,
      status: 204,
    },
    async (c, { id, query }) => {
      await services.policyBindings.unbindDevices(actorOf(c), id, query.ids)
      return c.body(null, 204)
    },
  )

  r.typed(
    {
      method: 'get',
      path: '/platform_select/policies/:id/not_joined_devices',
      tag,
      summary: 'Devices not bound to the policy',
      description: 'groupName_like keeps devices that are in a group whose name matches.',
      query: candidateQuery,
      response: Page(PolicyCandidateDevice),
    },
    async (c, { id, query }) => {
      const groupLike = query.raw.groupName_like as string | undefined
      const bindings = meta.policies.bindings
      const { items, count } = await bindings.candidateDevices(
        c.get('tenant'),
        id,
        query,
        groupLike || undefined,
      )
      return c.json(
        pageOf(
          items.map((d) => policyDeviceWire.candidate(d, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )

  deviceSideRoutes(r, { meta, services }, shapes.policies)
}

/** Bindings of policies and devices, from the device side (`/devices/:id/policies`). */
function deviceSideRoutes(
  r: Router,
  { meta, services }: Pick<Deps, 'meta' | 'services'>,
  { DevicePoliciesBind, PolicyListItem, policyFilters, policyWire }: WireShapes['policies'],
) {
  r.typed(
    {
      method: 'get',
      path: '/devices/:id/policies',
      tag,
      summary: 'Policies bound to a device',
      query: listQuery(policyFilters),
      response: Page(PolicyListItem),
    },
    async (c, { id, query }) => {
      const { items, count } = await meta.policies.bindings.policies(c.get('tenant'), id, query)
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
    {
      method: 'post',
      path: '/devices/:id/policies',
      tag,
      summary: 'Bind policies to a device',
      description:
        'Idempotent; unknown or foreign ids are 404 errors.ids. Answers the first page of the device policies.',
      body: DevicePoliciesBind,
      response: Page(PolicyListItem),
      status: 201,
    },
    async (c, { id, body }) => {
      await services.policyBindings.bindPolicies(actorOf(c), id, body.ids)
      const query = { page: 1, limit: 10, filters: [] }
      const { items, count } = await meta.policies.bindings.policies(c.get('tenant'), id, query)
      return c.json(
        pageOf(
          items.map((p) => policyWire.list(p, wireCtx(c))),
          count,
          query,
        ),
        201,
      )
    },
  )

  r.typed(
    {
      method: 'delete',
      path: '/devices/:id/policies',
      tag,
      summary: 'Unbind policies from a device',
      query: IdsQuery,
      status: 204,
    },
    async (c, { id, query }) => {
      await services.policyBindings.unbindPolicies(actorOf(c), id, query.ids)
      return c.body(null, 204)
    },
  )

  r.typed(
    {
      method: 'get',
      path: '/platform_select/devices/:id/not_joined_policies',
      tag,
      summary: 'Policies not bound to the device',
      query: listQuery(policyFilters),
      response: Page(PolicyListItem),
    },
    async (c, { id, query }) => {
      const { items, count } = await meta.policies.bindings.candidatePolicies(
        c.get('tenant'),
        id,
        query,
      )
      return c.json(
        pageOf(
          items.map((p) => policyWire.list(p, wireCtx(c))),
          count,
          query,
        ),
      )
    },
  )
}
