import type { Config } from '../src/config.ts'
import type { Bus } from '../src/bus.ts'
import type { MetaStore } from '../store/libsql/meta.ts'
import type { TelemetryStore } from '../store/telemetry.ts'
import type { Pipeline, Uplink, UplinkOutcome } from './types.ts'

export interface PipelineDeps {
  config: Config
  meta: MetaStore
  telemetry: TelemetryStore
  bus: Bus
}

/** TODO(issue 4): decode → check against the product model → batch writer → durable outcome. */
export function createPipeline(_deps: PipelineDeps): Pipeline {
  return {
    saturated: false,
    async submit(_uplink: Uplink): Promise<UplinkOutcome> {
      throw new Error('not implemented')
    },
    async drained() {},
    async flush() {},
    async close() {},
  }
}
