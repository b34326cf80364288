/**
 * Routing an uplink only where a subscription can take it. aedes routes every PUBLISH it accepts: it matches the
 * topic against every subscription of the broker (its mqemitter) and, at QoS 1 and 2, against the stored
 * subscriptions of every persistent session (the offline queues). Measured at 10 messages in flight for each of
 * 1,000 devices, that routing was ~15% of the event loop's work on an uplink, and it finds nobody for nearly all of
 * them: devices rarely subscribe to what they send.
 *
 * Who can subscribe to an uplink's topic is known here without matching. An uplink is routed on its full topic,
 * which lies under its device's mountpoint `/{protocol}/{tenantID}/{productID}/{deviceID}/` (hooks.ts
 * `ingest`), and only the device itself holds subscriptions under that mountpoint:
 * - a device's SUBSCRIBE is placed under its own mountpoint, and a filter naming any other is refused
 *   (src/kernel/topics.ts `deviceTopic`, hooks.ts `authorizeSubscribe`);
 * - the service subscribes a device under its own mountpoint (inbox, stored subscriptions) and to its groups'
 *   topics `/{protocol}/{tenantID}/{productID}/group/{groupID}`, which lie under no device's mountpoint
 *   (deviceID `group` is reserved);
 * - a mountpoint's levels hold no `/`, `+` or `#` (deviceID, tenantID and productID cannot), so a filter under one
 *   mountpoint matches no topic under another; the client id is the deviceID, so one session is that device's.
 *
 * So the publishing client's own subscriptions are the only ones that can match its uplink. An uplink that none of
 * them matches and that is not retained (a retained message is stored for later subscribers) is not handed to
 * aedes' routing at all: it is acknowledged as before (the PUBACK goes out first, after the commit), and aedes'
 * match would have found nobody. A client's subscriptions are read when the uplink is routed (after its commit),
 * from the same table aedes keeps as it subscribes and unsubscribes (`client.subscriptions`, full filters); a
 * filter that is not a plain MQTT filter (a shared subscription) counts as matching.
 */
import type { Aedes, Client, PublishPacket } from 'aedes'
import { topicMatches } from '../../src/kernel/topics.ts'

type Publish = (packet: PublishPacket, client?: Client | null, done?: (e?: Error) => void) => void

/**
 * True when one of the filters keying `subscriptions` (a client's, full filters) may match `topic`. A filter
 * without wildcards (a device's inbox, a group topic: nearly all of them) is compared whole, with no split.
 */
export function mayMatch(subscriptions: Readonly<Record<string, unknown>>, topic: string): boolean {
  for (const f in subscriptions) {
    if (f === topic || f.startsWith('$share/')) return true
    if ((f.includes('+') || f.includes('#')) && topicMatches(f, topic)) return true
  }
  return false
}

/**
 * Makes `broker` route a PUBLISH that a device's session sent on a topic under the device's own mountpoint (`own`
 * answers that: see above) only when the session has a subscription that may match it, or it is retained. Every
 * other PUBLISH (commands, group messages, wills, whatever the service publishes) is routed as before.
 */
export function routeOnlyWhereSubscribed(
  broker: Aedes,
  own: (client: Client, topic: string) => boolean,
): void {
  const route = broker.publish.bind(broker) as unknown as Publish
  const publish: Publish = (packet, client, done) => {
    if (
      typeof done === 'function' &&
      client &&
      !packet.retain &&
      own(client, packet.topic) &&
      !mayMatch(client.subscriptions, packet.topic)
    )
      return done()
    return route(packet, client, done)
  }
  ;(broker as unknown as { publish: Publish }).publish = publish
}
