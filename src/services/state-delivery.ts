/**
 * Pushes `{desired, delta, version, desiredVersion}` to devices on `state/delta` (QoS 1) without being asked:
 * - on every change of a device's document that changes its delta or its desired side (this node's changes, from
 *   the bus);
 * - through the embedded broker, to a device that subscribes to a filter matching `state/delta` (or connects with a
 *   session that kept one) while its delta is not empty;
 * - through the embedded broker with several nodes, a change made on another node: each node follows the
 *   `device.state` events of the outbox and pushes those of the devices connected to it;
 * - through an external broker (shared by every node), the node that made the change publishes the message
 *   retained, so the broker hands the latest one to the device at its next subscription.
 * A device may receive a version twice, or an older one after a newer one: it keeps the highest `version`.
 */
import type { DomainEvents, EventBus } from '../kernel/events.ts'
import { topicMatches } from '../kernel/topics.ts'
import type { MetaStore } from '../../store/types.ts'
import type { Identities } from './command-dispatch.ts'
import { FOLLOW_PAGE, outboxFollower } from './outbox-follower.ts'
import type { CommandBroker, DeviceIdentity } from './ports.ts'
import { deltaMessage, documentOf } from './state-document.ts'

export const DELTA_TOPIC = 'state/delta'
/** How long a pushed delta waits for the device's PUBACK before the publish gives up. */
const PUSH_TIMEOUT_MS = 30_000

export interface StateDeliveryDeps {
  meta: MetaStore
  events: EventBus
  broker: CommandBroker
  identities: Identities
  log: (message: string, e?: unknown) => void
}

type Message = Parameters<typeof deltaMessage>[0]

/** Sends deltas to connected devices, remembering the highest version each was sent or saw change here. */
function pusher({ meta, broker, log }: StateDeliveryDeps) {
  /** Per connected device: the highest version this node pushed or saw change (the follower skips older ones). */
  const seen = new Map<number, number>()
  const note = (id: number, version: number) => {
    if ((seen.get(id) ?? -1) < version) seen.set(id, version)
  }

  function push(device: DeviceIdentity, m: Message) {
    if (!broker.connected(device)) return
    note(device.id, m.version)
    const payload = Buffer.from(JSON.stringify(deltaMessage(m)))
    broker
      .publish(device, DELTA_TOPIC, payload, {
        qos: 1,
        timeoutMs: PUSH_TIMEOUT_MS,
        retain: broker.shared,
      })
      .catch((e) => log(`state delta to ${device.deviceID} failed`, e))
  }

  /**
   * Pushes the stored documents of the connected `devices`: those with a delta (a subscription), or, given
   * `versions`, those newer than what this node sent (changes of other nodes).
   */
  async function pushStored(devices: DeviceIdentity[], versions?: Map<number, number>) {
    const online = devices.filter((x) => broker.connected(x))
    if (!online.length) return
    const stored = await meta.state.byDevices(online.map((x) => x.id))
    for (const device of online) {
      const doc = documentOf(device, stored.get(device.id))
      if (versions ? (seen.get(device.id) ?? -1) >= doc.version : !Object.keys(doc.delta).length)
        continue
      push(device, doc)
    }
  }

  return { seen, note, push, pushStored }
}

export function stateDelivery(d: StateDeliveryDeps) {
  const { meta, events, broker, identities, log } = d
  const p = pusher(d)

  const onState = (e: DomainEvents['device.state'][0]) => {
    identities
      .byId(e.deviceIntID)
      .then((device) => {
        if (!device || !broker.connected(device)) return
        p.note(device.id, e.version)
        if (e.side === 'desired' || e.deltaChanged) p.push(device, e)
      })
      .catch((err) => log('state delta failed', err))
  }

  const onSubscribed = (e: DomainEvents['device.subscribed'][0]) => {
    if (!e.filters.some((f) => topicMatches(f, DELTA_TOPIC))) return
    identities
      .byId(e.deviceIntID)
      .then((device) => (device ? p.pushStored([device]) : undefined))
      .catch((err) => log('state delta on subscribe failed', err))
  }

  const onOffline = (e: { id: number }) => p.seen.delete(e.id)

  /** Other nodes' `device.state` events: pushes those of devices connected here newer than what they were sent. */
  const follower = outboxFollower(
    meta,
    'state',
    async (since) => {
      const { lastID, changes } = await meta.state.changesSince(since, FOLLOW_PAGE)
      const newer = new Map<number, number>()
      for (const c of changes)
        if ((p.seen.get(c.deviceIntID) ?? -1) < c.version) newer.set(c.deviceIntID, c.version)
      const devices = await Promise.all([...newer.keys()].map((id) => identities.byId(id)))
      await p.pushStored(
        devices.filter((x): x is DeviceIdentity => x !== undefined),
        newer,
      )
      return lastID
    },
    log,
  )

  return {
    async start() {
      events.on('device.state', onState)
      events.on('device.subscribed', onSubscribed)
      events.on('device.offline', onOffline)
      if (!broker.shared) await follower.start()
    },
    close() {
      follower.close()
      events.off('device.state', onState)
      events.off('device.subscribed', onSubscribed)
      events.off('device.offline', onOffline)
    },
  }
}
