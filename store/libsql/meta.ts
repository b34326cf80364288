import type { Db } from './db.ts'
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

/** The metadata store: one repository per resource family over one libSQL database. */
export function createMetaStore(db: Db, opts: { tz: string }) {
  const { tz } = opts
  return {
    db,
    accounts: new AccountsRepo(db, tz),
    products: new ProductsRepo(db, tz),
    devices: new DevicesRepo(db, tz),
    groups: new GroupsRepo(db, tz),
    policies: new PoliciesRepo(db, tz),
    subscriptions: new SubscriptionsRepo(db, tz),
    dataPoints: new DataPointsRepo(db, tz),
    dataStreams: new DataStreamsRepo(db, tz),
    metrics: new MetricsRepo(db, tz),
    productResources: new ProductResourcesRepo(db, tz),
    appTemplates: new AppTemplatesRepo(db, tz),
    certs: new CertsRepo(db, tz),
    tasks: new TasksRepo(db, tz),
    logs: new LogsRepo(db, tz),
    alerts: new AlertsRepo(db, tz),
  }
}

export type MetaStore = ReturnType<typeof createMetaStore>
