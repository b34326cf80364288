/**
 * Commands to one device through the embedded broker, acknowledged by the device's PUBACK.
 *
 * aedes gives a server-side `client.publish` no way to learn the packet identifier it will use, and its 'ack' event
 * carries the original packet only when the persistence stored it (not for clean sessions). So: the command's
 * payload Buffer (a fresh copy, so its identity is unique) marks the packet; when aedes hands it to
 * `authorizeForward` the identifier is taken from the client's own counter (as aedes would), and the persistence's
 * `outgoingClearMessageId` answers at least `{messageId}` so every PUBACK can be matched to (client, id).
 */
import type { Client, PublishPacket } from 'aedes'
import { IdTable } from '../../src/kernel/id-table.ts'

interface Pending {
  client: Client
  messageId?: number
  resolve(ok: boolean): void
}

/** The part of aedes' Client this module relies on: its next packet identifier. */
type CountingClient = Client & { _nextId: number }

export class Commands {
  private byPayload = new WeakMap<Buffer, Pending>()
  /**
   * Commands awaiting a PUBACK, by client and packet identifier. A client's table stays until it disconnects, and
   * is an IdTable, not a Map: a Map that gains and loses an entry a command rehashes every few dozen, and V8 links
   * its old tables to the new ones; once one was promoted, every later command (its promise, the async function
   * following it, the record) reached the old generation with it (see src/kernel/id-table.ts).
   */
  private byClient = new Map<Client, IdTable<Pending>>()

  /**
   * Sends `payload` to `client` on the full topic `topic`. QoS 1 resolves true on the device's PUBACK, false when
   * it disconnects first or after `timeoutMs`; QoS 0 resolves true once written.
   */
  send(
    client: Client,
    topic: string,
    payload: Buffer,
    qos: 0 | 1,
    timeoutMs: number,
  ): Promise<boolean> {
    const body = Buffer.from(payload)
    const message = {
      cmd: 'publish',
      topic,
      payload: body,
      qos,
      retain: false,
      dup: false,
    } as PublishPacket
    if (qos === 0) return new Promise((resolve) => client.publish(message, (err) => resolve(!err)))
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => settle(false), timeoutMs)
      const pending: Pending = { client, resolve: (ok) => settle(ok) }
      const settle = (ok: boolean) => {
        clearTimeout(timer)
        this.byPayload.delete(body)
        if (pending.messageId !== undefined) {
          // taken here unless the PUBACK (acked) or the disconnect (gone) took it first
          const table = this.byClient.get(client)
          const own = table?.take(pending.messageId)
          if (own && own !== pending) table!.set(pending.messageId, own)
        }
        resolve(ok)
      }
      this.byPayload.set(body, pending)
      client.publish(message, (err) => {
        if (err) settle(false)
      })
    })
  }

  /** Called from authorizeForward: gives a command its packet identifier and files it for the PUBACK. */
  assignMessageId(client: Client, packet: { payload: unknown; messageId?: number }) {
    const pending = Buffer.isBuffer(packet.payload) ? this.byPayload.get(packet.payload) : undefined
    if (!pending || pending.client !== client || pending.messageId !== undefined) return
    const c = client as CountingClient
    const id = c._nextId
    c._nextId = id >= 65535 ? 1 : id + 1
    packet.messageId = id
    pending.messageId = id
    let table = this.byClient.get(client)
    if (!table) this.byClient.set(client, (table = new IdTable()))
    // an identifier is free again once its PUBACK came (65,535 commands in flight to one client would wrap onto one)
    table.take(id)?.resolve(false)
    table.set(id, pending)
  }

  /** A PUBACK arrived ('ack' event). */
  acked(client: Client, messageId: number | undefined) {
    if (messageId === undefined) return
    this.byClient.get(client)?.take(messageId)?.resolve(true)
  }

  /** The client is gone: its unacknowledged commands failed. */
  gone(client: Client) {
    const table = this.byClient.get(client)
    this.byClient.delete(client)
    if (table) for (const p of table.drain()) p.resolve(false)
  }

  /** Fails every pending command (broker closing). */
  failAll() {
    for (const client of [...this.byClient.keys()]) this.gone(client)
  }
}
