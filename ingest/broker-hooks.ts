/**
 * The embedded broker's decisions (aedes hooks): who may connect, publish and subscribe, and what happens to an
 * uplink. Every hook is wrapped: an exception answers the client (refusal or disconnect), never the process.
 */
import { setTimeout as delay } from 'node:timers/promises'
import type { AedesPublishPacket, Client, ConnectPacket, PublishPacket, Subscription } from 'aedes'
import { checkCredentials } from './credentials.ts'
import type { DeviceDirectory } from './identity.ts'
import type { AclChecker } from './acl.ts'
import type { ConnectionTracker } from './connections.ts'
import { Backpressure, type DeviceIdentity, type Pipeline } from './types.ts'
import { relativeTopic } from './topics.ts'
import type { Commands } from './broker-commands.ts'

/** A device's session: set when it authenticated, looked up by the aedes client object (not by id). */
export interface Session {
  device: DeviceIdentity
  ip: string | null
  keepAlive: number
  /** connecting: authenticated, CONNACK under way; online: clientReady seen; gone: clientDisconnect seen. */
  state: 'connecting' | 'online' | 'gone'
}

export interface HookDeps {
  directory: DeviceDirectory
  acl: AclChecker
  tracker: ConnectionTracker
  pipeline: Pipeline
  commands: Commands
  certsForDevice: (id: number) => Promise<string[]>
  /** The verified CN of the client certificate of a TLS connection (authType 2 devices), if any. */
  clientCertCN: (client: Client, device: DeviceIdentity) => Promise<string | undefined>
  log: (message: string, e?: unknown) => void
}

type AuthError = Error & { returnCode: number }
const NOT_AUTHORIZED = 5
const SERVER_UNAVAILABLE = 3

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
  /** Subscriptions the service makes for a device (inbox, stored ones): not subject to the device's ACL. */
  readonly serverSubs = new WeakSet<object>()
  private keepAlives = new WeakMap<Client, number>()
  private inflight = 0
  private idleWaiters: Array<() => void> = []
  closing = false

  constructor(private readonly d: HookDeps) {}

  /** Remembers the keep-alive; logs a refused attempt for protocol versions the broker cannot serve. */
  preConnect = (
    client: Client,
    packet: ConnectPacket,
    cb: (e: Error | null, ok: boolean) => void,
  ) => {
    this.keepAlives.set(client, packet.keepalive ?? 0)
    if (![3, 4, 5].includes(packet.protocolVersion ?? 4))
      this.logRefused(client, packet.clientId ?? '')
    cb(null, true) // aedes answers an unsupported version with CONNACK 1 (unacceptable protocol version)
  }

  private logRefused(client: Client, clientId: string) {
    const ip = ipOf(client)
    this.d.directory
      .byDeviceID(clientId)
      .then((device) => this.d.tracker.refused({ clientId, ip, device }))
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
    if (this.closing) return authError('server unavailable', SERVER_UNAVAILABLE)
    const known = await this.d.directory.byDeviceID(clientId)
    const certCN = known?.authType === 2 ? await this.d.clientCertCN(client, known) : undefined
    const r = await checkCredentials(this.d.directory, {
      clientId,
      username,
      password,
      certCN,
      certsForDevice: this.d.certsForDevice,
    })
    if (!r.ok) {
      this.d.tracker
        .refused({ clientId, ip, device: r.device })
        .catch((e) => this.d.log('refused log failed', e))
      return authError('not authorized', NOT_AUTHORIZED)
    }
    this.sessions.set(client, {
      device: r.device,
      ip,
      keepAlive: this.keepAlives.get(client) ?? 0,
      state: 'connecting',
    })
    return null
  }

  /**
   * A device's PUBLISH: within its ACL, its relative topic goes to the pipeline and the callback (hence the QoS 1
   * PUBACK) waits until the pipeline committed it. Backpressure waits for the queue to drain (aedes reads no more
   * from this socket meanwhile); only a store failure disconnects the device (it resends what was not acked).
   */
  authorizePublish = (
    client: Client | null,
    packet: PublishPacket,
    cb: (e?: Error | null) => void,
  ) => {
    if (!client) return cb(null) // a will of a session that is gone: routed, not ingested
    this.inflight++
    this.ingest(client, packet).then(
      (err) => this.settle(cb, err),
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

  private async ingest(client: Client, packet: PublishPacket): Promise<Error | null> {
    const session = this.sessions.get(client)
    if (!session || packet.topic.startsWith('$SYS/')) return new Error('not authorized')
    const { device, ip } = session
    if (!(await this.d.acl.canPublish(device, packet.topic)))
      return new Error(`not authorized: ${packet.topic}`)
    const topic = relativeTopic(device, packet.topic)!
    const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload)
    const uplink = { device, topic, payload, receivedAt: Date.now(), ip }
    for (let attempt = 0; ; attempt++) {
      try {
        await this.d.pipeline.submit(uplink)
        return null
      } catch (e) {
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

  /** SUBSCRIBE: allowed filters get their QoS, refused ones SUBACK 128. */
  authorizeSubscribe = (
    client: Client,
    sub: Subscription,
    cb: (e: Error | null, s?: Subscription | null) => void,
  ) => {
    if (this.serverSubs.has(sub)) return cb(null, sub)
    const session = this.sessions.get(client)
    if (!session) return cb(null, null)
    this.d.acl.canSubscribe(session.device, sub.topic).then(
      (ok) => cb(null, ok ? sub : null),
      (e) => {
        this.d.log('subscribe check failed', e)
        cb(null, null)
      },
    )
  }

  /** Outgoing messages: commands get their packet identifier here so that the PUBACK can be matched. */
  authorizeForward = (client: Client, packet: AedesPublishPacket): AedesPublishPacket | null => {
    try {
      this.d.commands.assignMessageId(client, packet)
    } catch (e) {
      this.d.log('forward failed', e)
    }
    return packet
  }
}
