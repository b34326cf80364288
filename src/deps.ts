import type { Config } from './kernel/config.ts'
import type { MetaStore } from '../store/libsql/meta.ts'
import type { Authenticator } from './http/auth.ts'
import type { TaskRunner } from './tasks.ts'
import type { EventBus } from './kernel/events.ts'
import type { TelemetryStore } from '../store/telemetry.ts'
import type { BrokerHandle, Pipeline } from '../ingest/types.ts'

/** Everything routes may use; src/main.ts (and the tests) build it. */
export interface Deps {
  config: Config
  meta: MetaStore
  auth: Authenticator
  tasks: TaskRunner
  bus: EventBus
  telemetry: TelemetryStore
  pipeline: Pipeline
  broker: BrokerHandle
}
