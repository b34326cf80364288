import type { ConnectionRepository } from '../store/types.ts'

/** A stored lastSeenAt is rewritten only when it is at least this old. */
export const LAST_SEEN_RESOLUTION_MS = 60_000
/** Devices held between two flushes; more flush at once (bounded memory). */
const MAX_PENDING = 50_000
/** Devices whose last write is remembered (to skip them for a minute); the memory is dropped whole beyond it. */
const MAX_WRITTEN = 200_000

export interface LastSeenOptions {
  /** How often the seen devices are written, ms (0: only by `flush()`). */
  flushIntervalMs: number
  now?: () => number
  /** Told about a failed flush (the devices are tried again at the next one). */
  onError?: (e: unknown) => void
}

/**
 * The devices' lastSeenAt, written at most once a minute per device and never once per message: each uplink only
 * notes its device in memory; every `flushIntervalMs` (and on close) the devices whose stored time is a minute old
 * or more are written in one statement (`connections.markSeen`, which also skips rows the store holds as fresh,
 * e.g. after a connect or another node's write).
 */
export class LastSeenTracker {
  /** deviceIntID → the time it was last seen, since the last flush. */
  private pending = new Map<number, number>()
  /** deviceIntID → the lastSeenAt this tracker last wrote (or learnt), to skip it for a minute. */
  private written = new Map<number, number>()
  /** deviceIntID → the time being written now: sightings within a minute of it are covered by that write. */
  private writing = new Map<number, number>()
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  private readonly now: () => number

  constructor(
    private readonly repo: Pick<ConnectionRepository, 'markSeen'>,
    private readonly opts: LastSeenOptions,
  ) {
    this.now = opts.now ?? Date.now
    if (opts.flushIntervalMs > 0) {
      this.timer = setInterval(() => void this.flush(), opts.flushIntervalMs)
      this.timer.unref()
    }
  }

  /** A device sent something now. Cheap: a map lookup, no write. */
  seen(deviceIntID: number): void {
    const at = this.now()
    const last = this.written.get(deviceIntID) ?? this.writing.get(deviceIntID)
    if (last !== undefined && at - last < LAST_SEEN_RESOLUTION_MS) return
    this.pending.set(deviceIntID, at)
    if (this.pending.size >= MAX_PENDING) void this.flush()
  }

  /** Writes the pending devices (one transaction); resolves when written. Errors go to `onError`. */
  flush(): Promise<void> {
    // one write at a time: each flush follows the one before (write() never rejects)
    this.running = (this.running ?? Promise.resolve()).then(() => this.write())
    return this.running
  }

  private async write(): Promise<void> {
    if (!this.pending.size) return
    const seen = [...this.pending].map(([deviceIntID, at]) => ({ deviceIntID, at }))
    this.writing = this.pending
    this.pending = new Map()
    let changed: number[]
    try {
      changed = await this.repo.markSeen(seen, LAST_SEEN_RESOLUTION_MS)
    } catch (e) {
      this.writing = new Map()
      for (const s of seen)
        if (!this.pending.has(s.deviceIntID)) this.pending.set(s.deviceIntID, s.at)
      this.opts.onError?.(e)
      return
    }
    this.writing = new Map()
    // devices the store skipped (its time is fresh, e.g. written at a connect) are offered again when seen again
    if (this.written.size + changed.length > MAX_WRITTEN) this.written.clear()
    const at = new Map(seen.map((s) => [s.deviceIntID, s.at]))
    for (const id of changed) this.written.set(id, at.get(id)!)
  }

  /** Stops the timer and writes what is pending. */
  async close(): Promise<void> {
    clearInterval(this.timer)
    await this.flush()
  }
}
