/**
 * Aggregate windows (the semantics of WindowSpec in store/telemetry.ts), in TypeScript: the embedded store
 * aggregates with them, the InfluxDB store relabels Flux's windows with them, and formula aggregates
 * (aggregateData 1) use them directly. Both stores must agree to the millisecond, so this is the one definition.
 *
 * A window is an interval of the zone's wall clock, converted to instants:
 * - `<n>s|m|h`: wall-clock multiples of the length counted from 1970-01-01 00:00 local (hourly windows start at
 *   local full hours; with +05:30 they start at UTC :30);
 * - `<n>d`: local midnights, every n-th day counted from 1970-01-01 local; 23 or 25 hours across a DST change;
 * - `<n>mo`: local first days of months, every n-th month counted from January 1970.
 * A wall time that happens twice (autumn) is its first instant; one that does not exist (spring) is read with the
 * offset before the change. This is what Flux's `window(location: timezone.location(...))` does (checked against
 * InfluxDB 2.7: an autumn hour window 02:00-03:00 in Europe/Berlin holds two real hours; a spring day 23).
 */

import { InvalidParameter } from '../src/kernel/errors.ts'
import { zoneOffset } from '../src/kernel/time.ts'

/** A window length: `n` times `unit`. */
export interface Every {
  n: number
  unit: 's' | 'm' | 'h' | 'd' | 'mo'
}

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const
const DAY_MS = 86_400_000

/** Parses `<n><unit>` (unit s, m, h, d or mo; n from 1 to 999999), or null. */
export function parseEvery(text: string): Every | null {
  const m = /^([1-9]\d{0,5})(s|m|h|d|mo)$/.exec(text)
  return m ? { n: Number(m[1]), unit: m[2] as Every['unit'] } : null
}

/**
 * A window spec that cannot be served: the text is not a duration, or the range would hold too many windows. It
 * names `interval`; a caller whose window came from another parameter names that one (query/metrics.ts).
 */
export class WindowError extends InvalidParameter {
  constructor(message: string) {
    super('interval', message)
  }
}

const WEEK_MS = 7 * DAY_MS

/**
 * The UTC offsets of a zone, found lazily a week at a time (two Intl calls per week touched, and a bisection in a
 * week holding a change) and then answered by arithmetic: formatting and windowing a month at 1 Hz must not call
 * Intl per value, and a range of a century costs only the weeks it really touches. A zone changing its offset
 * twice within one week would be seen as one change (no zone does).
 */
export class ZoneClock {
  /** Week number → its offset at the start, and the first instant of the other offset when it changes inside. */
  private readonly weeks = new Map<number, { off: number; at: number; next: number }>()

  constructor(readonly tz: string) {}

  /** The offset (ms) of the zone at instant `t`. */
  offsetAt(t: number): number {
    if (this.tz === 'UTC') return 0
    const k = Math.floor(t / WEEK_MS)
    let w = this.weeks.get(k)
    if (!w) {
      const lo = k * WEEK_MS
      const off = zoneOffset(lo, this.tz)
      const next = zoneOffset(lo + WEEK_MS, this.tz)
      let at = Infinity
      if (next !== off) {
        // bisect to the first second of the new offset (zone changes are on whole seconds)
        let a = lo
        let b = lo + WEEK_MS
        while (b - a > 1000) {
          const mid = Math.floor((a + b) / 2000) * 1000
          if (mid <= a) break
          if (zoneOffset(mid, this.tz) === off) a = mid
          else b = mid
        }
        at = b
      }
      if (this.weeks.size > 100_000) this.weeks.clear()
      this.weeks.set(k, (w = { off, at, next }))
    }
    return t >= w.at ? w.next : w.off
  }

  /** Wall-clock ms (local fields read as UTC) → instant; see the file comment for repeated and skipped times. */
  toEpoch(wall: number): number {
    const before = wall - this.offsetAt(wall - 43_200_000)
    const after = wall - this.offsetAt(wall + 43_200_000)
    const okBefore = this.offsetAt(before) === wall - before
    const okAfter = this.offsetAt(after) === wall - after
    if (okBefore && okAfter) return Math.min(before, after)
    if (okAfter) return after
    return before
  }

  /** Instant → wall-clock ms (local fields read as UTC). */
  toWall(t: number): number {
    return t + this.offsetAt(t)
  }
}

/** At most this many windows per aggregate call (a day at 1 s windows is 86,400). */
export const MAX_WINDOWS = 100_000

/**
 * The window boundaries covering [start, end): b[0] ≤ start < b[1] < ... < b[k] with b[k] ≥ end; window i is
 * [b[i], b[i+1]), labelled b[i]. Throws WindowError when `every` does not parse or there would be more than
 * `maxWindows` windows.
 */
export function windowBounds(
  start: number,
  end: number,
  every: string,
  tz: string,
  maxWindows = MAX_WINDOWS,
): number[] {
  const e = parseEvery(every)
  if (!e) throw new WindowError(`not a duration like 1m, 15m, 1h, 1d or 1mo: ${every}`)
  if (end <= start) return [start, start + 1]
  const clock = new ZoneClock(tz)
  const wallStart = clock.toWall(start)
  let step: (k: number) => number
  let k0: number
  if (e.unit === 'mo') {
    const d = new Date(wallStart)
    const month = (d.getUTCFullYear() - 1970) * 12 + d.getUTCMonth()
    k0 = Math.floor(month / e.n)
    step = (k) => {
      const m = k * e.n
      return Date.UTC(1970 + Math.floor(m / 12), ((m % 12) + 12) % 12, 1)
    }
  } else {
    const len = e.unit === 'd' ? e.n * DAY_MS : e.n * UNIT_MS[e.unit]
    k0 = Math.floor(wallStart / len)
    step = (k) => k * len
  }
  const estimate =
    e.unit === 'mo'
      ? (end - start) / (28 * DAY_MS * e.n)
      : (end - start) / (e.unit === 'd' ? e.n * DAY_MS : e.n * UNIT_MS[e.unit])
  if (estimate > maxWindows)
    throw new WindowError(`more than ${maxWindows} windows of ${every} in the range`)
  while (clock.toEpoch(step(k0)) > start) k0--
  const bounds = [clock.toEpoch(step(k0))]
  for (let k = k0 + 1; bounds[bounds.length - 1]! < end; k++) {
    const b = clock.toEpoch(step(k))
    if (b > bounds[bounds.length - 1]!) bounds.push(b)
    if (bounds.length > maxWindows + 1)
      throw new WindowError(`more than ${maxWindows} windows of ${every} in the range`)
  }
  return bounds
}

/** The index i of the window [b[i], b[i+1]) holding `t` (b[0] ≤ t < b[last] assumed). */
export function windowIndex(bounds: readonly number[], t: number, from = 0): number {
  let lo = from
  let hi = bounds.length - 1
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1
    if (bounds[mid]! <= t) lo = mid
    else hi = mid
  }
  return lo
}

/** What an aggregate computes (store/telemetry.ts AggregateFn). */
export type Fn = 'max' | 'min' | 'mean' | 'sum'

/**
 * Aggregates time-ascending values per window of `bounds`, fed in any number of parts (streams of slices);
 * non-numbers and times outside the bounds are ignored, empty windows omitted. Mean is the sum divided by the
 * count (as Flux computes it).
 */
export class WindowAggregator {
  private readonly out = { time: [] as number[], value: [] as number[] }
  private w = -1
  private acc = 0
  private n = 0
  private hi = -Infinity

  constructor(
    private readonly bounds: readonly number[],
    private readonly fn: Fn,
  ) {}

  /** Adds time-ascending values (those of indexes [from, to) when given). */
  add(time: ArrayLike<number>, value: ArrayLike<unknown>, from = 0, to = time.length) {
    const { bounds, fn } = this
    const first = bounds[0]!
    const last = bounds[bounds.length - 1]!
    for (let i = from; i < to; i++) {
      const t = time[i]!
      const v = value[i]
      if (typeof v !== 'number' || t < first || t >= last) continue
      if (t >= this.hi) {
        this.emit()
        this.w = windowIndex(bounds, t, Math.max(this.w, 0))
        this.hi = bounds[this.w + 1]!
      }
      if (this.n === 0) this.acc = v
      else if (fn === 'max') this.acc = v > this.acc ? v : this.acc
      else if (fn === 'min') this.acc = v < this.acc ? v : this.acc
      else this.acc += v
      this.n++
    }
  }

  /**
   * Adds a block of values summarised by their min, max, sum and count, all inside the window holding `t` and
   * later than everything added before (a stored chunk of an hour that lies in one window).
   */
  addStats(t: number, min: number, max: number, sum: number, count: number) {
    const { bounds, fn } = this
    if (count === 0 || t < bounds[0]! || t >= bounds[bounds.length - 1]!) return
    if (t >= this.hi) {
      this.emit()
      this.w = windowIndex(bounds, t, Math.max(this.w, 0))
      this.hi = bounds[this.w + 1]!
    }
    const v = fn === 'max' ? max : fn === 'min' ? min : sum
    if (this.n === 0) this.acc = v
    else if (fn === 'max') this.acc = v > this.acc ? v : this.acc
    else if (fn === 'min') this.acc = v < this.acc ? v : this.acc
    else this.acc += v
    this.n += count
  }

  /** The windows aggregated so far (call once, after the last add). */
  result(): { time: number[]; value: number[] } {
    this.emit()
    return this.out
  }

  private emit() {
    if (this.n === 0) return
    this.out.time.push(this.bounds[this.w]!)
    this.out.value.push(this.fn === 'mean' ? this.acc / this.n : this.acc)
    this.n = 0
  }
}

/** Aggregates one time-ascending series per window of `bounds` (see WindowAggregator). */
export function aggregateSorted(
  time: ArrayLike<number>,
  value: ArrayLike<unknown>,
  bounds: readonly number[],
  fn: Fn,
): { time: number[]; value: number[] } {
  const a = new WindowAggregator(bounds, fn)
  a.add(time, value)
  return a.result()
}
