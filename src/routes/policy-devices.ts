import { z } from 'zod'
import type { Deps } from '../deps.ts'
import type { PolicyDeviceRecord } from '../../store/fields/access.ts'
import type { Router } from '../http/router.ts'
import { listQuery, Page } from '../http/paging.ts'
import type { RecordSerializer } from '../wire/shape.ts'
import type { ShapesA } from '../wire/shapes.ts'
import { memberRoutes, pageIn, pageJson, type WireForm } from './records.ts'

const tag = 'Policies'

type PoliciesA = ShapesA['policies']

/**
 * The policies of one variant: Variant A's forms, but for the device bound to a policy (`P`, and its
 * serializer), which a variant may show its own way.
 */
export type PolicyVariant<P extends WireForm> = Omit<
  PoliciesA,
  'PolicyDevice' | 'policyDeviceWire'
> & {
  PolicyDevice: P
  policyDeviceWire: RecordSerializer<PolicyDeviceRecord, { bound: P }> &
    Pick<PoliciesA['policyDeviceWire'], 'candidate'>
}

/** Bindings of policies and devices, from the policy side. */
export function policyBindingRoutes<P extends WireForm>(
  r: Router,
  { meta, services }: Deps,
  v: PolicyVariant<P>,
) {
  const { PolicyCandidateDevice, policyDeviceWire } = v
  const candidateQuery = listQuery(v.policyCandidateFilters, {
    extra: { groupName_like: z.string().optional() },
  })
  memberRoutes(r, {
    tag,
    path: '/policies/:id/devices',
    list: {
      summary: 'Devices bound to a policy',
      query: listQuery(v.policyDeviceFilters),
      form: v.PolicyDevice,
      read: (tenant, id, q) => meta.policies.bindings.devices(tenant, id, q),
      wire: policyDeviceWire.bound,
    },
    add: {
      summary: 'Bind devices to a policy',
      description:
        'Idempotent; unknown or foreign ids are 404 errors.devicesIntID. ' +
        'Answers the policy (its mqtt_acl lists the bound devices).',
      body: v.PolicyDevicesBind,
      response: v.Policy,
      async write(a, id, body) {
        await services.policyBindings.bindDevices(a, id, body.devicesIntID)
        return meta.policies.get(a.tenant, id)
      },
      wire: v.policyWire.detail,
    },
    remove: {
      summary: 'Unbind devices from a policy',
      write: (a, id, ids) => services.policyBindings.unbindDevices(a, id, ids),
    },
  })

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
  /** The first page of a device's policies, as a bind answers it. */
  const first = { page: 1, limit: 10, filters: [] }
  memberRoutes(r, {
    tag,
    path: '/devices/:id/policies',
    list: {
      summary: 'Policies bound to a device',
      query: listQuery(policyFilters),
      form: PolicyListItem,
      read: (tenant, id, q) => bindings.policies(tenant, id, q),
      wire: policyWire.list,
    },
    add: {
      summary: 'Bind policies to a device',
      description:
        'Idempotent; unknown or foreign ids are 404 errors.ids. Answers the first page of the device policies.',
      body: DevicePoliciesBind,
      response: Page(PolicyListItem),
      async write(a, id, body) {
        await services.policyBindings.bindPolicies(a, id, body.ids)
        return bindings.policies(a.tenant, id, first)
      },
      wire: (page, ctx) => pageIn(page, policyWire.list, ctx, first),
    },
    remove: {
      summary: 'Unbind policies from a device',
      write: (a, id, ids) => services.policyBindings.unbindPolicies(a, id, ids),
    },
  })

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
