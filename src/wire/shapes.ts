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
import type { z } from 'zod'
import type { FilterFields } from '../http/paging.ts'
import { deviceAccessA } from '../services/device-access.ts'
import { deviceAccessB } from '../services/device-access-b.ts'
import * as devicesSchemasB from '../schemas/devices-b.ts'
import * as devicesWireB from './devices-b.ts'
import * as productsSchemasB from '../schemas/products-b.ts'
import * as productsWireB from './products-b.ts'
import * as groupsSchemasB from '../schemas/groups-b.ts'
import * as groupsWireB from './groups-b.ts'
import { withGroupDevices, withProductDevices } from '../services/members-b.ts'
import * as logsSchemasB from '../schemas/logs-b.ts'
import * as logsWireB from './logs-b.ts'
import * as commandsSchemasB from '../schemas/commands-b.ts'
import * as policiesSchemasB from '../schemas/policies-b.ts'
import * as policiesWireB from './policies-b.ts'
import type { MetaStore } from '../../store/types.ts'

/** Records as stored: nothing to add. */
const asStored = async <R extends { id: number }>(
  _meta: MetaStore,
  _tenant: string,
  rows: R[],
): Promise<R[]> => rows

/**
 * The wire shapes of the API, chosen in this one place: for each resource its request schemas (create, edit,
 * list filters), its response schemas and its serializers. Route modules receive them as a parameter and never
 * import schemas or serializers themselves, so that another shape of the same API can be served by the same
 * routes and services. Where a shape needs more than schemas and serializers it brings hooks: `devices.access`
 * (how device reads and writes map onto the stores and services) and `products.expand`/`groups.expand` (what a
 * read adds to stored rows); Variant A's are the plain calls.
 */
export const shapesA = {
  accounts: { ...accountsSchemas, ...accountsWire },
  alerts: { ...alertsSchemas, ...alertsWire },
  alertRules: { ...alertRulesSchemas, ...alertRulesWire },
  appTemplates: { ...appTemplatesSchemas, ...appTemplatesWire },
  certs: { ...certsSchemas, ...certsWire },
  commands: { ...commandsSchemas, ...commandsWire },
  dataPoints: { ...dataPointsSchemas, ...dataPointsWire },
  dataStreams: { ...dataStreamsSchemas, ...dataStreamsWire },
  deviceTransfer: { ...deviceTransferSchemas },
  devices: {
    ...devicesSchemas,
    ...devicesWire,
    access: deviceAccessA,
    /** The records `/devices/{id}` addresses: devices only (gateways have their own paths). */
    deviceKinds: ['device'] as readonly ('device' | 'gateway')[],
  },
  emqx: { ...emqxSchemas },
  gateways: { ...gatewaysSchemas, ...gatewaysWire },
  groups: { ...groupsSchemas, ...groupsWire, expand: asStored },
  ingest: { ...ingestSchemas },
  logs: { ...logsSchemas, ...logsWire },
  metrics: { ...metricsSchemas, ...metricsWire },
  policies: { ...policiesSchemas, ...policiesWire },
  productResources: { ...productResourcesSchemas, ...productResourcesWire },
  products: { ...productsSchemas, ...productsWire, expand: asStored },
  schedules: { ...schedulesSchemas, ...schedulesWire },
  subscriptions: { ...subscriptionsSchemas, ...subscriptionsWire },
  tasks: { ...tasksSchemas, ...tasksWire },
  telemetry: { ...telemetrySchemas },
  webhooks: { ...webhooksSchemas, ...webhooksWire },
}

type ShapesA = typeof shapesA

/**
 * A resource's shape as a variant may vary it: `Forms` (responses, or bodies only the variant's own code reads)
 * any zod schema, `Bodies` any schema with the output of Variant A's (the variant's schema maps onto it),
 * `Filters` any list filters.
 */
type Varies<
  T,
  Forms extends keyof T,
  Bodies extends keyof T = never,
  Filters extends keyof T = never,
> = Omit<T, Forms | Bodies | Filters> & { [P in Forms]: z.ZodType } & {
  [P in Bodies]: T[P] extends z.ZodType ? z.ZodType<z.output<T[P]>> : never
} & { [P in Filters]: FilterFields }

/**
 * A resource whose `Keys` (forms, bodies, filters, serializers) each variant declares its own way: routes see
 * either variant's, so a typed route (src/http/router.ts `typed`) checks its answer against both.
 */
type Either<A, B, Keys extends keyof A & keyof B> = Omit<A, Keys> & { [P in Keys]: A[P] | B[P] }

const productsB = { ...productsSchemasB, ...productsWireB }
const groupsB = { ...groupsSchemasB, ...groupsWireB }
const policiesB = { ...policiesSchemasB, ...policiesWireB }
const devicesB = { ...devicesSchemasB, ...devicesWireB, access: deviceAccessB }

/** What routes may rely on: Variant A's shapes, with what Variant B shapes its own way loosened. */
export type WireShapes = Omit<
  ShapesA,
  'devices' | 'products' | 'groups' | 'logs' | 'commands' | 'policies'
> & {
  logs: Varies<ShapesA['logs'], 'ConnectLog', 'ConnectLogListQuery'>
  commands: Varies<ShapesA['commands'], never, 'DevicePublish' | 'GroupPublish'>
  policies: Either<ShapesA['policies'], typeof policiesB, 'PolicyDevice' | 'policyDeviceWire'>
  devices: Either<
    ShapesA['devices'],
    typeof devicesB,
    | 'Device'
    | 'DeviceListItem'
    | 'DeviceWrite'
    | 'DeviceCreate'
    | 'DeviceUpdate'
    | 'deviceFilters'
    | 'deviceWire'
    | 'access'
  >
  products: Either<
    ShapesA['products'],
    typeof productsB,
    | 'Product'
    | 'ProductListItem'
    | 'ProductCreate'
    | 'ProductUpdate'
    | 'productFilters'
    | 'productWire'
  >
  groups: Either<
    ShapesA['groups'],
    typeof groupsB,
    | 'Group'
    | 'GroupListItem'
    | 'GroupDevice'
    | 'GroupCreate'
    | 'GroupUpdate'
    | 'groupFilters'
    | 'groupWire'
    | 'groupDeviceWire'
  >
}

/**
 * Variant B, the earlier, simpler shape of devices, products, groups, logs, commands and policy bindings; every
 * other resource as in Variant A.
 */
export const shapesB: WireShapes = {
  ...shapesA,
  devices: {
    ...shapesA.devices,
    ...devicesB,
    /** A Variant B device may be a gateway (deviceType 1). */
    deviceKinds: ['device', 'gateway'],
  },
  products: { ...shapesA.products, ...productsB, expand: withProductDevices },
  groups: { ...shapesA.groups, ...groupsB, expand: withGroupDevices },
  logs: { ...shapesA.logs, ...logsSchemasB, ...logsWireB },
  commands: { ...shapesA.commands, ...commandsSchemasB },
  policies: { ...shapesA.policies, ...policiesB },
}

/** The shapes the service serves: API_VARIANT's. */
export function wireShapes(variant: 'A' | 'B' = 'A'): WireShapes {
  return variant === 'B' ? shapesB : shapesA
}
