import type { Config } from '../src/kernel/config.ts'
import type { TelemetryStore } from './telemetry.ts'
import { LibsqlTelemetryStore } from './libsql/telemetry.ts'
import { InfluxTelemetryStore } from './influx/telemetry.ts'

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
