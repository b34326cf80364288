/**
 * Sends devices their rollouts' messages (README "Firmware"): `ota/notify` once a device's slot was taken and
 * `ota/cancel` once a rollout it was notified of is canceled or aborted, each at most once per attempt:
 * - by the node that took the slot, at once, when the device is connected to it (or the broker is shared);
 * - through the embedded broker with several nodes, by the node the device is connected to: each node follows the
 *   `firmware.device` events of the outbox;
 * - to a device that was offline, when it subscribes to its `ota/` topics again (its timeout counts from then).
 * A message is recorded as sent before it is published (a compare-and-set per attempt), so two nodes, or a node
 * restarted, never send it twice; a publish the embedded broker saw no PUBACK for is recorded as not sent again,
 * and waits for the device's next subscription.
 */
import type { DomainEvents, EventBus } from '../kernel/events.ts'
import { topicMatches } from '../kernel/topics.ts'
import type { MetaStore, PendingMessage } from '../../store/types.ts'
import type { Identities } from './command-dispatch.ts'
import { FOLLOW_PAGE, outboxFollower } from './outbox-follower.ts'
import type { CommandBroker, DeviceIdentity } from './ports.ts'

export const NOTIFY_TOPIC = 'ota/notify'
export const CANCEL_TOPIC = 'ota/cancel'
/** How long a message waits for the device's PUBACK. */
const SEND_TIMEOUT_MS = 30_000

export interface OtaDeliveryDeps {
  meta: MetaStore
  events: EventBus
  broker: CommandBroker
  identities: Identities
  now: () => number
  /** The URL a device downloads a package from. */
  downloadUrl: (firmwareID: string) => string
  log: (message: string, e?: unknown) => void
}

/** The body of `ota/notify`. */
export const notifyMessage = (m: PendingMessage, url: string) => ({
  rolloutID: m.rolloutID,
  firmwareID: m.firmwareID,
  version: m.version,
  size: m.size,
  sha256: m.sha256,
  url,
  attempt: m.attempt,
})

/** Sends one waiting message, once: recorded as sent first (a compare-and-set), taken back without a PUBACK. */
async function sendOne(d: OtaDeliveryDeps, device: DeviceIdentity, m: PendingMessage) {
  const { meta, broker, now } = d
  if (m.kind === 'cancel') {
    if (!(await meta.rollouts.cancelSent(m, now()))) return
    const body = Buffer.from(JSON.stringify({ rolloutID: m.rolloutID, attempt: m.attempt }))
    await broker.publish(device, CANCEL_TOPIC, body, { qos: 1, timeoutMs: SEND_TIMEOUT_MS })
    return
  }
  const at = now()
  if (!(await meta.rollouts.delivered(m, at))) return // sent already (another node, an earlier call)
  const body = Buffer.from(JSON.stringify(notifyMessage(m, d.downloadUrl(m.firmwareID))))
  const acked = await broker.publish(device, NOTIFY_TOPIC, body, {
    qos: 1,
    timeoutMs: SEND_TIMEOUT_MS,
  })
  // the embedded broker saw no PUBACK: the device never had it; it waits for the next subscription
  if (!acked && broker.confirmsDelivery) await meta.rollouts.undelivered(m, at)
}

export function otaDelivery(d: OtaDeliveryDeps) {
  const { meta, events, broker, identities, log } = d

  /** Sends what waits for these devices, those connected here (through a shared broker: all). */
  async function sendTo(devices: readonly DeviceIdentity[]) {
    const here = devices.filter((x) => broker.connected(x))
    if (!here.length) return
    const byId = new Map(here.map((x) => [x.id, x]))
    const waiting = await meta.rollouts.pendingFor([...byId.keys()])
    await Promise.all(
      waiting.map((m) =>
        sendOne(d, byId.get(m.deviceIntID)!, m).catch((e) =>
          log(`ota message to ${byId.get(m.deviceIntID)!.deviceID} failed`, e),
        ),
      ),
    )
  }

  /** Sends what waits for the devices `ids` (record ids). */
  async function sendToIds(ids: readonly number[]) {
    const devices = await Promise.all(ids.map((id) => identities.byId(id)))
    await sendTo(devices.filter((x): x is DeviceIdentity => x !== undefined))
  }

  const onSubscribed = (e: DomainEvents['device.subscribed'][0]) => {
    if (!e.filters.some((f) => topicMatches(f, NOTIFY_TOPIC) || topicMatches(f, CANCEL_TOPIC)))
      return
    sendToIds([e.deviceIntID]).catch((err) => log('ota message on subscribe failed', err))
  }

  /** Other nodes' `firmware.device` events: sends to the devices connected here. */
  const follower = outboxFollower(
    meta,
    'ota',
    async (since) => {
      const { lastID, deviceIntIDs } = await meta.rollouts.changesSince(since, FOLLOW_PAGE)
      if (deviceIntIDs.length) await sendToIds(deviceIntIDs)
      return lastID
    },
    log,
  )

  return {
    sendToIds,
    async start() {
      events.on('device.subscribed', onSubscribed)
      if (!broker.shared) await follower.start()
    },
    close() {
      follower.close()
      events.off('device.subscribed', onSubscribed)
    },
  }
}

export type OtaDelivery = ReturnType<typeof otaDelivery>
