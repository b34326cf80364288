/**
 * Fast wire times for telemetry answers: `YYYY-MM-DD HH:MM:SS` in TIMEZONE for many
 * values, with the zone's offsets found once per week (store/windows.ts ZoneClock) and the text cached per local minute.
 * formatTime() in src/kernel/time.ts asks Intl per call (~2 µs); an export of a month at 1 Hz cannot.
 */
import { ZoneClock } from '../store/windows.ts'

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`)

export class WireTimeFormatter {
  private readonly clock: ZoneClock
  private minute = NaN
  /** `YYYY-MM-DD HH:MM:` of the current local minute. */
  private prefix = ''

  constructor(tz: string) {
    this.clock = new ZoneClock(tz)
  }

  format(t: number): string {
    const wall = this.clock.toWall(t)
    const minute = Math.floor(wall / 60_000)
    if (minute !== this.minute) {
      const d = new Date(minute * 60_000)
      this.minute = minute
      this.prefix = `${String(d.getUTCFullYear()).padStart(4, '0')}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:`
    }
    return this.prefix + two(Math.floor((wall - minute * 60_000) / 1000))
  }

  /** Every time of `times` formatted. */
  all(times: readonly number[]): string[] {
    const out = new Array<string>(times.length)
    for (let i = 0; i < times.length; i++) out[i] = this.format(times[i]!)
    return out
  }
}
