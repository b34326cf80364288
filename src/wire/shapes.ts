import * as accountsSchemas from '../schemas/accounts.ts'
import * as accountsWire from './accounts.ts'
import * as alertsSchemas from '../schemas/alerts.ts'
import * as alertsWire from './alerts.ts'
import * as alertRulesSchemas from '../schemas/alert-rules.ts'
import * as alertRulesWire from './alert-rules.ts'
import * as appTemplatesSchemas from '../schemas/app-templates.ts'
import * as appTemplatesWire from './app-templates.ts'
import * as certsSchemas from '../schemas/certs.ts'
import * as commandsSchemas from '../schemas/commands.ts'
import * as commandsWire from './commands.ts'
import * as certsWire from './certs.ts'
import * as dataPointsSchemas from '../schemas/data-points.ts'
import * as dataPointsWire from './data-points.ts'
import * as dataStreamsSchemas from '../schemas/data-streams.ts'
import * as dataStreamsWire from './data-streams.ts'
import * as deviceTransferSchemas from '../schemas/device-transfer.ts'
import * as devicesSchemas from '../schemas/devices.ts'
import * as devicesWire from './devices.ts'
import * as emqxSchemas from '../schemas/emqx.ts'
import * as gatewaysSchemas from '../schemas/gateways.ts'
import * as gatewaysWire from './gateways.ts'
import * as groupsSchemas from '../schemas/groups.ts'
import * as groupsWire from './groups.ts'
import * as ingestSchemas from '../schemas/ingest.ts'
import * as logsSchemas from '../schemas/logs.ts'
import * as logsWire from './logs.ts'
import * as metricsSchemas from '../schemas/metrics.ts'
import * as metricsWire from './metrics.ts'
import * as policiesSchemas from '../schemas/policies.ts'
import * as policiesWire from './policies.ts'
import * as productResourcesSchemas from '../schemas/product-resources.ts'
import * as productResourcesWire from './product-resources.ts'
import * as productsSchemas from '../schemas/products.ts'
import * as productsWire from './products.ts'
import * as schedulesSchemas from '../schemas/schedules.ts'
import * as schedulesWire from './schedules.ts'
import * as subscriptionsSchemas from '../schemas/subscriptions.ts'
import * as subscriptionsWire from './subscriptions.ts'
import * as tasksSchemas from '../schemas/tasks.ts'
import * as tasksWire from './tasks.ts'
import * as telemetrySchemas from '../schemas/telemetry.ts'
import * as webhooksSchemas from '../schemas/webhooks.ts'
import * as webhooksWire from './webhooks.ts'
import * as devicesSchemasB from '../variant-b/schemas/devices.ts'
import * as devicesWireB from '../variant-b/wire/devices.ts'
import * as productsSchemasB from '../variant-b/schemas/products.ts'
import * as productsWireB from '../variant-b/wire/products.ts'
import * as groupsSchemasB from '../variant-b/schemas/groups.ts'
import * as groupsWireB from '../variant-b/wire/groups.ts'
import * as logsSchemasB from '../variant-b/schemas/logs.ts'
import * as logsWireB from '../variant-b/wire/logs.ts'
import * as commandsSchemasB from '../variant-b/schemas/commands.ts'
import * as policiesSchemasB from '../variant-b/schemas/policies.ts'
import * as policiesWireB from '../variant-b/wire/policies.ts'

/** The kinds of stored record `/devices/{id}` addresses. */
const kinds = (...k: Array<'device' | 'gateway'>): readonly ('device' | 'gateway')[] => k

/**
 * The wire shapes of the API, chosen in this one place: for each resource its request schemas (create, edit,
 * list filters), its response schemas and its serializers. Route modules receive them as a parameter and never
 * import schemas or serializers themselves, so that another shape of the same API can be served by the same
 * routes and services. What a variant does beyond schemas and serializers (how its bodies and records map onto
 * the services and stores) is not here but at the route edge: src/routes/variants.ts mounts the routes whose
 * shape varies over Variant A's plain calls or Variant B's adapter (src/variant-b/http/).
 */
export const shapesA = {
  variant: 'A' as const,
  deviceTransfer: deviceTransferSchemas,
  accounts: { ...accountsSchemas, ...accountsWire },
  alerts: { ...alertsSchemas, ...alertsWire },
  alertRules: { ...alertRulesSchemas, ...alertRulesWire },
  appTemplates: { ...appTemplatesSchemas, ...appTemplatesWire },
  emqx: emqxSchemas,
  ingest: ingestSchemas,
  certs: { ...certsSchemas, ...certsWire },
  dataPoints: { ...dataPointsSchemas, ...dataPointsWire },
  dataStreams: { ...dataStreamsSchemas, ...dataStreamsWire },
  gateways: { ...gatewaysSchemas, ...gatewaysWire },
  metrics: { ...metricsSchemas, ...metricsWire },
  productResources: { ...productResourcesSchemas, ...productResourcesWire },
  telemetry: telemetrySchemas,
  schedules: { ...schedulesSchemas, ...schedulesWire },
  subscriptions: { ...subscriptionsSchemas, ...subscriptionsWire },
  tasks: { ...tasksSchemas, ...tasksWire },
  webhooks: { ...webhooksSchemas, ...webhooksWire },
  // the resources Variant B shapes its own way (shapesB)
  devices: {
    ...devicesSchemas,
    ...devicesWire,
    /** The records `/devices/{id}` addresses: devices only (gateways have their own paths). */
    deviceKinds: kinds('device'),
  },
  products: { ...productsSchemas, ...productsWire },
  groups: { ...groupsSchemas, ...groupsWire },
  logs: { ...logsSchemas, ...logsWire },
  commands: { ...commandsSchemas, ...commandsWire },
  policies: { ...policiesSchemas, ...policiesWire },
}

/**
 * Variant B, the earlier, simpler shape of devices, products, groups, logs, commands and policy bindings; every
 * other resource as in Variant A.
 */
export const shapesB = {
  ...shapesA,
  variant: 'B' as const,
  devices: {
    ...shapesA.devices,
    ...devicesSchemasB,
    deviceWire: devicesWireB.deviceWire,
    /** A Variant B device may be a gateway (deviceType 1). */
    deviceKinds: kinds('device', 'gateway'),
  },
  products: { ...shapesA.products, ...productsSchemasB, ...productsWireB },
  groups: { ...shapesA.groups, ...groupsSchemasB, ...groupsWireB },
  logs: { ...shapesA.logs, ...logsSchemasB, ...logsWireB },
  commands: { ...shapesA.commands, ...commandsSchemasB },
  policies: { ...shapesA.policies, ...policiesSchemasB, ...policiesWireB },
}

export type ShapesA = typeof shapesA
export type ShapesB = typeof shapesB

/**
 * The shapes of one variant. Route modules of the resources both variants serve alike read them as they are; the
 * routes whose shape varies are mounted per variant (src/routes/variants.ts), each checked against its own.
 */
export type WireShapes = ShapesA | ShapesB

/** The shapes the service serves: API_VARIANT's. */
export function wireShapes(variant: 'A' | 'B' = 'A'): WireShapes {
  return variant === 'B' ? shapesB : shapesA
}
