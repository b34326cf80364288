import type { Db } from './db.ts'
import type { MetaStore } from '../types.ts'
import { AccountsRepo } from './accounts.ts'
import { ProductsRepo } from './products.ts'
import { DevicesRepo } from './devices.ts'
import { GroupsRepo } from './groups.ts'
import { PoliciesRepo } from './policies.ts'
import { SubscriptionsRepo } from './subscriptions.ts'
import { DataPointsRepo } from './data-points.ts'
import { DataStreamsRepo } from './data-streams.ts'
import { MetricsRepo } from './metrics.ts'
import { ProductResourcesRepo } from './product-resources.ts'
import { AppTemplatesRepo } from './app-templates.ts'
import { CertsRepo } from './certs.ts'
import { TasksRepo } from './tasks.ts'
import { LogsRepo } from './logs.ts'
import { AlertsRepo } from './alerts.ts'
import { AlertRulesRepo } from './alert-rules.ts'
import { IngestModelRepo } from './ingest-model.ts'
import { ConnectionsRepo } from './connections.ts'
import { CommandsRepo } from './commands.ts'
import { SchedulesRepo } from './schedules.ts'
import { WebhooksRepo } from './webhooks.ts'
import { OverviewRepo } from './overview.ts'
import { RetentionRepo } from './retention.ts'
import { StateRepo } from './state.ts'
import { FirmwareRepo } from './firmware.ts'
import { RolloutRepo } from './rollouts.ts'
import { AuditRepo } from './audit.ts'

/**
 * The metadata store over one libSQL database: one repository per resource family. The handle stays here;
 * `close()` closes it.
 */
export function createMetaStore(db: Db): MetaStore {
  return {
    accounts: new AccountsRepo(db),
    products: new ProductsRepo(db),
    devices: new DevicesRepo(db),
    groups: new GroupsRepo(db),
    policies: new PoliciesRepo(db),
    subscriptions: new SubscriptionsRepo(db),
    dataPoints: new DataPointsRepo(db),
    dataStreams: new DataStreamsRepo(db),
    metrics: new MetricsRepo(db),
    productResources: new ProductResourcesRepo(db),
    appTemplates: new AppTemplatesRepo(db),
    certs: new CertsRepo(db),
    tasks: new TasksRepo(db),
    logs: new LogsRepo(db),
    alerts: new AlertsRepo(db),
    alertRules: new AlertRulesRepo(db),
    commands: new CommandsRepo(db),
    schedules: new SchedulesRepo(db),
    webhooks: new WebhooksRepo(db),
    overview: new OverviewRepo(db),
    state: new StateRepo(db),
    firmware: new FirmwareRepo(db),
    rollouts: new RolloutRepo(db),
    audit: new AuditRepo(db),
    retention: new RetentionRepo(db),
    ingest: new IngestModelRepo(db),
    connections: new ConnectionsRepo(db),
    async close() {
      await db.checkpoint() // a copy of the file alone after a clean stop is complete
      await db.close()
    },
  }
}
