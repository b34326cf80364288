import type { LastValue, Series, SeriesRange, TelemetryPoint, TelemetryStore } from '../telemetry.ts'

/** TODO(issue 4): the embedded libSQL telemetry store (its own database file in DATA_DIR). */
export class LibsqlTelemetryStore implements TelemetryStore {
  readonly kind = 'embedded'

  static async open(_opts: { url: string }): Promise<LibsqlTelemetryStore> {
    return new LibsqlTelemetryStore()
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
