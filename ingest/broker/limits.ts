/**
 * What one connection to the embedded broker may cost, enforced before aedes (and mqtt-packet's parser, which
 * buffers a packet until it is whole) sees a byte: every listener's stream is metered as its bytes arrive.
 * - a packet whose declared size (fixed header included) exceeds MQTT_MAX_PACKET_BYTES closes the connection as
 *   soon as its remaining-length field is read, before its body is buffered;
 * - until the CONNACK is sent, a connection may send at most PRE_CONNECT_BYTES in all (an unauthenticated client
 *   holds at most that much);
 * - at most MQTT_MAX_CONNECTIONS connections at once over all listeners: beyond it a new one is closed at accept.
 */
import type { Socket } from 'node:net'
import type { Readable } from 'node:stream'

/** Bytes a connection may send before its CONNACK (its CONNECT and anything pipelined behind it). */
export const PRE_CONNECT_BYTES = 64 * 1024

/** Why the limits closed a connection (also the `reason` of its log line). */
export type LimitRefusal =
  | 'too many connections'
  | 'packet too large'
  | 'too much data before CONNECT'
  | 'malformed packet length'

export interface BrokerLimitsOptions {
  /** MQTT_MAX_PACKET_BYTES. */
  maxPacketBytes: number
  /** MQTT_MAX_CONNECTIONS. */
  maxConnections: number
  preConnectBytes?: number
  /** Told about each connection the limits closed. */
  refused?: (reason: LimitRefusal, ip: string | null) => void
}

/** The peer address without the IPv4-mapped prefix. */
export const addressOf = (s: { remoteAddress?: string }) =>
  s.remoteAddress ? s.remoteAddress.replace(/^::ffff:/, '') : null

/** The connection cap and the per-connection meters of one broker. */
export class BrokerLimits {
  private open = 0
  private readonly meters = new WeakMap<object, PacketMeter>()

  constructor(private readonly o: BrokerLimitsOptions) {}

  /** Connections open now (admitted and not closed yet). */
  get connections(): number {
    return this.open
  }

  /**
   * A socket just accepted (the TCP listener's, the TLS listener's raw socket, the WebSocket listener's HTTP
   * socket): counted until it closes, or destroyed at once when the cap is reached (false).
   */
  admit(socket: Socket): boolean {
    if (this.open >= this.o.maxConnections) {
      socket.on('error', () => {})
      socket.destroy()
      this.o.refused?.('too many connections', addressOf(socket))
      return false
    }
    this.open++
    socket.once('close', () => this.open--)
    return true
  }

  /**
   * Meters the MQTT bytes `stream` receives: each chunk is checked as it is pushed into the stream, before it is
   * buffered; a chunk breaking a limit is dropped and the stream destroyed.
   */
  watch(stream: Readable, ip: string | null): void {
    const meter = new PacketMeter(
      this.o.maxPacketBytes,
      this.o.preConnectBytes ?? PRE_CONNECT_BYTES,
    )
    this.meters.set(stream, meter)
    const push = stream.push.bind(stream)
    stream.push = (chunk: unknown, encoding?: BufferEncoding) => {
      if (chunk === null || meter.refused) return push(chunk, encoding)
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, encoding)
      const verdict = meter.take(bytes)
      if (verdict === undefined) return push(chunk, encoding)
      this.o.refused?.(verdict, ip)
      stream.destroy()
      return false
    }
  }

  /** The CONNACK was sent on `stream`: from now on only the packet size limit applies. */
  connected(stream: unknown): void {
    if (stream && typeof stream === 'object') this.meters.get(stream)?.connected()
  }
}

/**
 * Follows the packet boundaries of an MQTT byte stream: reads each fixed header (type byte, remaining length
 * varint of 1 to 4 bytes) and skips the body without looking at it, so a chunk costs O(headers in it).
 */
export class PacketMeter {
  private state: 'type' | 'length' | 'body' = 'type'
  private length = 0
  private multiplier = 1
  private lengthBytes = 0
  private left = 0
  private received = 0
  private acked = false
  refused: LimitRefusal | undefined

  constructor(
    private readonly maxPacketBytes: number,
    private readonly preConnectBytes: number,
  ) {}

  connected() {
    this.acked = true
  }

  /** Takes the next chunk; the limit it breaks, if any (then the meter refuses everything after). */
  take(chunk: Buffer): LimitRefusal | undefined {
    if (this.refused) return this.refused
    return (this.refused = this.scan(chunk))
  }

  private scan(chunk: Buffer): LimitRefusal | undefined {
    if (!this.acked && (this.received += chunk.length) > this.preConnectBytes)
      return 'too much data before CONNECT'
    let i = 0
    while (i < chunk.length) {
      if (this.state === 'body') {
        const n = Math.min(this.left, chunk.length - i)
        this.left -= n
        i += n
        if (this.left === 0) this.state = 'type'
        continue
      }
      if (this.state === 'type') {
        i++
        this.state = 'length'
        this.length = 0
        this.multiplier = 1
        this.lengthBytes = 0
        continue
      }
      const b = chunk[i++]!
      this.length += (b & 0x7f) * this.multiplier
      this.multiplier *= 128
      this.lengthBytes++
      if (b & 0x80) {
        if (this.lengthBytes === 4) return 'malformed packet length'
        continue
      }
      const total = 1 + this.lengthBytes + this.length
      if (!this.acked && total > this.preConnectBytes) return 'too much data before CONNECT'
      if (total > this.maxPacketBytes) return 'packet too large'
      this.left = this.length
      this.state = this.left > 0 ? 'body' : 'type'
    }
    return undefined
  }
}

/**
 * A log call that writes at most one line per key per `windowMs`; the next line of a key after a quiet spell
 * says how many were left out (`suppressed`). Keys are bounded (`cap`, oldest forgotten first).
 */
export function throttledLog(
  write: (fields: Record<string, unknown>, message: string) => void,
  windowMs = 10_000,
  now: () => number = Date.now,
  cap = 1_000,
): (key: string, fields: Record<string, unknown>, message: string) => void {
  const seen = new Map<string, { at: number; suppressed: number }>()
  return (key, fields, message) => {
    const t = now()
    const s = seen.get(key)
    if (s && t - s.at < windowMs) {
      s.suppressed++
      return
    }
    seen.delete(key)
    seen.set(key, { at: t, suppressed: 0 })
    while (seen.size > cap) seen.delete(seen.keys().next().value as string)
    write(s?.suppressed ? { ...fields, suppressed: s.suppressed } : fields, message)
  }
}
