import type { BrokerDeps } from './broker.ts'
import type { BrokerHandle } from './types.ts'

/** TODO(issue 4): MQTT_URL mode: one shared subscription to every device's uplink on an external broker. */
export async function connectExternalBroker(_deps: BrokerDeps): Promise<BrokerHandle> {
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
