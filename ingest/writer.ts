import type { EventInput } from '../store/types.ts'
import type { TelemetryPoint } from '../store/telemetry.ts'
import { deferred } from '../src/kernel/deferred.ts'
import { Backpressure } from './types.ts'

/** Where a flush goes: both writes are multi-row and run in parallel. */
export interface WriterSink {
  writePoints(points: readonly TelemetryPoint[]): Promise<unknown>
  writeEvents(events: readonly EventInput[]): Promise<unknown>
}

export interface WriterOptions {
  /** A flush starts once this many points (values + events) are pending. */
  batchPoints: number
  /** Most points queued or being written; a submit beyond it throws Backpressure (an empty queue takes anything). */
  queuePoints: number
  /** How long the first pending item waits for company before a flush. */
  lingerMs: number
  /** `saturated` above this fraction of queuePoints, until the queue falls to `lowWater`. */
  highWater?: number
  lowWater?: number
  /** Called with the points of each committed flush (the latest-values cache). */
  onCommitted?(points: readonly TelemetryPoint[]): void
  /** Called once a flush's items are settled and out of the count, committed or not: there is room again. */
  onSettled?(): void
  /**
   * Flushes under way at once (default 2): a second starts only with `parallelPoints` pending (see `schedule`),
   * so under load the stores work on one batch while the next is on its way; below that, one at a time.
   */
  maxFlushes?: number
  /**
   * Points pending that start a flush beside one under way (default batchPoints: a full batch). Lower, a light load
   * whose devices wait for their acknowledgements gets its next batch on its way before the flush ahead ends.
   */
  parallelPoints?: number
}

/**
 * Items queued for one flush, gathered as they are submitted: their points and events in one array each, and one
 * promise every item of the group waits on (no promise, callbacks or array kept an item while it waits).
 */
interface Group {
  /** Sized for a full batch when made (`nPoints` of it filled), cut to its points when its flush starts. */
  points: TelemetryPoint[]
  nPoints: number
  events: EventInput[]
  size: number
  done: Promise<void>
  resolve(): void
  reject(err: unknown): void
}

/** The most points a new group's array has room for before any arrives (a batch larger than this grows it). */
const MAX_ROOM = 10_000

/**
 * A group whose points array has room for `room` points from the start: grown a push at a time, a batch's array was
 * copied a dozen times on its way to thousands of points (~5% of what an uplink allocated).
 */
function newGroup(room: number): Group {
  const { promise, resolve, reject } = deferred()
  const points = new Array<TelemetryPoint>(room)
  return { points, nPoints: 0, events: [], size: 0, done: promise, resolve, reject }
}

/**
 * The uplink batch writer: a bounded queue of {points, events} items. A flush writes up to `batchPoints` with
 * `writePoints` and `writeEvents` in parallel; each submit resolves when its flush committed, or rejects when it
 * failed, in submission order. Items that arrive during a flush go in the next one (group commit), so batches grow
 * with load; a second flush runs beside the first only with `parallelPoints` pending (`maxFlushes`). Items are
 * gathered into their flush's group as they arrive (the oldest first, up to `batchPoints` a group, at least one
 * item), so an item waiting for its flush holds nothing of its own: under load thousands wait, long enough for the
 * garbage collector to copy whatever they hold.
 */
export class UplinkBatchWriter {
  /** Groups not yet flushing, oldest first; the last one takes new items until it is full or its flush starts. */
  private pending: Group[] = []
  private pendingSize = 0
  /** Points pending or being written. */
  private queued = 0
  /** Flushes under way. */
  private flushing = 0
  /** Settles when the last flush started has settled its items (write() never rejects). */
  private settled: Promise<void> = Promise.resolve()
  private timer: NodeJS.Timeout | null = null
  private waiters: Array<() => void> = []
  private idleWaiters: Array<() => void> = []
  private isSaturated = false
  private closed = false
  private readonly high: number
  private readonly low: number

  constructor(
    private sink: WriterSink,
    private opts: WriterOptions,
  ) {
    this.high = Math.max(1, Math.floor(opts.queuePoints * (opts.highWater ?? 0.8)))
    this.low = Math.floor(opts.queuePoints * (opts.lowWater ?? 0.5))
  }

  /** True from the high-water mark until the queue is back at the low-water mark. */
  get saturated(): boolean {
    return this.isSaturated
  }

  /** Points pending or being written. */
  get size(): number {
    return this.queued
  }

  /**
   * Queues one item; resolves when it is committed. Throws Backpressure (synchronously) when the queue is full.
   * An item counts its points plus its events.
   */
  submit(points: readonly TelemetryPoint[], events: readonly EventInput[]): Promise<void> {
    if (this.closed) throw new Error('the ingest writer is closed')
    const size = points.length + events.length
    if (this.queued > 0 && this.queued + size > this.opts.queuePoints) throw new Backpressure(1)
    let group = this.pending[this.pending.length - 1]
    if (!group || (group.size > 0 && group.size + size > this.opts.batchPoints)) {
      group = newGroup(Math.min(this.opts.batchPoints, MAX_ROOM))
      this.pending.push(group)
    }
    // a loop, not spread: a spread of every uplink's arrays cost the event loop more
    for (const p of points) group.points[group.nPoints++] = p
    for (const e of events) group.events.push(e)
    group.size += size
    this.pendingSize += size
    this.queued += size
    if (this.queued >= this.high) this.isSaturated = true
    this.schedule()
    return group.done
  }

  /**
   * With no flush under way, a full batch pending starts one at once and less waits for the linger timer; beside
   * a flush under way (fewer than maxFlushes), `parallelPoints` pending start another, and less waits for a flush
   * to end (group commit).
   */
  private schedule() {
    const start = this.flushing
      ? (this.opts.parallelPoints ?? this.opts.batchPoints)
      : this.opts.batchPoints
    if (this.pendingSize >= start && this.flushing < (this.opts.maxFlushes ?? 2)) {
      this.startFlush()
      return
    }
    if (this.flushing) return
    this.timer ??= setTimeout(() => {
      this.timer = null
      if (!this.flushing) this.startFlush()
    }, this.opts.lingerMs)
  }

  private startFlush() {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    const group = this.pending.shift()
    if (!group) return this.settleIdle()
    group.points.length = group.nPoints
    this.pendingSize -= group.size
    this.flushing++
    const written = this.write(group, this.settled)
    this.settled = written
    void written.finally(() => {
      this.flushing--
      // what arrived meanwhile has waited long enough: write it at once (unless another flush still runs,
      // whose end takes it, unless `parallelPoints` are pending)
      if (this.pending.length && !this.flushing) this.startFlush()
      else if (this.pending.length) this.schedule()
      else this.settleIdle()
    })
  }

  /**
   * Writes a group and settles its items, never before the flush started ahead of it settled its own (`before`):
   * items are answered in the order they were submitted (a device's PUBACKs in the order of its PUBLISHes), and
   * the latest-values cache hears of flushes in that order.
   */
  private async write(group: Group, before: Promise<void>): Promise<void> {
    const { points, events } = group
    let error: unknown
    try {
      const writes: Promise<unknown>[] = []
      if (events.length) writes.push(this.sink.writeEvents(events))
      if (points.length) writes.push(this.sink.writePoints(points))
      await Promise.all(writes)
    } catch (err) {
      error = err ?? new Error('flush failed')
    }
    await before
    try {
      if (error === undefined) this.opts.onCommitted?.(points)
    } catch (err) {
      error = err
    }
    this.queued -= group.size
    if (error === undefined) group.resolve()
    else group.reject(error)
    if (this.isSaturated && this.queued <= this.low) {
      this.isSaturated = false
      for (const w of this.waiters.splice(0)) w()
    }
    this.opts.onSettled?.()
  }

  private settleIdle() {
    if (this.queued === 0) for (const w of this.idleWaiters.splice(0)) w()
  }

  /** Resolves when the queue is back at its low-water mark (at once when not saturated). */
  drained(): Promise<void> {
    if (!this.isSaturated) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  /** Writes everything queued now and resolves when all of it is committed (or failed). */
  async flush(): Promise<void> {
    if (this.queued === 0) return
    const idle = new Promise<void>((resolve) => this.idleWaiters.push(resolve))
    if (!this.flushing) this.startFlush()
    await idle
  }

  /** Flushes, then refuses further submits. */
  async close(): Promise<void> {
    await this.flush()
    this.closed = true
    if (this.timer) clearTimeout(this.timer)
  }
}
