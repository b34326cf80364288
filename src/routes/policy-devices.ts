import type { Deps } from '../deps.ts'
import type { PolicyDeviceRecord } from '../../store/fields/access.ts'
import type { Router } from '../http/router.ts'
import { listQuery } from '../http/paging.ts'
import { likeText } from '../schemas/common.ts'
import { crud, Form, type WireForm } from '../http/crud.ts'
import type { RecordSerializer } from '../wire/shape.ts'
import type { ShapesA } from '../wire/shapes.ts'

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
    extra: { groupName_like: likeText() },
  })
  crud(r, {
    tag,
    path: '/policies/:id/devices',
    list: {
      summary: 'Devices bound to a policy',
      query: listQuery(v.policyDeviceFilters),
      form: Form.of(v.PolicyDevice, policyDeviceWire.bound),
      read: (tenant, q, id) => meta.policies.bindings.devices(tenant, id, q),
    },
    create: {
      summary: 'Bind devices to a policy',
      description:
        'Idempotent; unknown or foreign ids are 404 errors.devicesIntID. ' +
        'Answers the policy (its mqtt_acl lists the bound devices).',
      body: v.PolicyDevicesBind,
      form: Form.of(v.Policy, v.policyWire.detail),
      async write(a, body, id) {
        await services.policyBindings.bindDevices(a, id, body.devicesIntID)
        return meta.policies.get(a.tenant, id)
      },
    },
    remove: {
      summary: 'Unbind devices from a policy',
      write: (a, ids, id) => services.policyBindings.unbindDevices(a, id, ids),
    },
  })

  crud(r, {
    tag,
    path: '/platform_select/policies/:id/not_joined_devices',
    list: {
      summary: 'Devices not bound to the policy',
      description: 'groupName_like keeps devices that are in a group whose name matches.',
      query: candidateQuery,
      form: Form.of(PolicyCandidateDevice, policyDeviceWire.candidate),
      read(tenant, query, id) {
        const groupLike = query.raw.groupName_like as string | undefined
        return meta.policies.bindings.candidateDevices(tenant, id, query, groupLike || undefined)
      },
    },
  })

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
  const item = Form.of(PolicyListItem, policyWire.list)
  crud(r, {
    tag,
    path: '/devices/:id/policies',
    list: {
      summary: 'Policies bound to a device',
      query: listQuery(policyFilters),
      form: item,
      read: (tenant, q, id) => bindings.policies(tenant, id, q),
    },
    create: {
      summary: 'Bind policies to a device',
      description:
        'Idempotent; unknown or foreign ids are 404 errors.ids. Answers the first page of the device policies.',
      body: DevicePoliciesBind,
      form: Form.page(item, first),
      async write(a, body, id) {
        await services.policyBindings.bindPolicies(a, id, body.ids)
        return bindings.policies(a.tenant, id, first)
      },
    },
    remove: {
      summary: 'Unbind policies from a device',
      write: (a, ids, id) => services.policyBindings.unbindPolicies(a, id, ids),
    },
  })

  crud(r, {
    tag,
    path: '/platform_select/devices/:id/not_joined_policies',
    list: {
      summary: 'Policies not bound to the device',
      query: listQuery(policyFilters),
      form: item,
      read: (tenant, q, id) => bindings.candidatePolicies(tenant, id, q),
    },
  })
}
