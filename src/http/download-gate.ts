/**
 * How the service sends files (firmware downloads, README "Firmware") without starving ingest of its event loop.
 * Piped as they come, a hundred downloads handed the loop a hundred freshly allocated 64 KiB chunks in one poll
 * phase, each written to its socket before the loop looked at its sockets again, and the garbage collector ran
 * after the allocations: MQTT acknowledgements waited 50 ms and more behind them (bench/firmware.bench.ts). Here:
 * - each download reads into buffers of one shared pool (no allocation a chunk: no garbage), one chunk at a time,
 *   reusing a buffer once the socket wrote it;
 * - at most TURN_BYTES of downloads are written per turn of the loop; the chunks beyond wait for the next turn
 *   (setImmediate, after the loop polled for I/O again), first come first served.
 * A download is never refused or dropped: it slows down only while the loop has other work.
 */
import type { Writable } from 'node:stream'
import { open } from 'node:fs/promises'

/** Download bytes written per turn of the event loop at most (a few chunks: well under a millisecond). */
export const TURN_BYTES = 128 * 1024
/** One read of a download. */
const CHUNK = 64 * 1024
/** Buffers kept for reuse at most (idle downloads' buffers beyond are left to the collector). */
const POOL = 256

export function downloadGate(turnBytes = TURN_BYTES) {
  const waiting: Array<() => void> = []
  const pool: Buffer[] = []
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
  /** Resolves when `bytes` may be written in this turn (at once, or at a later turn). */
  function admit(bytes: number): Promise<void> {
    return new Promise((resolve) => {
      const pass = () => {
        spent += bytes
        resolve()
      }
      if (spent < turnBytes && !waiting.length) pass()
      else waiting.push(pass)
      schedule()
    })
  }

  /** Writes `chunk` and resolves once the socket took it (its buffer may be reused then); rejects when it closed. */
  const write = (out: Writable, chunk: Buffer) =>
    new Promise<void>((resolve, reject) => {
      if (out.destroyed) return reject(new Error('closed'))
      out.write(chunk, (err) => (err ? reject(err) : resolve()))
    })

  return {
    /**
     * Sends bytes `start` to `end` (inclusive) of the file at `path` to `out` (headers written already), then ends
     * it; resolves when done, rejects when `out` closed first (the device went away).
     */
    async send(path: string, start: number, end: number, out: Writable): Promise<void> {
      const file = await open(path, 'r')
      const buf = pool.pop() ?? Buffer.allocUnsafeSlow(CHUNK)
      try {
        for (let at = start; at <= end;) {
          const { bytesRead } = await file.read(buf, 0, Math.min(CHUNK, end - at + 1), at)
          if (bytesRead === 0) throw new Error('the file is shorter than its record')
          await admit(bytesRead)
          await write(out, bytesRead === CHUNK ? buf : buf.subarray(0, bytesRead))
          at += bytesRead
        }
        out.end()
      } finally {
        if (pool.length < POOL) pool.push(buf)
        await file.close()
      }
    },
    /** Chunks waiting for a turn now, buffers kept (tests). */
    get waiting() {
      return waiting.length
    },
    get pooled() {
      return pool.length
    },
  }
}
