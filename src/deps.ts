import type { DiskGuard } from './kernel/disk.ts'
import type { Config } from './kernel/config.ts'
import type { MetaStore } from '../store/types.ts'
import type { Authenticator } from './http/auth.ts'
import type { TaskRunner } from './tasks.ts'
import type { EventBus } from './kernel/events.ts'
import type { TelemetryStore } from '../store/telemetry.ts'
import type { BrokerHandle, DeviceGate, HttpIngest, Pipeline } from '../ingest/types.ts'
import type { Services } from './services/index.ts'
import type { Lifecycle } from './http/health.ts'
import type { PublicEndpoints } from './kernel/endpoints.ts'
import type { Metrics } from './kernel/metrics.ts'
import type { Logger } from './kernel/log.ts'

/** Everything routes may use; startService (src/service.ts) builds it, and the tests through it. */
export interface Deps {
  config: Config
  meta: MetaStore
  /** Every write goes through these. */
  services: Services
  auth: Authenticator
  tasks: TaskRunner
  bus: EventBus
  telemetry: TelemetryStore
  pipeline: Pipeline
  /** HTTP ingest below its routes: device credentials, the device of each message, submission. */
  ingest: HttpIngest
  broker: BrokerHandle
  /** Device authentication, ACL and connection state for an external broker's hooks (src/routes/emqx.ts). */
  gate: DeviceGate
  /** Where devices reach the broker, as they are told (onboarding, broker addresses in answers). */
  endpoints: PublicEndpoints
  /** Set by the server wiring: readiness (`GET /readyz`) answers 503 while `serving` is false. */
  lifecycle: Lifecycle
  /** The service's metrics (GET /metrics); `noMetrics` when METRICS=false. */
  metrics: Metrics
  /** The service's root logger; modules take children of it. */
  logger: Logger
  /** The free-space guard of DATA_DIR (readiness's `disk` check; ingest refuses while it says full). */
  disk: DiskGuard
}
