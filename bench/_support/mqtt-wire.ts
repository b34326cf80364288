/**
 * MQTT 3.1.1 wire format for the raw-socket load generators (OASIS mqtt-v3.1.1-os §2.2.3 remaining length, §3):
 * pre-encoded CONNECT, and a frame splitter that keeps a carry for frames split across reads.
 */

/** MQTT remaining length (variable byte integer). */
export function varint(n: number): number[] {
  const out: number[] = []
  do {
    let b = n % 128
    n = Math.floor(n / 128)
    if (n > 0) b |= 0x80
    out.push(b)
  } while (n > 0)
  return out
}

/** A UTF-8 string with its 2-byte length. */
export function str(s: string): Buffer {
  const b = Buffer.from(s, 'utf8')
  const len = Buffer.alloc(2)
  len.writeUInt16BE(b.length)
  return Buffer.concat([len, b])
}

/** CONNECT, clean session, with username/password when given. */
export function connectPacket(
  d: { clientId: string; username?: string; password?: string },
  keepAliveS: number,
): Buffer {
  let flags = 0x02 // clean session
  const parts = [str(d.clientId)]
  if (d.username !== undefined) {
    flags |= 0x80
    parts.push(str(d.username))
  }
  if (d.password !== undefined) {
    flags |= 0x40
    parts.push(str(d.password))
  }
  const head = [0, 4, 0x4d, 0x51, 0x54, 0x54, 4, flags, keepAliveS >> 8, keepAliveS & 0xff]
  const body = Buffer.concat([Buffer.from(head), ...parts])
  return Buffer.concat([Buffer.from([0x10, ...varint(body.length)]), body])
}

/** Whether a CONNACK body (2 bytes at `at`) accepts the connection. */
export const connackOk = (buf: Buffer, at: number, len: number) => len === 2 && buf[at + 1] === 0

/**
 * Splits `chunk` (after the previous read's `carry`) into whole frames, calling `onFrame(first byte, buffer,
 * body start, body end)` for each; answers the bytes of an unfinished frame to pass as the next read's carry.
 */
export function frames(
  carry: Buffer | null,
  chunk: Buffer,
  onFrame: (type: number, buf: Buffer, start: number, end: number) => void,
): Buffer | null {
  const buf = carry ? Buffer.concat([carry, chunk]) : chunk
  const n = buf.length
  let i = 0
  while (i < n) {
    const end = frameEnd(buf, i, n)
    if (end < 0) break
    onFrame(buf[i]!, buf, end - bodyLength, end)
    i = end
  }
  return i < n ? Buffer.from(buf.subarray(i)) : null // a copy: the chunk's memory is not ours to keep
}

let bodyLength = 0
/**
 * Where the frame starting at `i` ends in `buf[..n]` (its remaining length decoded), or -1 when it is not all there
 * yet; its body is the last `bodyLength` bytes before that end.
 */
export function frameEnd(buf: Buffer, i: number, n: number): number {
  let len = 0
  let mul = 1
  let j = i + 1
  while (j < n && j < i + 5) {
    const b = buf[j++]!
    len += (b & 0x7f) * mul
    mul *= 128
    if ((b & 0x80) === 0) {
      bodyLength = len
      return j + len > n ? -1 : j + len
    }
  }
  return -1
}

/** What both MQTT load generators take (argv JSON). */
export interface LoadOpts {
  url: string
  devices: Array<{ clientId: string; username?: string; password?: string; topic: string }>
  inflight: number
  seconds: number
  warmup: number
  /** Data points per message. */
  points: number
  /** Each client's (or slot's) time between two publishes (ms); default none (closed loop). */
  intervalMs?: number
  /** Print `{"mark":"start"}` / `{"mark":"end"}` lines around the measured window. */
  marks?: boolean
  /**
   * Raw-socket generator only: new random digits in every message sent (default: 8 pre-encoded payloads a slot,
   * repeated), for benches that measure how stored messages compress.
   */
  freshValues?: boolean
}

/**
 * The measured window of a load generator: waits out the warm-up, then records (`recording(true)`) for
 * `o.seconds`, printing the `start`/`end` marks when asked; answers its length (s) and this process's CPU over it.
 */
export async function measuredWindow(o: LoadOpts, recording: (on: boolean) => void) {
  await new Promise((r) => setTimeout(r, o.warmup * 1000))
  if (o.marks) console.log(JSON.stringify({ mark: 'start' }))
  recording(true)
  const r0 = performance.now()
  const cpu0 = process.cpuUsage()
  await new Promise((r) => setTimeout(r, o.seconds * 1000))
  recording(false)
  const seconds = (performance.now() - r0) / 1000
  const used = process.cpuUsage(cpu0)
  if (o.marks) console.log(JSON.stringify({ mark: 'end' }))
  return { seconds, used }
}

/** Prints a load generator's one result line (see mqtt-load.ts); `pct(p)` is its latency percentile in ms. */
export function printResult(r: {
  acked: number
  seconds: number
  used: NodeJS.CpuUsage
  errors: number
  connectMs: number
  pct: (p: number) => number
}) {
  const us = r.used.user + r.used.system
  console.log(
    JSON.stringify({
      acked: r.acked,
      seconds: r.seconds,
      rate: Math.round(r.acked / r.seconds),
      p50: r.pct(0.5),
      p99: r.pct(0.99),
      errors: r.errors,
      connectMs: r.connectMs,
      cpu: Math.round(us / 10_000 / r.seconds),
      cpuUsPerMsg: r.acked ? Number((us / r.acked).toFixed(2)) : 0,
    }),
  )
}
