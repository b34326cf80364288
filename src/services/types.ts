import type { EventBus } from '../kernel/events.ts'
import type { Logger } from '../kernel/log.ts'
import type { MetaStore } from '../../store/types.ts'
import type { TelemetryStore } from '../../store/telemetry.ts'

/** Who performs a write: the tenant it happens in and the user recorded as its creator (null for applications). */
export interface Actor {
  tenant: string
  userIntID: number | null
  /** The caller's name, recorded as the issuing user of commands (publishUser). */
  username?: string | null
}

/** What every domain service is built over: the store ports and the domain event bus. */
export interface ServiceDeps {
  meta: MetaStore
  telemetry: TelemetryStore
  events: EventBus
  /** Where the services log (each as its own component); default: the fallback logger. */
  logger?: Logger
}

/**
 * Runs `read` for each id and keeps what it answers; ids it cannot read (not the tenant's) are skipped, since the
 * write that follows refuses them itself with its own 404.
 */
export async function readEach<T>(ids: number[], read: (id: number) => Promise<T>): Promise<T[]> {
  const rows = await Promise.all(ids.map((id) => read(id).catch(() => undefined)))
  return rows.filter((r): r is Awaited<T> => r !== undefined)
}
