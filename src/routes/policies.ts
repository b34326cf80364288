import type { Deps } from '../deps.ts'
import { Router } from '../http/router.ts'
import { listQuery } from '../http/paging.ts'
import { crud, Form, type WireForm } from '../http/crud.ts'
import { policyBindingRoutes, type PolicyVariant } from './policy-devices.ts'

const tag = 'Policies'

export function policyRoutes<P extends WireForm>(deps: Deps, v: PolicyVariant<P>) {
  const { meta, services } = deps
  const { Policy, PolicyCreate, PolicyListItem, PolicyUpdate, policyFilters, policyWire } = v
  const detail = Form.of(Policy, policyWire.detail)
  const r = crud(new Router(), {
    tag,
    path: '/policies',
    store: meta.policies,
    service: services.policies,
    list: {
      summary: 'List policies',
      query: listQuery(policyFilters),
      form: Form.of(PolicyListItem, policyWire.list),
    },
    detail: { summary: 'Policy detail', form: detail },
    create: {
      summary: 'Create a topic access policy',
      description:
        "topic is an MQTT topic filter relative to the device's topic prefix (no leading '/').",
      body: PolicyCreate,
      form: detail,
    },
    update: { summary: 'Edit a policy', body: PolicyUpdate, form: detail },
    remove: { summary: 'Delete policies (refused while bound to devices)' },
  })

  policyBindingRoutes(r, deps, v)
  return r
}
