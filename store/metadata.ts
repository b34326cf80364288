/**
 * The metadata store's port: one repository per resource family. store/libsql implements it
 * (createMetaStore); the HTTP layer, the services and ingest see only these interfaces. Stores take and return
 * times as epoch milliseconds; they throw the errors of store/errors.ts (NotFound, Conflict, Referenced, Invalid,
 * Unavailable), never a driver's.
 */
import type { RetentionRepository } from './meta/retention.ts'
import type { AccountRepository } from './meta/accounts.ts'
import type {
  CertRepository,
  GroupRepository,
  PolicyRepository,
  SubscriptionRepository,
} from './meta/access.ts'
import type { DeviceRepository } from './meta/devices.ts'
import type { ConnectionRepository, IngestRepository } from './meta/ingest.ts'
import type { AlertRepository, LogRepository } from './meta/logs.ts'
import type {
  AppTemplateRepository,
  DataPointRepository,
  DataStreamRepository,
  MetricRepository,
  ProductRepository,
  ProductResourceRepository,
} from './meta/product-model.ts'
import type { TaskRepository } from './meta/tasks.ts'
import type { CommandRepository } from './meta/commands.ts'
import type { ScheduleRepository } from './meta/schedules.ts'
import type { AlertRuleRepository } from './meta/alert-rules.ts'
import type { WebhookRepository } from './meta/webhooks.ts'
import type { OverviewRepository } from './meta/overview.ts'
import type { StateRepository } from './meta/state.ts'
import type { FirmwareRepository } from './meta/firmware.ts'
import type { RolloutRepository } from './meta/rollouts.ts'
import type { AuditRepository } from './meta/audit.ts'

export type * from './meta/accounts.ts'
export type * from './meta/access.ts'
export type * from './meta/devices.ts'
export type * from './meta/ingest.ts'
export type * from './meta/logs.ts'
export type * from './meta/product-model.ts'
export { publishStatusOf } from './meta/commands.ts'
export type * from './meta/commands.ts'
export type * from './meta/schedules.ts'
export type * from './meta/alert-rules.ts'
export { OUTBOX_TYPES } from './meta/webhooks.ts'
export type * from './meta/webhooks.ts'
export type * from './meta/overview.ts'
export type * from './meta/state.ts'
export type * from './meta/firmware.ts'
export type * from './meta/rollouts.ts'
export type * from './meta/audit.ts'
export type * from './meta/table.ts'
export { outboxOf } from './meta/outbox.ts'
export { INTERRUPTED, TaskState, type TaskFile, type TaskRepository } from './meta/tasks.ts'

/** The metadata store: tenants, devices, the product model, access rules, logs, alerts and tasks. */
export interface MetaStore {
  accounts: AccountRepository
  products: ProductRepository
  /** Devices; gateways are `devices.gateways`. */
  devices: DeviceRepository
  /** Groups; their members are `groups.members`. */
  groups: GroupRepository
  /** Policies; their bindings to devices are `policies.bindings`. */
  policies: PolicyRepository
  subscriptions: SubscriptionRepository
  dataPoints: DataPointRepository
  dataStreams: DataStreamRepository
  metrics: MetricRepository
  productResources: ProductResourceRepository
  appTemplates: AppTemplateRepository
  certs: CertRepository
  tasks: TaskRepository
  logs: LogRepository
  alerts: AlertRepository
  /** Alert rules and the alert engine's pending waits. */
  alertRules: AlertRuleRepository
  /** Commands to devices and groups: control logs with a lifecycle. */
  commands: CommandRepository
  /** Scheduled commands to devices and groups, fired once per due time across nodes. */
  schedules: ScheduleRepository
  /** Webhooks, the outbox of events they and the live stream carry, and the deliveries. */
  webhooks: WebhookRepository
  /** The fleet overview: a tenant's device, online, alert and message counts. */
  overview: OverviewRepository
  /** Devices' state documents (desired, reported, delta) and the jobs patching a group's or product's devices. */
  state: StateRepository
  /** Firmware packages of the products (their bytes: store/firmware-files.ts). */
  firmware: FirmwareRepository
  /** Firmware rollouts and their devices' rows. */
  rollouts: RolloutRepository
  /** The audit log: who changed what (changes are recorded in their own transactions; sign-ins here). */
  audit: AuditRepository
  /** What ingest reads: device identities and product models. */
  ingest: IngestRepository
  /** What ingest writes about connections: device states and connection logs. */
  connections: ConnectionRepository
  /** The retention job: its lease across processes, products' retention, age-based deletes. */
  retention: RetentionRepository
  /** Closes the store (after every other user of it stopped). */
  close(): Promise<void>
}
