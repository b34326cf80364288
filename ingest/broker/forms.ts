/**
 * The form in which a device subscribed: relative (`inbox`) or full (`/mqtt/T/P/D/inbox`). aedes holds one
 * subscription per full filter; this remembers, per full filter, the QoS of each form the device used, so that a
 * message going out to the device is delivered in the forms it asked for (twice, once per form, when it
 * subscribed both ways). The subscriptions the service makes for a device (inbox, stored ones) are relative
 * until the device subscribes to the same filter itself, which replaces them. A message that no subscription
 * matches (a command to a topic the device left) goes out with its full topic. The service also subscribes a
 * device to topics outside its mountpoint (its groups' topics): each is delivered under the name given with it.
 */
import type { AedesPublishPacket, Client, PublishPacket } from 'aedes'
import { topicMatches, type DeviceTopic } from '../../src/kernel/topics.ts'

export type Qos = 0 | 1 | 2

/** The QoS of each form a device subscribed with (to one full filter, or matching one topic). */
export interface Forms {
  relative?: Qos
  full?: Qos
}

/** The forms on one full filter: the device's own, and the service's relative one. */
type FilterForms = Forms & { service?: Qos }
type FormsByFilter = Map<string, FilterForms>

/** Marks the second message of a device subscribed both ways: it is forwarded as it is. */
const COPY_BROKER_ID = 'devicecloud-forms'

const max = (a: Qos | undefined, b: Qos | undefined): Qos | undefined =>
  a === undefined ? b : b === undefined ? a : (Math.max(a, b) as Qos)

export class SubscriptionForms {
  private live = new WeakMap<Client, FormsByFilter>()
  /** The forms of sessions that outlive their connection (clean session off), by client id. */
  private kept = new Map<string, FormsByFilter>()
  /** Until its CONNACK, the full filters aedes restored into a session (those of a resumed one). */
  private restored = new WeakMap<Client, Set<string>>()
  private resumed = new WeakSet<Client>()
  /** The service's subscriptions outside the device's mountpoint: full topic → the topic delivered. */
  private aliases = new WeakMap<Client, Map<string, string>>()
  private copies = 0

  /** A device authenticated: a clean start forgets its forms, a resumed session takes them back. */
  began(client: Client, cleanStart: boolean) {
    const previous = cleanStart ? undefined : this.kept.get(client.id)
    const forms = previous ?? new Map<string, FilterForms>()
    if (client.clean) this.kept.delete(client.id)
    else this.kept.set(client.id, forms)
    this.live.set(client, forms)
    this.restored.set(client, new Set())
    if (previous) this.resumed.add(client)
  }

  /**
   * True before the CONNACK: a SUBSCRIBE then is aedes restoring the session (the client's own wait for it), and
   * is passed to `restoring` instead of `subscribed`.
   */
  connecting(client: Client): boolean {
    return this.restored.has(client)
  }

  /** aedes restores a subscription of a resumed session (by its full filter): it keeps its forms. */
  restoring(client: Client, full: string) {
    this.restored.get(client)?.add(full)
  }

  /** The CONNACK is out: forms of filters a resumed session did not hold any more are dropped. */
  connacked(client: Client) {
    const seen = this.restored.get(client)
    const forms = this.live.get(client)
    this.restored.delete(client)
    if (!seen || !forms || !this.resumed.has(client)) return
    for (const filter of [...forms.keys()]) if (!seen.has(filter)) forms.delete(filter)
  }

  /** The service subscribed the device to the full filter `full`: relative, unless the device holds that filter. */
  serviceSubscribed(client: Client, full: string, qos: Qos) {
    const forms = this.formsOf(client)
    const entry = forms.get(full) ?? {}
    if (entry.relative === undefined && entry.full === undefined) entry.service = qos
    forms.set(full, entry)
  }

  /** The service subscribed the device to `full`, a topic outside its mountpoint, delivered as `deliveredAs`. */
  aliased(client: Client, full: string, deliveredAs: string) {
    let aliases = this.aliases.get(client)
    if (!aliases) {
      aliases = new Map()
      this.aliases.set(client, aliases)
    }
    aliases.set(full, deliveredAs)
  }

  /** The device is no longer subscribed to `full`, a topic outside its mountpoint. */
  unaliased(client: Client, full: string) {
    this.aliases.get(client)?.delete(full)
  }

  /** The topics outside its mountpoint the service subscribed the device to (full). */
  aliasesOf(client: Client): string[] {
    return [...(this.aliases.get(client)?.keys() ?? [])]
  }

  /** The device subscribed to `t` with `qos`: returns the QoS the full filter needs (its forms' highest). */
  subscribed(client: Client, t: DeviceTopic, qos: Qos): Qos {
    const forms = this.formsOf(client)
    const entry = forms.get(t.full) ?? {}
    delete entry.service
    entry[t.absolute ? 'full' : 'relative'] = qos
    forms.set(t.full, entry)
    return max(entry.relative, entry.full)!
  }

  /**
   * The device unsubscribes from `t`: returns the topic aedes should unsubscribe, the full filter when no form is
   * left on it, else one that names no subscription of the device (all of which are full) so that the other
   * form stays.
   */
  unsubscribed(client: Client, t: DeviceTopic): string {
    const forms = this.live.get(client)
    const entry = forms?.get(t.full)
    if (!forms || !entry) return t.full
    delete entry.service
    delete entry[t.absolute ? 'full' : 'relative']
    if (entry.full !== undefined || entry.relative !== undefined) return t.relative
    forms.delete(t.full)
    return t.full
  }

  /** The forms in which a message on the full topic `topic` goes to the device; undefined: as it is. */
  formsFor(client: Client, topic: string): Forms | undefined {
    const forms = this.live.get(client)
    if (!forms?.size) return undefined
    let out: Forms | undefined
    for (const [filter, f] of forms) {
      if (!topicMatches(filter, topic)) continue
      const relative = max(f.relative, f.service)
      out = { relative: max(out?.relative, relative), full: max(out?.full, f.full) }
    }
    return out
  }

  /**
   * A message on its way to the device (aedes' authorizeForward): returned in the form the device subscribed
   * with (relative: `prefix` taken off), at most at that form's QoS; as it is when no subscription of the device
   * matches it, and when it is a redelivery or the second message. A device subscribed both ways gets the full
   * form returned and the relative one sent as a second message. One outside `prefix` goes under the name the
   * service gave its subscription (`aliased`), if any.
   */
  forward(client: Client, prefix: string, packet: AedesPublishPacket): AedesPublishPacket {
    if (packet.brokerId === COPY_BROKER_ID || packet.messageId !== undefined) return packet
    if (!packet.topic.startsWith(prefix)) {
      const alias = this.aliases.get(client)?.get(packet.topic)
      return alias === undefined ? packet : { ...packet, topic: alias }
    }
    const forms = this.formsFor(client, packet.topic)
    if (!forms) return packet
    const relative = packet.topic.slice(prefix.length)
    if (forms.full === undefined)
      return { ...packet, topic: relative, qos: Math.min(packet.qos, forms.relative!) as Qos }
    if (forms.relative !== undefined) this.sendCopy(client, packet, relative, forms.relative)
    return { ...packet, qos: Math.min(packet.qos, forms.full) as Qos }
  }

  private sendCopy(client: Client, packet: AedesPublishPacket, topic: string, qos: Qos) {
    const copy = {
      cmd: 'publish',
      topic,
      payload: packet.payload,
      qos: Math.min(packet.qos, qos),
      retain: packet.retain,
      dup: false,
      // its own counter: aedes drops a message whose counter is not above the last one of its broker id
      brokerId: COPY_BROKER_ID,
      brokerCounter: ++this.copies,
      ...(packet.properties ? { properties: packet.properties } : {}),
    } as PublishPacket
    client.publish(copy, () => {})
  }

  private formsOf(client: Client): FormsByFilter {
    let forms = this.live.get(client)
    if (!forms) {
      forms = new Map()
      this.live.set(client, forms)
    }
    return forms
  }
}
