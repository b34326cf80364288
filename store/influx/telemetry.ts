import type { LastValue, Series, SeriesRange, TelemetryPoint, TelemetryStore } from '../telemetry.ts'

export interface InfluxOptions {
  url: string
  token: string
  org: string
  bucket: string
}

/** TODO(issue 4): the InfluxDB 2.x telemetry store (@influxdata/influxdb-client, line protocol, Flux). */
export class InfluxTelemetryStore implements TelemetryStore {
  readonly kind = 'influxdb'

  static async open(_opts: InfluxOptions): Promise<InfluxTelemetryStore> {
    return new InfluxTelemetryStore()
  }

  async write(_points: readonly TelemetryPoint[]): Promise<void> {
    throw new Error('not implemented')
  }

  async readRaw(_range: SeriesRange): Promise<Map<string, Series>> {
    throw new Error('not implemented')
  }

  async latest(_tenantID: string, _deviceID: string): Promise<Map<string, LastValue>> {
    throw new Error('not implemented')
  }

  async deleteDevice(_tenantID: string, _deviceID: string): Promise<void> {}

  async close(): Promise<void> {}
}
