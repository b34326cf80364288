/**
 * Fast wire times for telemetry answers: `YYYY-MM-DD HH:MM:SS` in TIMEZONE (spec: Conventions 2) for a whole
 * range, with the zone's offsets found once (store/windows.ts ZoneClock) and the date text cached per local day.
 * formatTime() in src/wire/time.ts asks Intl per call (~2 µs); an export of a month at 1 Hz cannot.
 */
import { ZoneClock } from '../store/windows.ts'

const DAY = 86_400_000
const two = (n: number) => (n < 10 ? `0${n}` : `${n}`)

export class RangeTimeFormatter {
  private readonly clock: ZoneClock
  private day = NaN
  private date = ''

  constructor(tz: string, start: number, end: number) {
    this.clock = new ZoneClock(tz, start, end)
  }

  format(t: number): string {
    const wall = this.clock.toWall(t)
    const day = Math.floor(wall / DAY)
    if (day !== this.day) {
      const d = new Date(day * DAY)
      this.day = day
      this.date = `${String(d.getUTCFullYear()).padStart(4, '0')}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} `
    }
    const s = Math.floor((wall - day * DAY) / 1000)
    return `${this.date}${two(Math.floor(s / 3600))}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`
  }

  /** Every time of `times` formatted. */
  all(times: readonly number[]): string[] {
    const out = new Array<string>(times.length)
    for (let i = 0; i < times.length; i++) out[i] = this.format(times[i]!)
    return out
  }
}
