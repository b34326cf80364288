/**
 * MQTT load generator on raw sockets, run as its own process: the same argv JSON and output line as
 * mqtt-load.ts (MQTT.js), for a fraction of its CPU, so that a ceiling run measures the broker and not the client.
 * MQTT 3.1.1 written by hand (OASIS mqtt-v3.1.1-os §2.2.3 remaining length, §3.1-3.4):
 * - one `net.connect({noDelay: true})` per device, opened in waves of 100; a pre-encoded CONNECT (clean session,
 *   username/password when given, keep-alive 60 s) and a check that the CONNACK is `20 02 00 00`;
 * - per device and in-flight slot, 8 pre-encoded QoS 1 PUBLISH buffers (JSON of `points` values `{"p0":12.34,…}`,
 *   as mqtt-load.ts sends); a send patches only the two packet-id bytes (and, with `freshValues`, the values'
 *   digits, so that no two messages repeat), then one write (writes made while
 *   handling one read are corked into one syscall). A slot sends again only after its PUBACK, so a buffer is never
 *   patched while the socket may still hold it;
 * - reads parse only PUBACK (`40 02 id id`), keeping a carry for frames split across reads; any other packet is
 *   skipped by its remaining length and counted as an error;
 * - PUBACK latencies go into a fixed histogram (50 µs buckets up to 10 s), not an array of millions of numbers.
 * Prints one JSON line: {acked, seconds, rate, p50, p99, errors, connectMs, cpu, cpuUsPerMsg}. With `marks`, it
 * also prints `{"mark":"start"}` and `{"mark":"end"}` around the measured window (for the target's CPU).
 * argv: <json> = {url, devices: [{clientId, username, password, topic}], inflight, seconds, warmup, points,
 * intervalMs?, marks?}
 */
import { connect, type Socket } from 'node:net'
import {
  connackOk,
  connectPacket,
  frameEnd,
  measuredWindow,
  printResult,
  str,
  varint,
  type LoadOpts as Opts,
} from './mqtt-wire.ts'
import { argJson } from './runner.ts'

const VARIANTS = 8
const WAVE = 100
const BUCKET_US = 50
const BUCKETS = (10_000_000 / BUCKET_US) | 0

const o = argJson<Opts>(process.argv[2]!)
const { hostname, port } = new URL(o.url)
const slots = o.inflight
const maxId = Math.floor(65535 / slots) * slots // packet ids 1..maxId; slot = (id - 1) % slots

/** A QoS 1 PUBLISH of `payload` to `topic`, and the offset of its packet id. */
function publishPacket(topic: string, payload: string): { buf: Buffer; idAt: number } {
  const t = str(topic)
  const p = Buffer.from(payload, 'utf8')
  const head = Buffer.from([0x32, ...varint(t.length + 2 + p.length)])
  return {
    buf: Buffer.concat([head, t, Buffer.alloc(2), p]),
    idAt: head.length + t.length,
  }
}

/** `{"p0":12.34,…}`, each value 10.00-99.99: every variant has the same length (and packet-id offset). */
function payload(): string {
  const p: string[] = []
  for (let i = 0; i < o.points; i++) {
    const cents = 1000 + Math.floor(Math.random() * 9000)
    p.push(`"p${i}":${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`)
  }
  return `{${p.join(',')}}`
}

interface Conn {
  sock: Socket
  /** Per slot, its VARIANTS buffers. */
  bufs: Buffer[][]
  /** The packet id's offset in every buffer of this connection (one topic, one payload length). */
  idAt: number
  /** Per slot, the next packet id it sends (and the variant it cycles through). */
  nextId: Uint16Array
  turn: Uint8Array
  /** Per slot, whether a PUBLISH is awaiting its PUBACK. */
  busy: Uint8Array
  carry: Buffer | null
  connected: boolean
}

const hist = new Uint32Array(BUCKETS + 1)
const starts = new Float64Array(o.devices.length * slots)
let acked = 0
let errors = 0
let recording = false
let stopping = false

function send(c: Conn, ci: number, slot: number) {
  if (stopping || c.sock.destroyed) return
  const id = c.nextId[slot]!
  c.nextId[slot] = id + slots > maxId ? slot + 1 : id + slots
  const v = c.turn[slot]!
  c.turn[slot] = (v + 1) % VARIANTS
  const buf = c.bufs[slot]![v]!
  if (o.freshValues) freshDigits(buf, c.idAt + 2)
  buf[c.idAt] = id >> 8
  buf[c.idAt + 1] = id & 0xff
  c.busy[slot] = 1
  starts[ci * slots + slot] = performance.now()
  c.sock.write(buf)
}

/** Writes new random digits over the values of a pre-encoded payload (`DD.DD`, 10.00-99.99; lengths unchanged). */
function freshDigits(buf: Buffer, payloadAt: number) {
  // the payload follows the packet id: each value follows `":` and is 5 bytes, its third the dot
  for (
    let i = buf.indexOf('":', payloadAt) + 2;
    i > 1 && i + 5 <= buf.length;
    i = buf.indexOf('":', i) + 2
  ) {
    buf[i] = 0x31 + Math.floor(Math.random() * 9)
    buf[i + 1] = 0x30 + Math.floor(Math.random() * 10)
    buf[i + 3] = 0x30 + Math.floor(Math.random() * 10)
    buf[i + 4] = 0x30 + Math.floor(Math.random() * 10)
  }
}

function onPuback(c: Conn, ci: number, id: number) {
  const slot = (id - 1) % slots
  if (id === 0 || id > maxId || !c.busy[slot]) {
    errors++
    return
  }
  c.busy[slot] = 0
  const start = starts[ci * slots + slot]!
  if (recording) {
    acked++
    const b = Math.floor(((performance.now() - start) * 1000) / BUCKET_US)
    hist[b < BUCKETS ? b : BUCKETS]!++
  }
  if (o.intervalMs) {
    const wait = start + o.intervalMs - performance.now()
    if (wait > 0) {
      setTimeout(() => send(c, ci, slot), wait)
      return
    }
  }
  send(c, ci, slot)
}

/** Parses a read: PUBACKs (and the first CONNACK), each other packet skipped and counted as an error. */
function onData(c: Conn, ci: number, chunk: Buffer, onConnack: (ok: boolean) => void) {
  let buf = chunk
  if (c.carry) {
    buf = Buffer.concat([c.carry, chunk])
    c.carry = null
  }
  const n = buf.length
  let i = 0
  c.sock.cork()
  while (i < n) {
    const type = buf[i]!
    if (type === 0x40 && i + 4 <= n && buf[i + 1] === 2) {
      onPuback(c, ci, (buf[i + 2]! << 8) | buf[i + 3]!)
      i += 4
      continue
    }
    // generic frame: type byte, remaining length, body
    const end = frameEnd(buf, i, n)
    if (end < 0) break // split frame: keep it for the next read
    if (!c.connected && type === 0x20) {
      c.connected = true
      onConnack(connackOk(buf, i + 2, end - i - 2))
    } else errors++
    i = end
  }
  if (i < n) c.carry = Buffer.from(buf.subarray(i)) // a copy: the chunk's memory is not ours to keep
  c.sock.uncork() // the PUBLISHes answering this read leave in one write
}

function open(d: Opts['devices'][number], ci: number): Promise<Conn> {
  const bufs: Buffer[][] = []
  let idAt = 0
  for (let s = 0; s < slots; s++) {
    const row: Buffer[] = []
    for (let v = 0; v < VARIANTS; v++) {
      const p = publishPacket(d.topic, payload())
      if (idAt && p.idAt !== idAt) throw new Error('variants differ in packet-id offset')
      row.push(p.buf)
      idAt = p.idAt
    }
    bufs.push(row)
  }
  return new Promise((resolve, reject) => {
    const sock = connect({ host: hostname, port: Number(port || 1883), noDelay: true })
    const c: Conn = {
      sock,
      bufs,
      idAt,
      nextId: Uint16Array.from({ length: slots }, (_, s) => s + 1),
      turn: new Uint8Array(slots),
      busy: new Uint8Array(slots),
      carry: null,
      connected: false,
    }
    const timer = setTimeout(() => reject(new Error(`${d.clientId}: no CONNACK in 30 s`)), 30_000)
    sock.on('data', (chunk: Buffer) =>
      onData(c, ci, chunk, (ok) => {
        clearTimeout(timer)
        if (ok) resolve(c)
        else reject(new Error(`${d.clientId}: connection refused`))
      }),
    )
    sock.on('error', (err) => {
      clearTimeout(timer)
      if (!c.connected) reject(err)
      else if (!stopping) errors++
    })
    sock.on('close', () => {
      if (c.connected && !stopping) errors++
    })
    sock.write(connectPacket(d, 60))
  })
}

const t0 = performance.now()
const conns: Conn[] = []
for (let w = 0; w < o.devices.length; w += WAVE)
  conns.push(...(await Promise.all(o.devices.slice(w, w + WAVE).map((d, k) => open(d, w + k)))))
const connectMs = Math.round(performance.now() - t0)

conns.forEach((c, ci) => {
  for (let s = 0; s < slots; s++) {
    if (o.intervalMs) setTimeout(() => send(c, ci, s), Math.random() * o.intervalMs)
    else send(c, ci, s)
  }
})
const { seconds, used } = await measuredWindow(o, (on) => (recording = on))
stopping = true

/** The latency (ms, upper edge of its bucket) below which a share `p` of the acknowledged messages fall. */
function pct(p: number): number {
  const rank = Math.ceil(acked * p)
  let seen = 0
  for (let b = 0; b <= BUCKETS; b++) {
    seen += hist[b]!
    if (seen >= rank && seen > 0) return Number((((b + 1) * BUCKET_US) / 1000).toFixed(2))
  }
  return 0
}
printResult({ acked, seconds, used, errors, connectMs, pct })
const bye = Buffer.from([0xe0, 0x00]) // DISCONNECT
await Promise.all(
  conns.map(
    (c) =>
      new Promise<void>((resolve) => {
        c.sock.once('close', () => resolve())
        c.sock.end(bye)
        setTimeout(() => c.sock.destroy(), 2000).unref()
      }),
  ),
)
process.exit(0)
