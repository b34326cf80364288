import type { Config } from '../src/kernel/config.ts'
import type { TelemetryStore } from './telemetry.ts'
import type { MetaStore } from './types.ts'
import { LibsqlTelemetryStore } from './libsql/telemetry.ts'
import { InfluxTelemetryStore } from './influx/telemetry.ts'
import { openDb } from './libsql/db.ts'
import { createMetaStore } from './libsql/meta.ts'

/** The stores the service runs on. */
export interface Stores {
  meta: MetaStore
  telemetry: TelemetryStore
  /** Closes both stores (after everything that writes to them stopped). */
  close(): Promise<void>
}

/** The telemetry store the configuration asks for: InfluxDB 2.x when INFLUX_URL is set, else the embedded one. */
export async function createTelemetryStore(config: Config): Promise<TelemetryStore> {
  if (config.INFLUX_URL)
    return InfluxTelemetryStore.open({
      url: config.INFLUX_URL,
      token: config.INFLUX_TOKEN!,
      org: config.INFLUX_ORG!,
      bucket: config.INFLUX_BUCKET!,
    })
  return LibsqlTelemetryStore.open({
    url: `file:${config.DATA_DIR.replace(/\/$/, '')}/telemetry.db`,
  })
}

/**
 * Opens the stores the configuration names: the metadata store in libSQL at DATABASE_URL (a local file or sqld,
 * migrated to the latest schema at open) and the telemetry store (createTelemetryStore).
 */
export async function createStores(config: Config): Promise<Stores> {
  const db = await openDb({ url: config.DATABASE_URL, authToken: config.DATABASE_AUTH_TOKEN })
  const meta = createMetaStore(db)
  let telemetry: TelemetryStore
  try {
    telemetry = await createTelemetryStore(config)
  } catch (e) {
    await meta.close()
    throw e
  }
  return {
    meta,
    telemetry,
    async close() {
      await telemetry.close()
      await meta.close()
    },
  }
}
