import { z } from 'zod'
import type { Deps } from '../deps.ts'
import type { PolicyDeviceRecord } from '../../store/fields/access.ts'
import type { Router } from '../http/router.ts'
import { listQuery, Page } from '../http/paging.ts'
import { actorOf, wireCtx } from '../http/env.ts'
import type { RecordSerializer } from '../wire/shape.ts'
import type { ShapesA } from '../wire/shapes.ts'
import { pageIn, pageJson, removeRoute } from './records.ts'

const tag = 'Policies'

type PoliciesA = ShapesA['policies']

/**
 * The policies of one variant: Variant A's forms, but for the device bound to a policy (`P`, and its
 * serializer), which a variant may show its own way.
 */
export type PolicyVariant<P extends z.ZodObject> = Omit<
  PoliciesA,
  'PolicyDevice' | 'policyDeviceWire'
> & {
  PolicyDevice: P
  policyDeviceWire: RecordSerializer<PolicyDeviceRecord, { bound: P }> &
    Pick<PoliciesA['policyDeviceWire'], 'candidate'>
}

/** Bindings of policies and devices, from the policy side. */
export function policyBindingRoutes<P extends z.ZodObject>(
  r: Router,
  { meta, services }: Deps,
  v: PolicyVariant<P>,
) {
  const { Policy, PolicyCandidateDevice, PolicyDevice, PolicyDevicesBind, policyDeviceWire } = v
  const candidateQuery = listQuery(v.policyCandidateFilters, {
    extra: { groupName_like: z.string().optional() },
  })
  r.typed(
    {
      method: 'get',
      path: '/policies/:id/devices',
      tag,
      summary: 'Devices bound to a policy',
      query: listQuery(v.policyDeviceFilters),
      response: Page(PolicyDevice),
    },
    async (c, { id, query }) =>
      pageJson(
        c,
        await meta.policies.bindings.devices(c.get('tenant'), id, query),
        policyDeviceWire.bound,
        query,
      ),
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
        v.policyWire.detail(await meta.policies.get(c.get('tenant'), id), wireCtx(c)),
        201,
      )
    },
  )

  removeRoute(
    r,
    { path: '/policies/:id/devices', tag, summary: 'Unbind devices from a policy' },
    (a, ids, id) => services.policyBindings.unbindDevices(a, id, ids),
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
      const page = await meta.policies.bindings.candidateDevices(
        c.get('tenant'),
        id,
        query,
        groupLike || undefined,
      )
      return pageJson(c, page, policyDeviceWire.candidate, query)
    },
  )

  deviceSideRoutes(r, { meta, services }, v)
}

/** Bindings of policies and devices, from the device side (`/devices/:id/policies`). */
function deviceSideRoutes(
  r: Router,
  { meta, services }: Pick<Deps, 'meta' | 'services'>,
  {
    DevicePoliciesBind,
    PolicyListItem,
    policyFilters,
    policyWire,
  }: Pick<PoliciesA, 'DevicePoliciesBind' | 'PolicyListItem' | 'policyFilters' | 'policyWire'>,
) {
  const bindings = meta.policies.bindings
  r.typed(
    {
      method: 'get',
      path: '/devices/:id/policies',
      tag,
      summary: 'Policies bound to a device',
      query: listQuery(policyFilters),
      response: Page(PolicyListItem),
    },
    async (c, { id, query }) =>
      pageJson(c, await bindings.policies(c.get('tenant'), id, query), policyWire.list, query),
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
      const page = await bindings.policies(c.get('tenant'), id, query)
      return c.json(pageIn(page, policyWire.list, wireCtx(c), query), 201)
    },
  )

  removeRoute(
    r,
    { path: '/devices/:id/policies', tag, summary: 'Unbind policies from a device' },
    (a, ids, id) => services.policyBindings.unbindPolicies(a, id, ids),
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
    async (c, { id, query }) =>
      pageJson(
        c,
        await bindings.candidatePolicies(c.get('tenant'), id, query),
        policyWire.list,
        query,
      ),
  )
}
