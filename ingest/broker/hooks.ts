/**
 * The embedded broker's decisions (aedes hooks): who may connect, publish and subscribe, what happens to an
 * uplink, and in which form a device receives a message. A device names topics and filters relative to its
 * mountpoint or in full (src/kernel/topics.ts `deviceTopic`); the broker routes on full topics. Every hook is wrapped: an
 * exception answers the client (refusal or disconnect), never the process.
 */
import { setTimeout as delay } from 'node:timers/promises'
import type { AedesPublishPacket, Client, ConnectPacket, PublishPacket, Subscription } from 'aedes'
import { checkCredentials } from '../credentials.ts'
import type { DeviceDirectory } from '../identity.ts'
import type { AclChecker } from '../acl.ts'
import type { ConnectionTracker } from '../connections.ts'
import type { RefusalGuard } from '../refusals.ts'
import {
  Backpressure,
  StorageFull,
  type DeviceIdentity,
  type Pipeline,
  type Uplink,
} from '../types.ts'
import { deviceTopic, mountpoint } from '../../src/kernel/topics.ts'
import type { Commands } from './commands.ts'
import { SubscriptionForms, type Qos } from './forms.ts'
import type { BrokerObserver } from '../../src/kernel/metrics.ts'

/** A device's session: set when it authenticated, looked up by the aedes client object (not by id). */
export interface Session {
  device: DeviceIdentity
  ip: string | null
  keepAlive: number
  /** connecting: authenticated, CONNACK under way; online: clientReady seen; gone: clientDisconnect seen. */
  state: 'connecting' | 'online' | 'gone'
  /** The topic of the session's last PUBLISH as the device gave it, and its place (`deviceTopic`). */
  lastTopic?: string
  lastPlace?: ReturnType<typeof deviceTopic>
}

export interface HookDeps {
  directory: DeviceDirectory
  acl: AclChecker
  tracker: ConnectionTracker
  /** Flapping addresses are refused before their credentials are looked at (and not logged). */
  refusals: RefusalGuard
  pipeline: Pipeline
  commands: Commands
  certsForDevice: (id: number) => Promise<string[]>
  /** The verified CN of the client certificate of a TLS connection (authType 2 devices), if any. */
  clientCertCN: (client: Client, device: DeviceIdentity) => Promise<string | undefined>
  log: (message: string, e?: unknown) => void
  /** Told about connections refused and messages received (the service's metrics). */
  observer?: BrokerObserver
  /** What a refused PUBLISH costs the device: nothing more (ignore) or its connection (disconnect). */
  denyAction: () => 'ignore' | 'disconnect'
}

type AuthError = Error & { returnCode: number }
const NOT_AUTHORIZED = 5
const SERVER_UNAVAILABLE = 3
/** MQTT 5 reason code 0x87. */
const V5_NOT_AUTHORIZED = 0x87
/** MQTT 5 reason code 0x97: quota exceeded (the disk is full). */
const QUOTA_EXCEEDED = 0x97
/** Where a refused PUBLISH of an MQTT 3.1.1 client goes once acknowledged: no subscription can name it. */
const NOWHERE = '$devicecloud/refused'

function authError(message: string, returnCode: number): AuthError {
  return Object.assign(new Error(message), { returnCode })
}

/** The client's address without the IPv4-mapped prefix; for WebSocket clients, the HTTP request's peer. */
export function ipOf(client: Client): string | null {
  const socket = client.req?.socket ?? (client.conn as { remoteAddress?: string })
  const ip = socket?.remoteAddress
  return ip ? ip.replace(/^::ffff:/, '') : null
}

export class BrokerHooks {
  readonly sessions = new WeakMap<Client, Session>()
  /**
   * Subscriptions the service makes for a device (inbox, stored ones, its groups' topics; see `serviceSubscription`),
   * with the name a topic outside the mountpoint is delivered under (null: none).
   */
  private readonly serverSubs = new WeakMap<object, string | null>()
  /** The form (relative or full) in which each device subscribed. */
  readonly forms = new SubscriptionForms()
  private keepAlives = new WeakMap<Client, number>()
  private cleanStarts = new WeakMap<Client, boolean>()
  private inflight = 0
  private idleWaiters: Array<() => void> = []
  closing = false

  constructor(private readonly d: HookDeps) {}

  /** True when `topic` lies under the mountpoint of the device whose session `client` is: its own topics. */
  ownTopic = (client: Client, topic: string): boolean => {
    const device = this.sessions.get(client)?.device
    return device !== undefined && topic.startsWith(mountpoint(device))
  }

  /**
   * A subscription the service makes for a device, to pass to aedes' `client.subscribe`: not subject to the
   * device's ACL, and delivered in the relative form; one to a topic outside the mountpoint (a group's) is
   * delivered as `deliveredAs`.
   */
  serviceSubscription(topic: string, qos: Qos, deliveredAs?: string): Subscription {
    const sub = { topic, qos } as Subscription
    this.serverSubs.set(sub, deliveredAs ?? null)
    return sub
  }

  /**
   * Remembers the keep-alive and the clean-start flag, and watches the client's UNSUBSCRIBEs (see `unsubscribing`);
   * logs a refused attempt for protocol versions the broker cannot serve.
   */
  preConnect = (
    client: Client,
    packet: ConnectPacket,
    cb: (e: Error | null, ok: boolean) => void,
  ) => {
    this.keepAlives.set(client, packet.keepalive ?? 0)
    this.cleanStarts.set(client, packet.clean !== false)
    // aedes has no hook for UNSUBSCRIBE: its packets are rewritten as they leave the client's parser (aedes 2
    // calls preConnect synchronously from that parser's CONNECT, so no later packet is missed)
    const parser = client._parser
    parser?.prependListener('packet', (p: { cmd?: string; unsubscriptions?: string[] }) => {
      if (p.cmd === 'unsubscribe') this.unsubscribing(client, p)
    })
    if (![3, 4, 5].includes(packet.protocolVersion ?? 4)) {
      this.d.observer?.refused('protocol')
      this.logRefused(client, packet.clientId ?? '')
    } else if (this.d.pipeline.storageFull) {
      // no new sessions while the disk is full: CONNACK 0x97 (MQTT 5) or 3, server unavailable (3.1.1), then
      // aedes closes the connection; aedes has no hook that sets a CONNACK's reason, so it is written here
      this.d.observer?.refused('unavailable')
      const connack =
        packet.protocolVersion === 5
          ? [0x20, 3, 0, QUOTA_EXCEEDED, 0]
          : [0x20, 2, 0, SERVER_UNAVAILABLE]
      client.conn.write(Buffer.from(connack), () => cb(new Error('the disk is full'), false))
      return
    }
    cb(null, true) // aedes answers an unsupported version with CONNACK 1 (unacceptable protocol version)
  }

  private logRefused(client: Client, clientId: string) {
    const ip = ipOf(client)
    this.d.directory
      .byDeviceID(clientId)
      .then((device) => this.d.tracker.refused({ clientId, ip, device, reason: 'protocol' }))
      .catch((e) => this.d.log('refused log failed', e))
  }

  authenticate = (
    client: Client,
    username: string | undefined,
    password: Buffer | undefined,
    cb: (e: AuthError | null, ok: boolean | null) => void,
  ) => {
    this.checkConnect(client, username, password).then(
      (err) => cb(err, err === null),
      (e) => {
        this.d.log('authenticate failed', e)
        this.d.observer?.refused('unavailable')
        cb(authError('server unavailable', SERVER_UNAVAILABLE), false)
      },
    )
  }

  private async checkConnect(
    client: Client,
    username?: string,
    password?: Buffer,
  ): Promise<AuthError | null> {
    const ip = ipOf(client)
    const clientId = client.id
    if (this.closing) return this.refuse('unavailable', 'server unavailable', SERVER_UNAVAILABLE)
    const known = await this.d.directory.byDeviceID(clientId)
    if (this.d.refusals.banned(clientId, ip, known !== undefined))
      return this.refuse('flapping', 'not authorized', NOT_AUTHORIZED)
    const certCN = known?.authType === 2 ? await this.d.clientCertCN(client, known) : undefined
    const r = await checkCredentials(known, {
      clientId,
      username,
      password,
      certCN,
      certsForDevice: this.d.certsForDevice,
    })
    if (!r.ok) {
      this.d.tracker
        .refused({ clientId, ip, device: r.device, reason: r.reason })
        .catch((e) => this.d.log('refused log failed', e))
      return this.refuse(r.reason, 'not authorized', NOT_AUTHORIZED)
    }
    this.sessions.set(client, {
      device: r.device,
      ip,
      keepAlive: this.keepAlives.get(client) ?? 0,
      state: 'connecting',
    })
    this.forms.began(client, this.cleanStarts.get(client) ?? true)
    return null
  }

  /** A refused CONNECT, counted by reason. */
  private refuse(reason: string, message: string, returnCode: number): AuthError {
    this.d.observer?.refused(reason)
    return authError(message, returnCode)
  }

  /**
   * A device's PUBLISH, relative or full: within its ACL, it is routed on its full topic, its relative topic goes
   * to the pipeline and the callback (hence the QoS 1 PUBACK) waits until the pipeline committed it. One the ACL
   * refuses is recorded as a rejected event and dropped (`refused`). Backpressure waits for the queue to drain
   * (aedes reads no more from this socket meanwhile); only a store failure disconnects the device (it resends
   * what was not acked).
   */
  authorizePublish = (
    client: Client | null,
    packet: PublishPacket,
    cb: (e?: Error | null) => void,
  ) => {
    if (!client) return cb(null) // a will of a session that is gone: routed, not ingested
    this.d.observer?.messageIn()
    this.inflight++
    try {
      this.ingest(client, packet, cb)
    } catch (e) {
      this.finish(cb, Promise.reject(e))
    }
  }

  /** Answers the PUBLISH once `written` settles: with its Error (refused), or null, or the failure. */
  private finish(cb: (e?: Error | null) => void, written: Promise<unknown>) {
    written.then(
      (r) => this.settle(cb, r instanceof Error ? r : null),
      (e) => {
        this.d.log('publish failed', e)
        this.settle(cb, e instanceof Error ? e : new Error(String(e)))
      },
    )
  }

  private settle(cb: (e?: Error | null) => void, err: Error | null) {
    try {
      cb(err)
    } catch (e) {
      this.d.log('publish callback failed', e)
    }
    if (--this.inflight === 0) for (const w of this.idleWaiters.splice(0)) w()
  }

  /**
   * A PUBLISH to the pipeline, answered through `cb` (`finish`): an Error when it is refused. Every uplink's path (a
   * session, a topic the cached ACL allows) is no async function and one reaction on the pipeline's promise: under
   * load thousands of uplinks wait for their flush, each holding what its promises and closures hold (a second
   * reaction, a `catch` for the retry, held ~200 bytes more each).
   */
  private ingest(client: Client, packet: PublishPacket, cb: (e?: Error | null) => void): void {
    const session = this.sessions.get(client)
    if (!session) return this.finish(cb, Promise.resolve(new Error('not authorized')))
    const { device, ip } = session
    // a device publishes to the same topic message after message: its place is found once
    if (session.lastTopic !== packet.topic) {
      session.lastPlace = deviceTopic(device, packet.topic)
      session.lastTopic = packet.topic
    }
    const t = session.lastPlace
    const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload)
    // a refused topic outside the prefix is recorded as the device gave it
    const topic = t?.relative ?? packet.topic
    const uplink = { device, topic, payload, receivedAt: Date.now(), ip }
    const allowed = t ? this.d.acl.canPublish(device, t.full) : false
    if (allowed !== true || !t)
      return this.finish(cb, this.checked(client, packet, t, uplink, allowed))
    packet.topic = t.full
    const first = this.d.pipeline.submit(uplink)
    // the pipeline resolves with the outcome (never an Error); a refusal (backpressure, a full disk) is waited out
    first.then(
      () => this.settle(cb, null),
      () =>
        this.finish(
          cb,
          this.written(client, packet, () => this.d.pipeline.submit(uplink), first),
        ),
    )
  }

  /** A PUBLISH whose ACL answer is not at hand or is no. */
  private async checked(
    client: Client,
    packet: PublishPacket,
    t: ReturnType<typeof deviceTopic>,
    uplink: Uplink,
    allowed: boolean | Promise<boolean>,
  ): Promise<Error | null> {
    if (typeof allowed !== 'boolean') allowed = await allowed
    if (!t || !allowed) {
      const full = await this.commit(client, () =>
        this.d.pipeline.refuse(uplink, 'PERMISSION_DENIED', 'not authorized'),
      )
      return full ? this.quotaExceeded(client, packet) : this.refused(client, packet)
    }
    packet.topic = t.full
    return this.written(client, packet, () => this.d.pipeline.submit(uplink))
  }

  /** Commits an uplink (see `commit`; `first`: a try that failed already); null, also once refused for a full disk. */
  private async written(
    client: Client,
    packet: PublishPacket,
    write: () => Promise<unknown>,
    first?: Promise<unknown>,
  ): Promise<null> {
    return (await this.commit(client, write, first)) ? this.quotaExceeded(client, packet) : null
  }

  /**
   * An MQTT 5 PUBLISH refused while the disk is full: its PUBACK (PUBREC for QoS 2) carries 0x97 (quota
   * exceeded), the message is neither stored nor routed, the connection stays. aedes answers every refused PUBLISH
   * with 0x87 itself, so the acknowledgement is written here (5 bytes: packet id and reason code, no properties)
   * and aedes is told the packet was answered already.
   */
  private quotaExceeded(client: Client, packet: PublishPacket): null {
    const marked = packet as PublishPacket & { _notAuthorized?: boolean }
    marked._notAuthorized = true
    const id = packet.messageId ?? 0
    if (packet.qos > 0)
      client.conn.write(
        Buffer.from([packet.qos === 1 ? 0x40 : 0x50, 3, id >> 8, id & 0xff, QUOTA_EXCEEDED]),
      )
    return null
  }

  /**
   * A refused PUBLISH: MQTT 5 clients get the error (aedes answers QoS 1 and 2 with reason code 0x87) and stay
   * connected; MQTT 3.1.1 has no such code, so the message is acknowledged as usual and routed nowhere: a client
   * that re-sends unacknowledged messages on reconnect would otherwise loop. The disconnect action closes both.
   */
  private refused(client: Client, packet: PublishPacket): Error | null {
    const err = new Error(`not authorized: ${packet.topic}`)
    if (this.d.denyAction() === 'disconnect') {
      // aedes closes a 3.1.1 client on the error; an MQTT 5 one is told why
      if (client.version === 5) client.disconnect({ reasonCode: V5_NOT_AUTHORIZED })
      return err
    }
    if (client.version === 5) return err
    packet.topic = NOWHERE
    packet.retain = false
    return null
  }

  /**
   * Runs a pipeline write, waiting out backpressure. While the disk is full an MQTT 3.1.1 PUBLISH waits for space
   * (no PUBACK meanwhile; aedes reads no more from its socket) and is then stored; for MQTT 5 it answers true: the
   * caller refuses the PUBLISH with 0x97.
   */
  private async commit(
    client: Client,
    write: () => Promise<unknown>,
    first?: Promise<unknown>,
  ): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      try {
        await (attempt === 0 && first ? first : write())
        return false
      } catch (e) {
        if (e instanceof StorageFull && !this.closing) {
          if (client.version === 5) return true
          await this.d.pipeline.spaceFreed()
          continue
        }
        if (!(e instanceof Backpressure) || this.closing) throw e
        await this.d.pipeline.drained()
        // drained() may resolve while this item still does not fit: never spin
        if (attempt > 0) await delay(Math.min(100, 5 * attempt))
      }
    }
  }

  /** Resolves when no PUBLISH is being authorized (or after `timeoutMs`). */
  async idle(timeoutMs: number): Promise<void> {
    if (this.inflight === 0) return
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, timeoutMs)
      this.idleWaiters.push(() => {
        clearTimeout(t)
        resolve()
      })
    })
  }

  /**
   * SUBSCRIBE, relative or full: allowed filters are subscribed on their full filter (so aedes stores that one)
   * and their form remembered; refused ones get SUBACK 0x80 (3.1.1) or 0x87 (5), the connection stays. Before
   * the CONNACK, aedes restores the stored full filters of a resumed session: their forms are kept.
   */
  authorizeSubscribe = (
    client: Client,
    sub: Subscription,
    cb: (e: Error | null, s?: Subscription | null) => void,
  ) => {
    const deliveredAs = this.serverSubs.get(sub)
    if (deliveredAs !== undefined) {
      if (deliveredAs === null) this.forms.serviceSubscribed(client, sub.topic, sub.qos)
      else this.forms.aliased(client, sub.topic, deliveredAs)
      return cb(null, sub)
    }
    const session = this.sessions.get(client)
    const t = session && deviceTopic(session.device, sub.topic)
    if (!session || !t) return cb(null, null)
    this.d.acl.canSubscribe(session.device, t.full).then(
      (ok) => {
        if (!ok) return cb(null, null)
        if (this.forms.connecting(client)) this.forms.restoring(client, t.full)
        else sub.qos = this.forms.subscribed(client, t, sub.qos)
        sub.topic = t.full
        cb(null, sub)
      },
      (e) => {
        this.d.log('subscribe check failed', e)
        cb(null, null)
      },
    )
  }

  /**
   * An UNSUBSCRIBE, before aedes handles it: each filter becomes the one aedes holds (see SubscriptionForms). A
   * device may leave a topic outside its mountpoint the service subscribed it to (a group's) by its full name.
   */
  private unsubscribing(client: Client, packet: { unsubscriptions?: string[] }) {
    const session = this.sessions.get(client)
    if (!session || !packet.unsubscriptions) return
    try {
      packet.unsubscriptions = packet.unsubscriptions.map((u) => {
        const t = deviceTopic(session.device, u)
        if (t) return this.forms.unsubscribed(client, t)
        this.forms.unaliased(client, u)
        return u
      })
    } catch (e) {
      this.d.log('unsubscribe failed', e)
    }
  }

  /**
   * Outgoing messages: in the form the device subscribed with; commands get their packet identifier here so
   * that the PUBACK can be matched.
   */
  authorizeForward = (client: Client, packet: AedesPublishPacket): AedesPublishPacket | null => {
    let out = packet
    try {
      const session = this.sessions.get(client)
      if (session) out = this.forms.forward(client, mountpoint(session.device), packet)
      this.d.commands.assignMessageId(client, out)
    } catch (e) {
      this.d.log('forward failed', e)
    }
    return out
  }
}
