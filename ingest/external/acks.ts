import mqtt, { type IClientOptions, type IPublishPacket, type MqttClient, type Packet } from 'mqtt'

/** Handles one received message; resolves with the PUBACK reason code (0 success, MQTT 5 §3.4.2.1). */
export type MessageHandler = (
  topic: string,
  payload: Buffer,
  packet: IPublishPacket,
) => Promise<number>

export interface AckingOptions extends IClientOptions {
  /**
   * Called before MQTT.js reads the next packet: a promise here pauses reading from the broker (backpressure),
   * e.g. while the ingest queue is saturated. Undefined: go on at once.
   */
  pauseUntil?: () => Promise<void> | undefined
}

interface Internals {
  _sendPacket(packet: Packet, cb?: (err?: Error) => void, ...rest: unknown[]): void
}

/** Whether `client` has MQTT.js 5's `_sendPacket` (not public API, so checked at run time). */
function hasSendPacket(client: object): client is Internals {
  return '_sendPacket' in client && typeof client._sendPacket === 'function'
}

/**
 * Connects an MQTT 5 client whose QoS 1 PUBACKs are sent only once `handler` resolved for that message (so the
 * broker keeps the message until the service committed it), while the following messages are handled
 * concurrently, up to the `receiveMaximum` the client announces (MQTT 5 §4.9, enforced by the broker).
 * PUBACKs leave in the order the messages arrived (MQTT 3.1.1 [MQTT-4.6.0-2]).
 *
 * Why not MQTT.js's `customHandleAcks`: it only takes effect with protocolVersion 5 and MQTT.js reads no further
 * packet until its callback ran, so awaiting a batch commit there handles one message per commit. Here the PUBACK
 * MQTT.js writes after `handleMessage` is held back instead (MQTT.js 5.x `_sendPacket`, checked by
 * test/ingest/external.test.ts against Mosquitto). PUBACKs still pending when the connection drops are forgotten:
 * the broker re-sends those messages (DUP) on the resumed session, and re-sent values are stored once.
 */
export function connectAcking(
  url: string,
  opts: AckingOptions,
  handler: MessageHandler,
): MqttClient {
  const { pauseUntil, ...clientOpts } = opts
  const client = mqtt.connect(url, { ...clientOpts, protocolVersion: 5 })
  const pending = new Map<number, Promise<number>>()
  let chain: Promise<void> = Promise.resolve()
  let generation = 0
  client.on('close', () => {
    generation++
    pending.clear()
  })

  client.handleMessage = (packet, callback) => {
    const result = settle(handler, packet)
    if (packet.qos === 1 && packet.messageId !== undefined) pending.set(packet.messageId, result)
    const pause = pauseUntil?.()
    if (pause)
      pause.then(
        () => callback(),
        () => callback(),
      )
    else callback()
  }

  const internals: object = client
  if (!hasSendPacket(internals))
    throw new Error('this MQTT.js has no _sendPacket to hold PUBACKs back')
  const send = internals._sendPacket.bind(client)
  internals._sendPacket = (packet, cb, ...rest) => {
    const result =
      packet.cmd === 'puback' && packet.messageId !== undefined
        ? pending.get(packet.messageId)
        : undefined
    if (!result || packet.cmd !== 'puback') return send(packet, cb, ...rest)
    pending.delete(packet.messageId!)
    const sentOn = generation
    chain = chain
      .then(() => result)
      .then((reasonCode) => {
        if (sentOn === generation && client.connected) send({ ...packet, reasonCode })
      })
    cb?.() // let MQTT.js read the next packet now; the PUBACK follows once the handler resolved
  }
  return client
}

/** Runs the handler; never rejects (a handler error becomes reason code 0x80, unspecified error). */
async function settle(handler: MessageHandler, packet: IPublishPacket): Promise<number> {
  try {
    const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload)
    return await handler(packet.topic, payload, packet)
  } catch {
    return 0x80
  }
}
