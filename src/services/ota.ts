/**
 * Firmware updates put together (README "Firmware"): the rollouts' domain service, the engine that paces them, the
 * delivery of their messages to devices and the inbox of the devices' `ota/` messages.
 */
import type { EventBus } from '../kernel/events.ts'
import type { MetaStore } from '../../store/types.ts'
import type { Identities } from './command-dispatch.ts'
import type { FirmwareService } from './firmware.ts'
import { otaDelivery } from './ota-delivery.ts'
import { otaInbox } from './ota-inbox.ts'
import type { CommandBroker } from './ports.ts'
import { rolloutEngine } from './rollout-engine.ts'
import { rolloutService } from './rollouts.ts'

export interface OtaDeps {
  meta: MetaStore
  events: EventBus
  broker: CommandBroker
  identities: Identities
  firmware: FirmwareService
  now: () => number
  /** FIRMWARE_URL: where devices download packages (default: this service, told at start). */
  firmwareUrl?: string
  log: (message: string, e?: unknown) => void
}

export function otaServices(deps: OtaDeps) {
  let base = deps.firmwareUrl ?? ''
  const rollouts = rolloutService(deps)
  const delivery = otaDelivery({
    ...deps,
    downloadUrl: (firmwareID) => `${base}${encodeURIComponent(firmwareID)}`,
  })
  const engine = rolloutEngine({ ...deps, service: rollouts, delivery })
  return {
    rollouts,
    otaInbox: otaInbox({ ...deps, rollouts }),
    /**
     * The engine and the delivery: `start(serviceUrl)` once the broker runs and the HTTP server listens (its
     * URL, the default download base), `close()` before the broker stops.
     */
    ota: {
      async start(serviceUrl: string) {
        if (!deps.firmwareUrl) base = `${serviceUrl}/api/v1/ingest/firmware/`
        await delivery.start()
        engine.start()
      },
      async close() {
        delivery.close()
        await engine.close()
      },
    },
  }
}
