import type { Config } from '../src/config.ts'
import type { Bus } from '../src/bus.ts'
import type { MetaStore } from '../store/libsql/meta.ts'
import type { BrokerHandle, Pipeline } from './types.ts'

export interface BrokerDeps {
  config: Config
  meta: MetaStore
  pipeline: Pipeline
  bus: Bus
}

/** TODO(issue 4): the embedded MQTT broker (aedes) on MQTT_PORT and MQTT over WebSocket on MQTT_WS_PORT. */
export async function startBroker(_deps: BrokerDeps): Promise<BrokerHandle> {
  return {
    port: null,
    wsPort: null,
    async kick() {},
    async publish() {
      return false
    },
    async close() {},
  }
}
