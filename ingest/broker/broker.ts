/**
 * The embedded MQTT broker (aedes 2): MQTT 3.1.1 and 5 on MQTT_PORT, MQTT over WebSocket on MQTT_WS_PORT (path
 * /mqtt), MQTT over TLS on MQTTS_PORT (client certificates for authType 2 devices: tls.ts).
 * Devices authenticate with their own credentials, reach only their own mountpoint (narrowed by policies), have
 * their uplinks committed by the pipeline before the PUBACK, and receive commands on `inbox` and group messages on
 * `group/{groupID}` (groups.ts).
 */
import { createServer, type Server, type Socket } from 'node:net'
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { once } from 'node:events'
import { Aedes, type Client, type PublishPacket } from 'aedes'
import memoryPersistenceModule from 'aedes-persistence'
import { WebSocketServer, createWebSocketStream } from 'ws'
import type { Config } from '../../src/kernel/config.ts'
import type { EventBus } from '../../src/kernel/events.ts'
import { errorLog, fallbackLogger, type Logger } from '../../src/kernel/log.ts'
import type { BrokerObserver } from '../../src/kernel/metrics.ts'
import type { MetaStore } from '../../store/types.ts'
import type { BrokerHandle, DeviceIdentity, Pipeline } from '../types.ts'
import { mountpoint } from '../../src/kernel/topics.ts'
import type { DeviceDirectory } from '../identity.ts'
import type { ConnectionTracker } from '../connections.ts'
import type { Gatekeepers } from '../gate.ts'
import { BrokerHooks, type Session } from './hooks.ts'
import { Commands } from './commands.ts'
import { GroupSubscriptions } from './groups.ts'
import { routeOnlyWhereSubscribed } from './fanout.ts'
import { listenTls, serverCredentials, verifiedClientCN } from './tls.ts'
import { addressOf, BrokerLimits, throttledLog } from './limits.ts'

export interface BrokerDeps {
  config: Config
  meta: MetaStore
  pipeline: Pipeline
  bus: EventBus
  /** The process's one device directory, ACL checker and connection tracker (ingest/gate.ts). */
  gatekeepers: Gatekeepers
  /** Where the broker logs (component `broker`); default: the fallback logger. */
  logger?: Logger
  /** Told about connections and messages (the service's metrics). */
  observer?: BrokerObserver
}

/** Default time a device has to acknowledge a command (COMMAND_TIMEOUT). */
const COMMAND_TIMEOUT_MS = 30_000
/** How long close() waits for uplinks being committed. */
const CLOSE_WAIT_MS = 10_000

type Clients = Record<string, Client | undefined>

/** In-memory persistence whose outgoingClearMessageId always names the acknowledged packet (see commands.ts). */
function ackingPersistence() {
  // a CommonJS module: Node's default import is module.exports, the factory itself, where its typings say
  // `.default`: either shape is taken
  const mod: typeof memoryPersistenceModule | typeof memoryPersistenceModule.default =
    memoryPersistenceModule
  const p = (typeof mod === 'function' ? mod : mod.default)()
  const clear = (p.outgoingClearMessageId as (...a: unknown[]) => unknown).bind(p) as (
    c: Client,
    pk: { messageId?: number },
  ) => Promise<unknown>
  const patched = async (c: Client, pk: { messageId?: number }) =>
    (await clear(c, pk)) ?? { cmd: 'puback', messageId: pk.messageId }
  Object.assign(p, { outgoingClearMessageId: patched })
  return p
}

/** The limits metered before aedes parses; a refusal is logged at most once a while per reason and address. */
function brokerLimits(config: Config, logger: Logger | undefined) {
  const info = (logger ?? fallbackLogger()).child({ component: 'broker' })
  const limitLog = throttledLog((fields, message) => info.info(fields, message))
  return new BrokerLimits({
    maxPacketBytes: config.MQTT_MAX_PACKET_BYTES,
    maxConnections: config.MQTT_MAX_CONNECTIONS,
    refused: (reason, clientIP) =>
      limitLog(`${reason}\0${clientIP}`, { reason, clientIP }, 'connection closed'),
  })
}

/** The hooks aedes calls: sessions, authentication, the ACL and uplinks to the pipeline. */
function brokerHooks(
  { config, meta, pipeline, gatekeepers, observer }: BrokerDeps,
  commands: Commands,
  log: (message: string, e?: unknown) => void,
) {
  const { directory, acl, tracker, refusals, certsForDevice } = gatekeepers
  return new BrokerHooks({
    directory,
    acl,
    tracker,
    refusals,
    pipeline,
    commands,
    log,
    observer,
    certsForDevice,
    denyAction: () => config.ACL_DENY_ACTION ?? 'ignore',
    clientCertCN: (client, device) =>
      verifiedClientCN(client, device, (tenant) => meta.certs.caCert(tenant)),
  })
}

/** The aedes broker, calling the hooks; an uplink is routed to subscribers only when one may match. */
async function createAedes(hooks: BrokerHooks) {
  const broker = await Aedes.createBroker({
    concurrency: 0, // the default (100) lets mqemitter recurse until the stack overflows under bursts
    persistence: ackingPersistence(),
    preConnect: hooks.preConnect,
    authenticate: hooks.authenticate,
    authorizePublish: hooks.authorizePublish,
    authorizeSubscribe: hooks.authorizeSubscribe,
    authorizeForward: hooks.authorizeForward,
  })
  routeOnlyWhereSubscribed(broker, hooks.ownTopic)
  return broker
}

/** Listens on MQTT_PORT, MQTT_WS_PORT and, when set, MQTTS_PORT. */
async function listenAll(
  broker: Aedes,
  { config, meta }: BrokerDeps,
  limits: BrokerLimits,
  log: (message: string, e?: unknown) => void,
) {
  const { tcp, sockets } = await listenTcp(broker, config.MQTT_PORT, config.HOST, limits)
  const ws = await listenWs(broker, config, limits, log)
  const tls =
    config.MQTTS_PORT === undefined
      ? undefined
      : await listenTls(
          broker,
          config.MQTTS_PORT,
          config.HOST,
          await serverCredentials(config, meta),
          limits,
        )
  return { tcp, sockets, ws, tls }
}

/** Starts the embedded broker; every device is offline until it connects to it. */
export async function startBroker(deps: BrokerDeps): Promise<BrokerHandle> {
  const { meta, bus } = deps
  const { directory, tracker } = deps.gatekeepers
  const log = errorLog(deps.logger, 'broker')
  const limits = brokerLimits(deps.config, deps.logger)
  const observer = deps.observer
  const commands = new Commands()
  await tracker.allOffline()
  const hooks = brokerHooks(deps, commands, log)
  const broker = await createAedes(hooks)
  const clients: Clients = broker.clients
  const groups = new GroupSubscriptions({ repo: meta.ingest, hooks, directory, clients, log })
  const events = new BrokerEvents(hooks, tracker, commands, groups, meta, bus, log, observer)
  events.attach(broker)
  broker.on('connackSent', (_p, c: Client) => limits.connected(c.conn))
  const offDevices = watchDevices(bus, clients, hooks, directory, groups, log)
  const offGroups = groups.watch(bus)
  const { tcp, sockets, ws, tls } = await listenAll(broker, deps, limits, log)

  const sessionOf = (device: DeviceIdentity) => {
    const client = clients[device.deviceID]
    return client && hooks.sessions.get(client)?.device.id === device.id ? client : undefined
  }
  return {
    port: (tcp.address() as AddressInfo).port,
    wsPort: (ws.address() as AddressInfo).port,
    tlsPort: tls ? (tls.tls.address() as AddressInfo).port : null,
    confirmsDelivery: true,
    shared: false,
    publishTopic: (topic, payload) =>
      new Promise<boolean>((resolve) => {
        if (hooks.closing) return resolve(false)
        const packet = { cmd: 'publish', topic, payload, qos: 0, retain: false, dup: false }
        observer?.messageOut()
        broker.publish(packet as PublishPacket, (err) => resolve(!err))
      }),
    connected: (device) => !hooks.closing && sessionOf(device) !== undefined,
    healthy: () => !hooks.closing && tcp.listening,
    async kick(deviceID) {
      clients[deviceID]?.close()
    },
    async publish(device, topic, payload, opts = {}) {
      const client = sessionOf(device)
      if (!client || hooks.closing) return false
      observer?.messageOut()
      return commands.send(
        client,
        mountpoint(device) + topic,
        payload,
        opts.qos ?? 1,
        opts.timeoutMs ?? COMMAND_TIMEOUT_MS,
      )
    },
    async close() {
      if (hooks.closing) return
      hooks.closing = true
      offDevices()
      offGroups()
      const closed = Promise.all([
        closeServer(tcp),
        closeServer(ws),
        ...(tls ? [closeServer(tls.tls)] : []),
      ])
      for (const client of Object.values(clients)) client?.close()
      await hooks.idle(CLOSE_WAIT_MS)
      await new Promise<void>((resolve) => broker.close(() => resolve()))
      for (const s of [...sockets, ...(tls?.sockets ?? [])]) s.destroy()
      ws.closeAllConnections()
      await closed
      commands.failAll()
      await tracker.idle().catch((e) => log('connection state write failed', e))
    },
  }
}

/** Reacts to the broker's client events: connection state, auto-subscriptions, command acknowledgements. */
class BrokerEvents {
  constructor(
    private readonly hooks: BrokerHooks,
    private readonly tracker: ConnectionTracker,
    private readonly commands: Commands,
    private readonly groups: GroupSubscriptions,
    private readonly meta: MetaStore,
    private readonly bus: EventBus,
    private readonly log: (message: string, e?: unknown) => void,
    private readonly observer?: BrokerObserver,
  ) {}

  attach(broker: Aedes) {
    const guard =
      <A extends unknown[]>(name: string, fn: (...a: A) => void) =>
      (...a: A) => {
        try {
          fn(...a)
        } catch (e) {
          this.log(`${name} handler failed`, e)
        }
      }
    broker.on(
      'clientReady',
      guard('clientReady', (c: Client) => this.ready(c)),
    )
    broker.on(
      'connackSent',
      guard('connackSent', (_p, c: Client) => this.hooks.forms.connacked(c)),
    )
    broker.on(
      'subscribe',
      guard('subscribe', (subs: Array<{ topic: string; qos: number }>, c: Client) =>
        this.subscribed(
          c,
          subs.filter((x) => x.qos < 0x80).map((x) => x.topic),
        ),
      ),
    )
    broker.on(
      'clientDisconnect',
      guard('clientDisconnect', (c: Client) => this.gone(c)),
    )
    broker.on(
      'ack',
      guard('ack', (p, c: Client) =>
        this.commands.acked(c, (p as { messageId?: number } | undefined)?.messageId),
      ),
    )
    broker.on('clientError', () => {}) // a client's socket or protocol error closes that client only
    broker.on('connectionError', () => {})
  }

  /** After CONNACK. aedes emits it even for a client closed in between: then `gone` already logged both. */
  private ready(client: Client) {
    const s = this.hooks.sessions.get(client)
    if (!s || s.state !== 'connecting') return
    this.online(client, s)
    // a resumed session's kept subscriptions (aedes restores them without a 'subscribe' event)
    this.subscribed(client, Object.keys(client.subscriptions))
    this.subscribeDefaults(client, s.device).catch((e) =>
      this.log(`auto-subscribe of ${s.device.deviceID} failed`, e),
    )
    void this.groups.sync(client)
  }

  /** Announces a device's new subscriptions (`device.subscribed`: the state service pushes a pending delta). */
  private subscribed(client: Client, filters: string[]) {
    const s = this.hooks.sessions.get(client)
    if (!s || s.state === 'gone' || !filters.length) return
    const prefix = mountpoint(s.device)
    const own = filters.filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length))
    const { tenantID, id, deviceID } = s.device
    if (own.length)
      this.bus.emit('device.subscribed', { tenantID, deviceIntID: id, deviceID, filters: own })
  }

  private online(client: Client, s: Session) {
    s.state = 'online'
    this.observer?.connected()
    const { device, ip, keepAlive } = s
    this.tracker
      .connected(device, { ip, keepAlive, session: client })
      .catch((e) => this.log(`connect log of ${device.deviceID} failed`, e))
  }

  /**
   * Subscribes a device to its `inbox` (QoS 1) at once, then to its stored subscriptions, under its mountpoint. The
   * inbox does not wait for the read of the stored ones: a command sent meanwhile (right after the CONNACK, on a
   * busy store) would find no form of it and go out on its full topic instead of `inbox`.
   */
  private async subscribeDefaults(client: Client, device: DeviceIdentity) {
    const prefix = mountpoint(device)
    const subscribe = (subs: ReadonlyArray<{ topic: string; qos: number }>) =>
      new Promise<void>((resolve, reject) =>
        client.subscribe(
          {
            subscriptions: subs.map((s) =>
              this.hooks.serviceSubscription(prefix + s.topic, Math.min(s.qos, 2) as 0 | 1 | 2),
            ),
          },
          (e) => (e ? reject(e) : resolve()),
        ),
      )
    const inbox = subscribe([{ topic: 'inbox', qos: 1 }])
    const stored = await this.meta.subscriptions.ofDevice(device.id)
    await inbox
    if (client.closed || !stored.length) return
    await subscribe(stored)
  }

  private gone(client: Client) {
    this.commands.gone(client)
    const s = this.hooks.sessions.get(client)
    if (!s || s.state === 'gone') return
    if (s.state === 'connecting') this.online(client, s) // CONNACK was sent: the connect happened
    s.state = 'gone'
    this.observer?.disconnected()
    this.tracker
      .disconnected(s.device, client)
      .catch((e) => this.log(`disconnect log of ${s.device.deviceID} failed`, e))
  }
}

/**
 * Blocking, credential changes and deletes take effect on a live session within a second: the device
 * is re-read and its session closed when it is gone, blocked or its credentials changed; otherwise its group
 * subscriptions are brought in line (its product may have changed).
 */
function watchDevices(
  bus: EventBus,
  clients: Clients,
  hooks: BrokerHooks,
  directory: DeviceDirectory,
  groups: GroupSubscriptions,
  log: (message: string, e?: unknown) => void,
): () => void {
  const onChanged = (e: { id: number; deviceID: string }) => {
    const client = clients[e.deviceID]
    const s = client && hooks.sessions.get(client)
    if (!client || !s || s.device.id !== e.id) return
    directory
      .byId(e.id)
      .then((fresh) => {
        const stale =
          !fresh ||
          fresh.blocked ||
          fresh.token !== s.device.token ||
          fresh.deviceUsername !== s.device.deviceUsername
        if (stale) return client.close()
        s.device = fresh
        void groups.sync(client)
      })
      .catch((err) => log(`re-reading ${e.deviceID} failed`, err))
  }
  const onDeleted = (e: { id: number; deviceID: string }) => {
    const client = clients[e.deviceID]
    if (client && hooks.sessions.get(client)?.device.id === e.id) client.close()
  }
  bus.on('device.changed', onChanged)
  bus.on('device.deleted', onDeleted)
  return () => {
    bus.off('device.changed', onChanged)
    bus.off('device.deleted', onDeleted)
  }
}

async function listenTcp(broker: Aedes, port: number, host: string, limits: BrokerLimits) {
  const sockets = new Set<Socket>()
  const tcp = createServer((socket) => {
    if (!limits.admit(socket)) return
    limits.watch(socket, addressOf(socket))
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
    socket.on('error', () => {}) // aedes reports it as clientError; never an uncaught 'error'
    broker.handle(socket)
  })
  tcp.listen(port, host)
  await once(tcp, 'listening')
  return { tcp, sockets }
}

/** MQTT over WebSocket on /mqtt: one WebSocket message holds at most one packet's worth (MQTT_MAX_PACKET_BYTES). */
async function listenWs(
  broker: Aedes,
  config: Pick<Config, 'MQTT_WS_PORT' | 'HOST' | 'MQTT_MAX_PACKET_BYTES'>,
  limits: BrokerLimits,
  log: (m: string, e?: unknown) => void,
) {
  const http = createHttpServer((_req, res) => {
    res.writeHead(404).end()
  })
  http.on('connection', (socket: Socket) => limits.admit(socket))
  const wss = new WebSocketServer({
    server: http,
    path: '/mqtt',
    maxPayload: config.MQTT_MAX_PACKET_BYTES,
  })
  wss.on('error', (e) => log('websocket server error', e))
  wss.on('connection', (socket, req) => {
    const stream = createWebSocketStream(socket)
    stream.on('error', () => {})
    socket.on('error', () => {})
    limits.watch(stream, addressOf(req.socket))
    broker.handle(stream, req)
  })
  http.once('close', () => wss.close())
  http.listen(config.MQTT_WS_PORT, config.HOST)
  await once(http, 'listening')
  return http
}

function closeServer(server: Server | HttpServer): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()))
}
