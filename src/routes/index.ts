import type { Deps } from '../deps.ts'
import type { Router } from '../http/router.ts'
import type { WireShapes } from '../wire/shapes.ts'
import { accountRoutes } from './accounts.ts'
import { deviceTransferRoutes } from './device-transfer.ts'
import { gatewayRoutes } from './gateways.ts'
import { dataPointRoutes } from './data-points.ts'
import { dataStreamRoutes } from './data-streams.ts'
import { metricRoutes } from './metrics.ts'
import { productResourceRoutes } from './product-resources.ts'
import { appTemplateRoutes } from './app-templates.ts'
import { certRoutes } from './certs.ts'
import { subscriptionRoutes } from './subscriptions.ts'
import { taskRoutes } from './tasks.ts'
import { alertRoutes } from './alerts.ts'
import { alertRuleRoutes } from './alert-rules.ts'
import { ingestRoutes } from './ingest.ts'
import { latestRoutes } from './latest.ts'
import { telemetryRoutes } from './telemetry.ts'
import { emqxRoutes } from './emqx.ts'
import { scheduleRoutes } from './schedules.ts'
import { webhookRoutes } from './webhooks.ts'
import { overviewRoutes } from './overview.ts'
import { adminRoutes } from './admin.ts'
import { variantRoutes } from './variants.ts'
import { stateRoutes } from './state.ts'
import { firmwareRoutes } from './firmware.ts'
import { rolloutRoutes } from './rollouts.ts'
import { auditRoutes } from './audit.ts'

/** Every route module, in the order they are mounted under /api/v1, serving the given wire shapes. */
export function allRoutes(deps: Deps, shapes: WireShapes): Router[] {
  // the routes whose shape varies, built for the variant of `shapes` (src/routes/variants.ts)
  const varying = variantRoutes(deps, shapes)
  const of = (name: keyof typeof varying) => () => varying[name]
  return [
    accountRoutes,
    of('products'),
    of('devices'),
    deviceTransferRoutes,
    gatewayRoutes,
    of('groups'),
    dataPointRoutes,
    dataStreamRoutes,
    metricRoutes,
    productResourceRoutes,
    appTemplateRoutes,
    of('policies'),
    certRoutes,
    subscriptionRoutes,
    taskRoutes,
    of('logs'),
    of('commands'),
    scheduleRoutes,
    webhookRoutes,
    alertRoutes,
    alertRuleRoutes,
    ingestRoutes,
    latestRoutes,
    stateRoutes,
    firmwareRoutes,
    rolloutRoutes,
    telemetryRoutes,
    emqxRoutes,
    overviewRoutes,
    adminRoutes,
    auditRoutes,
  ].map((routes) => routes(deps, shapes))
}
