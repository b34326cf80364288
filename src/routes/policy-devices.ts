import { z } from 'zod'
import type { Deps } from '../deps.ts'
import type { Router } from '../http/router.ts'
import { IdsQuery, listQuery, Page, pageOf } from '../http/paging.ts'
import { wireCtx } from '../http/env.ts'
import {
  DevicePoliciesBind,
  Policy,
  PolicyCandidateDevice,
  PolicyDevice,
  PolicyDevicesBind,
  PolicyListItem,
  policyCandidateFilters,
  policyDeviceFilters,
  policyFilters,
} from '../schemas/policies.ts'
import { policyDeviceWire, policyWire } from '../wire/policies.ts'

const tag = 'Policies'
const candidateQuery = listQuery(policyCandidateFilters, {
  extra: { groupName_like: z.string().optional() },
})

/** Bindings of policies and devices, from the policy side. */
export function policyBindingRoutes(r: Router, meta: Deps['meta'], bus: Deps['bus']) {
  const changed = (tenantID: string, deviceIntIDs: number[]) =>
    bus.emit('acl.changed', { tenantID, deviceIntIDs })
  r.route(
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

  r.route(
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
      await meta.policies.bindings.bindDevices(c.get('tenant'), id, body.devicesIntID)
      changed(c.get('tenant'), body.devicesIntID)
      return c.json(
        policyWire.detail(await meta.policies.get(c.get('tenant'), id), wireCtx(c)),
        201,
      )
    },
  )

  r.route(
    {
      method: 'delete',
      path: '/policies/:id/devices',
      tag,
      summary: 'Unbind devices from a policy',
      query: IdsQuery,
      status: 204,
    },
    async (c, { id, query }) => {
      await meta.policies.bindings.unbindDevices(c.get('tenant'), id, query.ids)
      changed(c.get('tenant'), query.ids)
      return c.body(null, 204)
    },
  )

  r.route(
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

  deviceSideRoutes(r, meta, changed)
}

/** Bindings of policies and devices, from the device side (`/devices/:id/policies`). */
function deviceSideRoutes(
  r: Router,
  meta: Deps['meta'],
  changed: (tenantID: string, ids: number[]) => void,
) {
  r.route(
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

  r.route(
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
      await meta.policies.bindings.bindPolicies(c.get('tenant'), id, body.ids)
      changed(c.get('tenant'), [id])
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

  r.route(
    {
      method: 'delete',
      path: '/devices/:id/policies',
      tag,
      summary: 'Unbind policies from a device',
      query: IdsQuery,
      status: 204,
    },
    async (c, { id, query }) => {
      await meta.policies.bindings.unbindPolicies(c.get('tenant'), id, query.ids)
      changed(c.get('tenant'), [id])
      return c.body(null, 204)
    },
  )

  r.route(
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
