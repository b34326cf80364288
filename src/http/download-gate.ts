/**
 * How the service sends files (firmware downloads, README "Firmware") without starving ingest of its event loop.
 * Piped as they come, a hundred downloads handed the loop a hundred freshly allocated 64 KiB chunks in one poll
 * phase, each written to its socket before the loop looked at its sockets again, and the garbage collector ran
 * after the allocations: MQTT acknowledgements waited 50 ms and more behind them (bench/firmware.bench.ts). Here:
 * - each download reads into buffers of one shared pool (no allocation a chunk: no garbage), one chunk at a time,
 *   reusing a buffer once the socket wrote it;
 * - at most TURN_BYTES of downloads are written per turn of the loop; the chunks beyond wait for the next turn
 *   (setImmediate, after the loop polled for I/O again), first come first served;
 * - while downloads run, every STEER_MS the loop's utilization steers a cap on their bytes a second: busier than BUSY,
 *   the cap drops below what was sent; calmer than CALM, it rises again until it is lifted. The loop keeps room for
 *   ingest (its PUBACK p99 within 1.1-1.3x of an idle loop's under 100 downloads at once, where the uncapped downloads
 *   took it to 1.7-9x), at the cost of some download speed while ingest is busy.
 * A download is never refused or dropped: it slows down only while the loop has other work.
 */
import type { Writable } from 'node:stream'
import { open } from 'node:fs/promises'
import { performance } from 'node:perf_hooks'

/** Download bytes written per turn of the event loop at most (a few chunks: well under a millisecond). */
export const TURN_BYTES = 128 * 1024
/** One read of a download. */
const CHUNK = 64 * 1024
/** Buffers kept for reuse at most (idle downloads' buffers beyond are left to the collector). */
const POOL = 256
/** How often the cap follows the event loop's utilization while downloads run, ms. */
const STEER_MS = 100
/** The loop's busy share above which downloads are slowed, and below which they may speed up again. */
const BUSY = 0.95
const CALM = 0.85
/** The cap never goes below this (bytes a second): downloads always progress. */
const FLOOR = 4 * 2 ** 20

/** The cap on download bytes a second, steered by the loop's utilization while downloads run (`started`/`ended`). */
function loopSteeredCap() {
  /** Bytes a second (Infinity: none). */
  let cap = Infinity
  let sent = 0
  let tokens = 0
  let refilled = performance.now()
  let active = 0
  let steering: NodeJS.Timeout | undefined
  let elu = performance.eventLoopUtilization()

  /** Every STEER_MS while downloads run: slower while the loop is busy, faster (then uncapped) while it is calm. */
  function steer() {
    const now = performance.eventLoopUtilization()
    const busy = performance.eventLoopUtilization(now, elu).utilization
    elu = now
    const rate = (sent * 1000) / STEER_MS
    sent = 0
    if (busy > BUSY) cap = Math.max(FLOOR, Math.min(cap, rate) * 0.9)
    else if (busy < CALM && cap !== Infinity) cap = cap * 1.25 > 4 * rate ? Infinity : cap * 1.25
  }
  return {
    started() {
      if (active++ > 0) return
      elu = performance.eventLoopUtilization()
      steering = setInterval(steer, STEER_MS)
      steering.unref()
    },
    ended() {
      if (--active > 0) return
      clearInterval(steering)
      cap = Infinity
    },
    /** Resolves once the cap allows `bytes` more (at once when uncapped). */
    async paced(bytes: number) {
      sent += bytes
      if (cap === Infinity) return
      const now = performance.now()
      tokens = Math.min(cap / 10, tokens + ((now - refilled) * cap) / 1000)
      refilled = now
      tokens -= bytes
      if (tokens < 0) await new Promise((r) => setTimeout(r, (-tokens * 1000) / cap))
    },
  }
}

/** At most `turnBytes` admitted per turn of the event loop; the rest wait for the next turns, in order. */
function turnBudget(turnBytes: number) {
  const waiting: Array<() => void> = []
  let spent = 0
  let scheduled = false

  /** A new turn: the budget is whole again, and the chunks waiting pass in order while it lasts. */
  function turn() {
    scheduled = false
    spent = 0
    while (waiting.length && spent < turnBytes) waiting.shift()!()
    if (waiting.length || spent > 0) schedule()
  }
  function schedule() {
    if (scheduled) return
    scheduled = true
    setImmediate(turn)
  }
  return {
    /** Resolves when `bytes` may be written in this turn (at once, or at a later turn). */
    admit(bytes: number): Promise<void> {
      return new Promise((resolve) => {
        const pass = () => {
          spent += bytes
          resolve()
        }
        if (spent < turnBytes && !waiting.length) pass()
        else waiting.push(pass)
        schedule()
      })
    },
    get waiting() {
      return waiting.length
    },
  }
}

/** Writes `chunk` and resolves once the socket took it (its buffer may be reused then); rejects when it closed. */
const write = (out: Writable, chunk: Buffer) =>
  new Promise<void>((resolve, reject) => {
    if (out.destroyed) return reject(new Error('closed'))
    out.write(chunk, (err) => (err ? reject(err) : resolve()))
  })

export function downloadGate(turnBytes = TURN_BYTES) {
  const pool: Buffer[] = []
  const cap = loopSteeredCap()
  const budget = turnBudget(turnBytes)

  return {
    /**
     * Sends bytes `start` to `end` (inclusive) of the file at `path` to `out` (headers written already), then ends
     * it; resolves when done, rejects when `out` closed first (the device went away).
     */
    async send(path: string, start: number, end: number, out: Writable): Promise<void> {
      const file = await open(path, 'r')
      const buf = pool.pop() ?? Buffer.allocUnsafeSlow(CHUNK)
      cap.started()
      try {
        for (let at = start; at <= end;) {
          const { bytesRead } = await file.read(buf, 0, Math.min(CHUNK, end - at + 1), at)
          if (bytesRead === 0) throw new Error('the file is shorter than its record')
          await cap.paced(bytesRead)
          await budget.admit(bytesRead)
          await write(out, bytesRead === CHUNK ? buf : buf.subarray(0, bytesRead))
          at += bytesRead
        }
        out.end()
      } finally {
        cap.ended()
        if (pool.length < POOL) pool.push(buf)
        await file.close()
      }
    },
    /** Chunks waiting for a turn now, buffers kept (tests). */
    get waiting() {
      return budget.waiting
    },
    get pooled() {
      return pool.length
    },
  }
}
