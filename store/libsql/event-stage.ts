/**
 * The event stage (README "Keeping data"): with the embedded telemetry store, an uplink's event row is committed
 * in the telemetry file, in the transaction of its values (one row of `event_stage` a write), and this mover
 * copies the staged rows into the event log (`events`) of the metadata database afterwards. So an acknowledged
 * uplink costs one commit on the ingest path, not two, and the event log's inserts (four B-trees a row) run in
 * batches of many writes, off the path a PUBACK waits on.
 *
 * - A move inserts the rows and records the last stage row it took (`event_moves.through`, per telemetry file
 *   `epoch`) in one metadata transaction, then deletes the moved rows from the stage. A crash between the two
 *   leaves rows the next move skips: an event is never inserted twice, and none is lost (kill -9 after a PUBACK
 *   finds the event staged and moves it at start).
 * - Moves run MOVE_MS after a write staged something, and before every read of the event log (`settle`): a read
 *   after a PUBACK sees that message. Another process's reads see this process's events within MOVE_MS.
 * - The texts of the rows this process staged stay in memory until moved (HELD_EVENTS at most), so a move reads
 *   nothing back from the stage; the stage's rows are deleted with the next write's commit.
 * - An event of a device deleted while it waited is deleted in the move's transaction (device ids are never
 *   reused).
 */
import { errorLog, type Logger } from '../../src/kernel/log.ts'
import type { EventStage, StagedEvents, TelemetryPoint, TelemetryStore } from '../telemetry.ts'
import type { EventInput } from '../types.ts'
import type { Db } from './db.ts'
import { eventRows } from './logs-sql.ts'

/** How long after a write staged events the next move starts. */
export const MOVE_MS = 200
/** Events one move's transaction takes at most (at least one stage row). */
const MOVE_EVENTS = 5000
/**
 * Staged events kept in memory for the next move (their text is at hand: no read of the stage); beyond it (the
 * metadata database slow or failing) the texts are let go and the next moves read them back from the stage.
 */
export const HELD_EVENTS = 100_000
/** The longest a write's move timer waits after moves failed. */
const MAX_RETRY_MS = 10_000

/** What the event log's reads wait on first: every event acknowledged before the call is in `events`. */
export interface EventTail {
  settle(): Promise<void>
}

/** The tail of the direct path: events are inserted where they are written. */
export const DIRECT_TAIL: EventTail = { settle: () => Promise.resolve() }

/** The join of staged rows' JSON arrays of tuples into one (empty arrays left out). */
function joinRows(texts: readonly string[]): string {
  const inner = texts.map((t) => t.slice(1, -1)).filter((t) => t.length > 0)
  return `[${inner.join(',')}]`
}

type StagedRow = StagedEvents['rows'][number]

export class EventStageMover implements EventTail {
  /** The stage's epoch and the last stage row moved, once read (the first move). */
  private epoch: number | undefined
  private after = 0
  /** Rows this process staged and has not moved, in id order, while they hold at most HELD_EVENTS. */
  private held: StagedRow[] = []
  private heldEvents = 0
  /** Rows were staged and not held (too many, or staged by an earlier process): the next move reads the stage. */
  private unheld = true
  /** Writes committed with events since the last move began. */
  private pending = 0
  private running: Promise<void> | undefined
  private timer: NodeJS.Timeout | undefined
  private closed = false
  /** Moves failed in a row (the metadata database unavailable): the timer backs off. */
  private failures = 0
  private readonly log: (msg: string, e: unknown) => void

  constructor(
    private readonly db: Db,
    private readonly stage: TelemetryStore & EventStage,
    logger?: Logger,
    private readonly heldLimit = HELD_EVENTS,
  ) {
    this.log = errorLog(logger, 'event-stage')
  }

  /**
   * Commits the points and the uplinks' events in one telemetry transaction; resolves after the commit (the
   * events then read back through the event log at once: `settle`).
   */
  async write(points: readonly TelemetryPoint[], events: readonly EventInput[]): Promise<void> {
    if (!events.length) return this.stage.write(points)
    const rows = eventRows(events, Date.now()).rows
    const id = await this.stage.writeStaged(points, rows, events.length)
    if (this.heldEvents + events.length <= this.heldLimit) {
      this.held.push({ id, n: events.length, rows })
      this.heldEvents += events.length
    } else this.unheld = true
    this.pending++
    // after failed moves the timer waits longer (reads still move at once): no error line every 200 ms
    this.timer ??= setTimeout(
      () => {
        this.timer = undefined
        void this.move()
      },
      Math.min(MAX_RETRY_MS, MOVE_MS * 2 ** this.failures),
    )
    this.timer.unref()
  }

  /** Resolves once every event committed before the call is in the event log (a failed move is logged). */
  async settle(): Promise<void> {
    while (this.running) await this.running
    if (this.pending > 0 || this.unheld) await this.move()
  }

  /** Moves what an earlier process staged and did not move (kill -9). */
  start(): Promise<void> {
    return this.settle()
  }

  /** Moves what is staged and stops the timer (before the stores close). */
  async close(): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    await this.settle()
    this.closed = true
  }

  private move(): Promise<void> {
    if (this.running) return this.running
    clearTimeout(this.timer)
    this.timer = undefined
    this.pending = 0
    const run = this.moveAll().then(
      () => {
        this.failures = 0
      },
      (e: unknown) => {
        this.pending++ // again on the next write's timer or read
        this.failures = Math.min(this.failures + 1, 16)
        if (!this.closed) this.log('moving staged events failed', e)
      },
    )
    this.running = run.finally(() => (this.running = undefined))
    return this.running
  }

  /** The next rows to move: held ones, or read from the stage while some were not held. */
  private async next(): Promise<StagedRow[]> {
    if (this.epoch === undefined || this.unheld) {
      const s = await this.stage.staged(this.after, MOVE_EVENTS)
      if (this.epoch === undefined) {
        this.epoch = s.epoch
        const r = await this.db.one('SELECT through FROM event_moves WHERE epoch = ?', [s.epoch])
        this.after = Number(r?.through ?? 0)
        return this.next()
      }
      if (s.rows.length) return s.rows
      this.unheld = false // the stage is read to its end: what comes later is held
    }
    this.drain(this.after)
    const out: StagedRow[] = []
    let n = 0
    for (const r of this.held) {
      if (out.length && n + r.n > MOVE_EVENTS) break
      out.push(r)
      n += r.n
    }
    return out
  }

  /** Lets go of held rows up to id `through` (moved). */
  private drain(through: number) {
    let k = 0
    while (k < this.held.length && this.held[k]!.id <= through) this.heldEvents -= this.held[k++]!.n
    if (k) this.held = this.held.slice(k)
  }

  private async moveAll(): Promise<void> {
    for (;;) {
      const rows = await this.next()
      if (!rows.length) return
      const through = rows[rows.length - 1]!.id
      const { table, columns } = eventRows([], 0)
      await this.db.insertJson({
        table,
        columns,
        rows: joinRows(rows.map((r) => r.rows)),
        before: [
          // the event log's last id before this move's rows, for the delete below
          {
            sql: `INSERT INTO event_moves (epoch, through, mark) VALUES (?1, 0, (SELECT coalesce(max(id), 0) FROM events))
                  ON CONFLICT (epoch) DO UPDATE SET mark = excluded.mark`,
            args: [this.epoch!],
          },
        ],
        then: [
          // events of devices deleted while they waited in the stage (device ids are never reused)
          {
            sql: `DELETE FROM events WHERE id > (SELECT mark FROM event_moves WHERE epoch = ?)
                    AND device_int_id IS NOT NULL
                    AND NOT EXISTS (SELECT 1 FROM devices d WHERE d.id = events.device_int_id)`,
            args: [this.epoch!],
          },
          {
            sql: 'UPDATE event_moves SET through = max(through, ?) WHERE epoch = ?',
            args: [through, this.epoch!],
          },
        ],
      })
      this.after = through
      this.drain(through)
      await this.stage.dropStaged(through)
    }
  }
}
