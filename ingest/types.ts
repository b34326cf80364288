/**
 * The ports between the parts of ingest: the broker (embedded or external) and HTTP ingest hand uplinks to the
 * pipeline; the pipeline decodes them against the product model, queues values and events for the batching
 * writer, and resolves each uplink once it is durable.
 */
import type { LastValue } from '../store/telemetry.ts'
import type { IngestDevice } from '../store/types.ts'

/** A device or gateway as ingest knows it (the metadata store's IngestRepository reads it). */
export type DeviceIdentity = IngestDevice

/** authType of devices that authenticate with a client certificate only (never with their token). */
export const AUTH_CERT = 2

/** True for a device that authenticates with its client certificate: its token opens nothing (HTTP or MQTT). */
export const usesCertificate = (d: Pick<DeviceIdentity, 'authType'>) => d.authType === AUTH_CERT

/** The verdict on a device's credentials (ingest/credentials.ts), the same for MQTT, EMQX's hooks and HTTP. */
export type CredentialsResult =
  | { ok: true; device: DeviceIdentity }
  | {
      ok: false
      reason: 'unknown' | 'blocked' | 'bad-credentials' | 'certificate'
      device?: DeviceIdentity
    }

/** A message a device sent, as the broker or HTTP ingest received it. */
export interface Uplink {
  device: DeviceIdentity
  /** The topic relative to the device's mountpoint, e.g. `telemetry` or `inbox`. */
  topic: string
  /** The bytes as received, or (HTTP ingest) the JSON text the sender's message held, not encoded again. */
  payload: Buffer | string
  /**
   * The payload already parsed, when the sender had to parse it (HTTP ingest reads JSON bodies): decoding takes it
   * instead of parsing `payload` again. It must be what JSON.parse of `payload` gives.
   */
  parsed?: unknown
  /** Epoch ms when the platform received it (the time of plain payloads). */
  receivedAt: number
  ip: string | null
}

/** Why a device's message on a reserved topic was refused (recorded as its event's reason). */
export interface StateRefusal {
  errorCode: string
  message: string
}

/**
 * What a device's message on a reserved topic (`state/`, `ota/`) does (the services', handed over by
 * src/service.ts): a report is committed, a request answered, before `receive` resolves; a refusal resolves its
 * reason.
 */
export interface DeviceInbox {
  receive(uplink: Uplink): Promise<StateRefusal | undefined>
}

/**
 * Topics under these prefixes carry a device's exchanges with the service, never values: its state (README
 * "Desired state") and its firmware updates (README "Firmware").
 */
export const RESERVED_TOPIC_PREFIXES = ['state/', 'ota/'] as const

/** Whether a device's (normalized) topic is a reserved one. */
export const isReservedTopic = (topic: string) =>
  RESERVED_TOPIC_PREFIXES.some((p) => topic.startsWith(p))

/** Why a value or a message was not stored. */
export interface Rejection {
  dataPointID?: string
  deviceID?: string
  errorCode: string
  message: string
}

/** What became of one uplink. */
export interface UplinkOutcome {
  /** Values stored. */
  accepted: number
  rejected: Rejection[]
}

/** Thrown by Pipeline.submit when the queue is full: HTTP answers 429, MQTT pauses reading. */
export class Backpressure extends Error {
  constructor(readonly retryAfterSeconds = 1) {
    super('ingest queue is full')
  }
}

/** Thrown by Pipeline.submit while the disk is full (src/kernel/disk.ts): HTTP answers 507, MQTT refuses or waits. */
export class StorageFull extends Error {
  constructor() {
    super('the disk is full: no new data is accepted until space is freed')
  }
}

export interface Pipeline {
  /**
   * Decodes the uplink, checks its values against the product model, and queues its values and its event.
   * Resolves once both are committed (a QoS 1 PUBACK may be sent then). Throws Backpressure when the queue is full.
   */
  submit(uplink: Uplink): Promise<UplinkOutcome>
  /**
   * Records an uplink refused before decoding (e.g. a publish the ACL refuses): only its event, rejected with
   * `errorCode` and `message` as the reason. Resolves once committed. Throws Backpressure when the queue is full.
   */
  refuse(uplink: Uplink, errorCode: string, message: string): Promise<UplinkOutcome>
  /** True while the queue is above its high-water mark: readers should pause until `drained`. */
  readonly saturated: boolean
  /** True while the disk is full (src/kernel/disk.ts): submit and refuse throw StorageFull. */
  readonly storageFull: boolean
  /** Resolves once the disk is no longer full (at once when it is not). */
  spaceFreed(): Promise<void>
  /** Values and events queued or being written (the ingest queue depth). */
  readonly queued: number
  /** Resolves when the queue is back below its low-water mark. */
  drained(): Promise<void>
  /** The last value and time of each data point of a device that has one (GET /devices/{id}/latest). */
  latest(tenantID: string, deviceID: string): Promise<Map<string, LastValue>>
  /** latest() of many devices of a tenant in one store read (GET /devices_latest); every one asked has an entry. */
  latestOf(
    tenantID: string,
    deviceIDs: readonly string[],
  ): Promise<Map<string, Map<string, LastValue>>>
  /** Commits everything queued (SIGTERM). */
  flush(): Promise<void>
  close(): Promise<void>
}

/**
 * A running broker front (embedded aedes, or the client of an external broker). It implements the command
 * services' CommandBroker port (src/services/ports.ts), which src/service.ts hands it to.
 */
export interface BrokerHandle {
  /** The listening MQTT port (embedded), or null (external). */
  readonly port: number | null
  readonly wsPort: number | null
  /** The MQTT over TLS port (MQTTS_PORT), or null when off. */
  readonly tlsPort: number | null
  /**
   * True when the broker sees a device's PUBACK (the embedded broker): a QoS 1 publish that resolves true was
   * delivered. Through an external broker it only means the broker took the message.
   */
  readonly confirmsDelivery: boolean
  /**
   * True for an external broker every node publishes through: one publish reaches the device whichever node made
   * it, and a retained message waits there for the device's next subscription. False for the embedded broker,
   * which reaches only the devices connected to this node.
   */
  readonly shared: boolean
  /** Whether the device has a session this front can publish to (an external broker: assumed). */
  connected(device: DeviceIdentity): boolean
  /** Publishes QoS 0 to a full topic (a group topic): true once the broker took it. */
  publishTopic(topic: string, payload: Buffer): Promise<boolean>
  /** Disconnects a device's session, if it has one (blocked, deleted). */
  kick(deviceID: string): Promise<void>
  /**
   * Publishes a command to a device (QoS 1): resolves true when the device acknowledged it (PUBACK),
   * false when it is offline or did not acknowledge in time.
   */
  publish(
    device: DeviceIdentity,
    topic: string,
    payload: Buffer,
    opts?: { qos?: 0 | 1; timeoutMs?: number; retain?: boolean },
  ): Promise<boolean>
  /** Whether devices can reach the broker now (readiness): embedded, listening; external, connected. */
  healthy(): boolean
  close(): Promise<void>
}

/** A connection attempt an external broker asks about (EMQX's HTTP authenticator). */
export interface ConnectAttempt {
  /** The MQTT client id: the deviceID. */
  clientId: string
  username?: string
  password?: string
  /** The CN of the client certificate the broker verified, when there is one. */
  certCN?: string
  ip: string | null
}

/** A session an external broker reports (EMQX's client.connected / client.disconnected events). */
export interface SessionEvent {
  clientId: string
  /** The broker's time of the session's connect (epoch ms), which tells one session of a client from the next. */
  connectedAt?: number
}

/**
 * Ingest's gatekeeping as the hooks of an external broker (src/routes/emqx.ts) need it: the same device
 * directory, ACL checker and connection tracker the brokers of this process use (ingest/gate.ts).
 */
export interface DeviceGate {
  /** Checks a device's credentials; a refused attempt is logged (connection log status 2). */
  authenticate(attempt: ConnectAttempt): Promise<boolean>
  /** May the device with that client id publish to (subscribe to) the full topic? No for unknown or blocked ones. */
  authorize(clientId: string, action: 'publish' | 'subscribe', topic: string): Promise<boolean>
  /** A device's session is established: it is online, and the connect is logged. Unknown client ids are ignored. */
  connected(e: SessionEvent & { ip: string | null; keepAlive: number }): Promise<void>
  /**
   * A device's session ended: the disconnect is logged, and the device is offline unless the session was
   * `replaced` by a newer one or is older than the device's current session.
   */
  disconnected(e: SessionEvent & { replaced: boolean }): Promise<void>
}

/** Who sends over HTTP: a device (or gateway) by its credentials, or an API caller of a tenant. */
export type IngestSender =
  { kind: 'device'; device: DeviceIdentity } | { kind: 'caller'; tenantID: string }

/** One message of an HTTP ingest request as the route read it: its fields, or why it could not be read. */
export type HttpMessage =
  | { ok: true; message: { deviceID?: string | undefined; topic: string; payload: unknown } }
  | { ok: false; errorCode: string; message: string }

/** Why one message of an HTTP ingest request was not (fully) stored; `index` is its position. */
export interface HttpRejection {
  index: number
  errorCode: string
  message: string
}

/** What became of the messages of one HTTP ingest request. */
export interface HttpIngestOutcome {
  /** Data point values stored. */
  accepted: number
  /** One entry per message not fully stored, by index. */
  rejected: HttpRejection[]
  /** True when some messages met a full queue and none was queued: the request is answered 429. */
  busy: boolean
  /** True when nothing was stored because the disk is full (HTTP answers 507). */
  full: boolean
}

/**
 * HTTP ingest as its routes (src/routes/ingest.ts) call it: the device behind HTTP Basic credentials, on the
 * credentials check the brokers use, and the messages of a request handed to the pipeline, each for the device it
 * is for.
 */
export interface HttpIngest {
  /** The device or gateway whose `deviceUsername:token` these are; `blocked` when it is blocked. */
  login(username: string, token: string): Promise<CredentialsResult>
  /**
   * Submits each readable message for its device: the sender itself, a child of the sending gateway, or a device
   * of the caller's tenant (a caller must name one); messages for other devices, blocked ones or refused by the
   * pipeline are rejected, each with its index. Resolves once every queued message is durable.
   */
  submit(
    sender: IngestSender,
    messages: readonly HttpMessage[],
    ip: string | null,
  ): Promise<HttpIngestOutcome>
}
