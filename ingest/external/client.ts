import { hostname } from 'node:os'
import type { IPublishPacket, MqttClient } from 'mqtt'
import type { Config } from '../../src/kernel/config.ts'
import type { EventBus } from '../../src/kernel/events.ts'
import { fallbackLogger, type Logger } from '../../src/kernel/log.ts'
import type { Gatekeepers } from '../gate.ts'
import { connectAcking } from './acks.ts'
import { mountpoint, parseMounted, relativeTopic } from '../../src/kernel/topics.ts'
import {
  Backpressure,
  StorageFull,
  type BrokerHandle,
  type DeviceIdentity,
  type Pipeline,
  type Uplink,
} from '../types.ts'

/** Marks the messages the service publishes, so that its own shared subscription skips them. */
export const ORIGIN_PROPERTY = 'devicecloud-origin'
/** How long the broker keeps a node's session (and its unacknowledged messages) after a disconnect. */
const SESSION_EXPIRY_S = 120
/** QoS 1 messages the broker may have in flight to one node before it waits for PUBACKs. */
const RECEIVE_MAXIMUM = 1000
const RECONNECT_MIN_MS = 500
const RECONNECT_MAX_MS = 30_000
const CONNECT_TIMEOUT_MS = 10_000
const SUBMIT_ATTEMPTS = 5
/** Nodes started in this process (tests run several): the second gets `-2` so that client ids stay distinct. */
let nodesInProcess = 0

/** Every mountpoint topic `/{protocol}/{tenantID}/{productID}/{deviceID}/{topic}` through one shared subscription. */
export const sharedFilter = (group: string) => `$share/${group}//+/+/+/+/#`

type Level = 'debug' | 'info' | 'warn' | 'error'

/** What the external broker's client needs (the embedded broker's BrokerDeps are a superset). */
export interface ExternalBrokerDeps {
  config: Config
  pipeline: Pipeline
  bus: EventBus
  /** The device directory of the process's gatekeepers (ingest/gate.ts). */
  gatekeepers: Pick<Gatekeepers, 'directory'>
  /** Where the client logs (component `mqtt-external`); default: the fallback logger. */
  logger?: Logger
}

export interface ExternalBrokerHandle extends BrokerHandle {
  readonly clientId: string
  readonly stats: { received: number; submitted: number; dropped: number; skipped: number }
}

/**
 * MQTT_URL mode (docs/external-broker.md): no embedded broker. The service is one client of an external broker
 * (EMQX, Mosquitto), reads every device's uplink through the shared subscription
 * `$share/<MQTT_SHARE_GROUP>//+/+/+/+/#` (several service nodes split the load) and acknowledges each QoS 1
 * message only once the pipeline committed it. Device authentication, ACL and connection events are the broker's
 * business: EMQX calls src/routes/emqx.ts, which asks the same gatekeepers (DeviceGate).
 */
export async function connectExternalBroker(
  deps: ExternalBrokerDeps,
): Promise<ExternalBrokerHandle> {
  const { config, pipeline, bus } = deps
  const logger = (deps.logger ?? fallbackLogger()).child({ component: 'mqtt-external' })
  const log = (level: Level, msg: string) => logger[level](msg)
  const { directory } = deps.gatekeepers
  const nth = ++nodesInProcess
  const clientId = `devicecloud-${hostname()}-${process.pid}${nth > 1 ? `-${nth}` : ''}`
  /** What this node did with the messages it received (diagnostics and tests). */
  const stats = { received: 0, submitted: 0, dropped: 0, skipped: 0 }
  let closing = false
  const isClosing = () => closing

  /** One uplink: find its device, check the topic is really under its mountpoint, submit it. */
  async function onMessage(
    topic: string,
    payload: Buffer,
    packet: IPublishPacket,
  ): Promise<number> {
    stats.received++
    if (packet.properties?.userProperties?.[ORIGIN_PROPERTY] !== undefined)
      return (stats.skipped++, 0) // our command
    const mounted = parseMounted(topic)
    const device = mounted && (await directory.byDeviceID(mounted.deviceID))
    const relative = device && relativeTopic(device, topic)
    if (!mounted || !device || relative === undefined) {
      stats.dropped++
      log(
        'warn',
        `dropped a message on ${JSON.stringify(topic)}: ${!device ? 'unknown device' : 'not its mountpoint'}`,
      )
      return 0
    }
    if (relative === 'inbox') return (stats.skipped++, 0) // commands to the device, not uplinks
    const uplink = { device, topic: relative, payload, receivedAt: Date.now(), ip: null }
    await submitPatiently(pipeline, uplink, isClosing)
    stats.submitted++
    return 0
  }

  const client = connectShared(config, clientId, pipeline, onMessage, log)
  backoff(client, log)
  await firstSubscription(client, sharedFilter(config.MQTT_SHARE_GROUP), log)
  const publish = commandSender(client)
  const kick = emqxKick(config, log)
  const offDevices = kickBarred(bus, directory, kick)

  return {
    port: null,
    wsPort: null,
    tlsPort: null,
    clientId,
    stats,
    // the device's PUBACK stays between it and the external broker: its response message confirms delivery
    confirmsDelivery: false,
    shared: true,
    publishTopic: (topic: string, payload: Buffer) =>
      new Promise<boolean>((resolve) => {
        const properties = { userProperties: { [ORIGIN_PROPERTY]: '1' } }
        client.publish(topic, payload, { qos: 0, properties }, (err) => resolve(!err))
      }),
    connected: () => !closing,
    healthy: () => !closing && client.connected,
    kick,
    publish,
    async close() {
      closing = true
      offDevices()
      await new Promise<void>((resolve) => client.end(false, {}, () => resolve()))
    },
  }
}

/**
 * Submits an uplink to the pipeline: waits while it is saturated or the disk is full, and tries other failures
 * again, SUBMIT_ATTEMPTS times at most; while closing, a failure is final.
 */
async function submitPatiently(pipeline: Pipeline, uplink: Uplink, closing: () => boolean) {
  for (let attempt = 1; ; attempt++) {
    try {
      await pipeline.submit(uplink)
      return
    } catch (e) {
      if (e instanceof Backpressure && !closing()) await pipeline.drained()
      // the disk is full: not acknowledged until there is space again (the broker keeps the message)
      else if (e instanceof StorageFull && !closing()) await pipeline.spaceFreed()
      else if (attempt >= SUBMIT_ATTEMPTS || closing()) throw e
      else await sleep(100 * 2 ** attempt)
    }
  }
}

/**
 * The node's client of the external broker: a session kept across reconnects, reading paused while the pipeline is
 * saturated, and each message's PUBACK answered with its handler's reason code (0x80 when it failed).
 */
function connectShared(
  config: Config,
  clientId: string,
  pipeline: Pipeline,
  onMessage: (topic: string, payload: Buffer, packet: IPublishPacket) => Promise<number>,
  log: (l: Level, m: string) => void,
): MqttClient {
  return connectAcking(
    config.MQTT_URL!,
    {
      clientId,
      clean: false,
      username: config.MQTT_USERNAME,
      password: config.MQTT_PASSWORD,
      reconnectPeriod: RECONNECT_MIN_MS,
      connectTimeout: CONNECT_TIMEOUT_MS,
      properties: { sessionExpiryInterval: SESSION_EXPIRY_S, receiveMaximum: RECEIVE_MAXIMUM },
      pauseUntil: () => (pipeline.saturated ? pipeline.drained() : undefined),
    },
    async (topic, payload, packet) => {
      try {
        return await onMessage(topic, payload, packet)
      } catch (e) {
        log('error', `uplink on ${topic} not stored: ${(e as Error).message}`)
        return 0x80
      }
    },
  )
}

/** Kicks a device from the broker (through `kick`) once it is deleted or blocked; returns how to stop watching. */
function kickBarred(
  bus: EventBus,
  directory: ExternalBrokerDeps['gatekeepers']['directory'],
  kick: (deviceID: string) => Promise<void>,
): () => void {
  const kickIfBarred = async (e: { id: number; deviceID: string }, deleted: boolean) => {
    const d = deleted ? undefined : await directory.byId(e.id)
    if (deleted || !d || d.blocked) await kick(e.deviceID)
  }
  const onChanged = (e: { id: number; deviceID: string }) =>
    void kickIfBarred(e, false).catch(() => {})
  const onDeleted = (e: { id: number; deviceID: string }) =>
    void kickIfBarred(e, true).catch(() => {})
  bus.on('device.changed', onChanged)
  bus.on('device.deleted', onDeleted)
  return () => {
    bus.off('device.changed', onChanged)
    bus.off('device.deleted', onDeleted)
  }
}

/** Resolves once connected and subscribed; rejects on a refused connection or after CONNECT_TIMEOUT_MS. */
function firstSubscription(
  client: MqttClient,
  filter: string,
  log: (l: Level, m: string) => void,
): Promise<void> {
  const subscribe = () =>
    new Promise<void>((resolve, reject) =>
      client.subscribe(filter, { qos: 1 }, (err, granted) => {
        const code = granted?.[0]?.qos
        if (err || code === undefined || code > 1)
          reject(err ?? new Error(`subscription to ${filter} refused (${code})`))
        else resolve()
      }),
    )
  return new Promise<void>((resolve, reject) => {
    const fail = (e: Error) => {
      clearTimeout(timer)
      client.end(true)
      reject(new Error(`external broker: ${e.message}`))
    }
    const timer = setTimeout(
      () => fail(new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`)),
      CONNECT_TIMEOUT_MS,
    )
    client.once('error', fail)
    client.once('connect', () => {
      client.off('error', fail)
      subscribe().then(
        () => {
          clearTimeout(timer)
          client.on('error', (e) => log('warn', e.message))
          client.on('connect', (connack) => {
            if (!connack.sessionPresent)
              subscribe().catch((e) => log('error', (e as Error).message))
          })
          resolve()
        },
        (e: Error) => fail(e),
      )
    })
  })
}

/** Reconnects after RECONNECT_MIN_MS, doubling up to RECONNECT_MAX_MS while the broker stays away. */
function backoff(client: MqttClient, log: (l: Level, m: string) => void) {
  client.on('connect', () => (client.options.reconnectPeriod = RECONNECT_MIN_MS))
  client.on('offline', () => log('warn', 'connection to the external broker lost; reconnecting'))
  client.on('reconnect', () => {
    client.options.reconnectPeriod = Math.min(
      RECONNECT_MAX_MS,
      (client.options.reconnectPeriod ?? 0) * 2,
    )
  })
}

/**
 * Commands to devices (QoS 1 to the device's full topic, marked with ORIGIN_PROPERTY). The service cannot see the
 * device's own PUBACK through an external broker: true means the broker accepted the message (its PUBACK); the
 * device's response message (payload form 4) then confirms delivery (publishStatus 2).
 */
function commandSender(client: MqttClient) {
  return (
    device: DeviceIdentity,
    topic: string,
    payload: Buffer,
    opts: { qos?: 0 | 1; timeoutMs?: number; retain?: boolean } = {},
  ) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), opts.timeoutMs ?? 30_000)
      const properties = { userProperties: { [ORIGIN_PROPERTY]: '1' } }
      client.publish(
        mountpoint(device) + topic,
        payload,
        { qos: opts.qos ?? 1, retain: opts.retain ?? false, properties },
        (err) => {
          clearTimeout(timer)
          resolve(!err)
        },
      )
    })
}

/** kick(): EMQX's REST API when configured (DELETE /api/v5/clients/{clientid}); plain MQTT cannot do it. */
function emqxKick(config: Config, log: (l: Level, m: string) => void) {
  return async (deviceID: string) => {
    if (!config.EMQX_API_URL) {
      log('debug', `kick ${deviceID}: not possible without EMQX_API_URL`)
      return
    }
    const url = `${config.EMQX_API_URL.replace(/\/$/, '')}/api/v5/clients/${encodeURIComponent(deviceID)}`
    const auth = Buffer.from(`${config.EMQX_API_KEY}:${config.EMQX_API_SECRET}`).toString('base64')
    try {
      const res = await fetch(url, {
        method: 'DELETE',
        headers: { authorization: `Basic ${auth}` },
      })
      if (res.status !== 204 && res.status !== 404)
        log('warn', `kick ${deviceID}: EMQX answered ${res.status}`)
    } catch (e) {
      log('warn', `kick ${deviceID}: ${(e as Error).message}`)
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
