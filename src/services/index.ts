import { accountService } from './accounts.ts'
import { alertService } from './alerts.ts'
import { certService } from './certs.ts'
import { deviceService } from './devices.ts'
import { groupService } from './groups.ts'
import { policyService } from './policies.ts'
import { productModelService } from './product-model.ts'
import { productResourceService } from './product-resources.ts'
import type { ServiceDeps } from './types.ts'
import { commandService, type CommandDeps } from './commands.ts'
import { scheduleService } from './schedules.ts'

export type { Actor, ServiceDeps } from './types.ts'

/**
 * The domain services: one home for every write. Routes, CSV import and ingest's hooks call these; each runs the
 * rules, calls the store ports, performs every effect and then emits its domain event (src/kernel/events.ts).
 */
export function createServices(
  deps: ServiceDeps &
    Pick<CommandDeps, 'broker' | 'config' | 'now' | 'identities'> & {
      config: { TIMEZONE: string }
    },
) {
  const commands = commandService({ ...deps, events: deps.events })
  const model = productModelService(deps)
  const resources = productResourceService(deps)
  const policies = policyService(deps)
  const { devices, gateways } = deviceService(deps)
  return {
    accounts: accountService(deps),
    products: model.products,
    dataPoints: model.dataPoints,
    dataStreams: model.dataStreams,
    metrics: model.metrics,
    productResources: resources.productResources,
    appTemplates: resources.appTemplates,
    devices,
    gateways,
    groups: groupService(deps),
    policies: policies.policies,
    policyBindings: policies.bindings,
    subscriptions: policies.subscriptions,
    certs: certService(deps),
    alerts: alertService(deps),
    /** Commands to devices and groups; `start()` once the broker runs, `close()` before it stops. */
    commands,
    /** Scheduled commands; `start()` after `commands.start()`, `close()` before `commands.close()`. */
    schedules: scheduleService({ ...deps, commands }),
  }
}

export type Services = ReturnType<typeof createServices>
