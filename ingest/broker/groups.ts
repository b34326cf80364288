/**
 * Group topics on the embedded broker. A group command with `needAck` 0 is one QoS 0 message to the group topic
 * `/{protocol}/{tenantID}/{productID}/group/{groupID}`: the service subscribes each connected member to it (QoS 0),
 * and the member receives it as `group/{groupID}`, like `inbox`. The topic is outside every mountpoint, so a device
 * can neither subscribe to it nor publish on it by itself (its ACL refuses both). A device's groups are read once
 * its session is online, and read again when its memberships change (`groupMembers.changed`) or its record does
 * (its product may have: `device.changed`, through the broker's device watch).
 */
import type { Client, UnsubscribePacket } from 'aedes'
import type { EventBus } from '../../src/kernel/events.ts'
import type { IngestRepository } from '../../store/types.ts'
import type { BrokerHooks } from './hooks.ts'
import type { DeviceDirectory } from '../identity.ts'
import { groupRelative, groupTopic } from '../../src/kernel/topics.ts'

export interface GroupSubscriptionDeps {
  repo: Pick<IngestRepository, 'groupsOf'>
  hooks: BrokerHooks
  directory: DeviceDirectory
  /** The broker's clients by client id (the deviceID). */
  clients: Record<string, Client | undefined>
  log: (message: string, e?: unknown) => void
}

/** Keeps each online device subscribed to the topics of the groups it is a member of, and to no other group's. */
export class GroupSubscriptions {
  /** Per client, its latest update: one client's updates run one after another, each on a fresh read. */
  private chains = new WeakMap<Client, Promise<void>>()

  constructor(private readonly d: GroupSubscriptionDeps) {}

  /** Brings the client's group subscriptions in line with its device's memberships as the store holds them now. */
  sync(client: Client): Promise<void> {
    const next = (this.chains.get(client) ?? Promise.resolve())
      .then(() => this.apply(client))
      .catch((e) => this.d.log(`group subscriptions of ${client.id} failed`, e))
    this.chains.set(client, next)
    return next
  }

  /** Follows membership changes of connected devices; returns the function that stops it. */
  watch(bus: EventBus): () => void {
    const onMembers = (e: { deviceIntIDs: number[] }) => {
      for (const id of e.deviceIntIDs) this.syncDevice(id)
    }
    bus.on('groupMembers.changed', onMembers)
    return () => bus.off('groupMembers.changed', onMembers)
  }

  /** Syncs the device's session, if it has one on this broker. */
  private syncDevice(id: number) {
    this.d.directory
      .byId(id)
      .then((device) => {
        const client = device && this.d.clients[device.deviceID]
        if (client && this.d.hooks.sessions.get(client)?.device.id === id) return this.sync(client)
      })
      .catch((e) => this.d.log(`re-reading device ${id} for its groups failed`, e))
  }

  /**
   * Unsubscribes the client from the group topics it holds and should not, and subscribes it to the missing ones.
   * A session not online yet is left alone: it is synced once it is.
   */
  private async apply(client: Client) {
    const s = this.d.hooks.sessions.get(client)
    if (!s || s.state !== 'online' || client.closed) return
    const device = s.device
    const groupIDs = await this.d.repo.groupsOf(device.id)
    if (client.closed || s.state !== 'online') return
    const want = new Map(groupIDs.map((g) => [groupTopic(device, g), groupRelative(g)]))
    const forms = this.d.hooks.forms
    const held = forms.aliasesOf(client)
    const leave = held.filter((topic) => !want.has(topic))
    const join = [...want].filter(([topic]) => !held.includes(topic))
    if (leave.length) {
      for (const topic of leave) forms.unaliased(client, topic)
      // no messageId: aedes sends no UNSUBACK for it
      const packet = { cmd: 'unsubscribe', unsubscriptions: leave } as UnsubscribePacket
      await new Promise<void>((resolve, reject) =>
        client.unsubscribe(packet, (e) => (e ? reject(e) : resolve())),
      )
    }
    if (!join.length || client.closed) return
    const subscriptions = join.map(([topic, as]) => this.d.hooks.serviceSubscription(topic, 0, as))
    await new Promise<void>((resolve, reject) =>
      client.subscribe({ subscriptions }, (e) => (e ? reject(e) : resolve())),
    )
  }
}
