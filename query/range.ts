/**
 * The time range of a telemetry query: `time_unit` (hour, day (default), week, month) for "the
 * last unit up to now", or `startTime`/`endTime` (`YYYY-MM-DD HH:MM:SS` in TIMEZONE, or epoch seconds or
 * milliseconds). `endTime` is inclusive to the end of its second; only `startTime` runs to now; only `endTime`
 * covers the unit before it. Errors name the parameter (400 PARAMETER_INVALID).
 */
import { InvalidParameter, type FieldErrors } from '../src/kernel/errors.ts'
import { parseTime } from '../src/kernel/time.ts'
import { ZoneClock } from '../store/windows.ts'

export const TIME_UNITS = ['hour', 'day', 'week', 'month'] as const
export type TimeUnit = (typeof TIME_UNITS)[number]

/** The default aggregate window of each time_unit. */
export const DEFAULT_WINDOW: Record<TimeUnit, string> = {
  hour: '1m',
  day: '1h',
  week: '6h',
  month: '1d',
}

const HOUR = 3_600_000
const DAY = 24 * HOUR

export interface RangeParams {
  time_unit?: string
  startTime?: string
  endTime?: string
}

export interface QueryRange {
  /** Epoch ms, inclusive. */
  start: number
  /** Epoch ms, exclusive. */
  end: number
  /** The parameter that set the range, named by errors about its size. */
  param: 'time_unit' | 'startTime'
  /** The default aggregate window for this range. */
  window: string
}

/** A query parameter that cannot be served (a range, a data point), with the parameter at fault (400 PARAMETER_INVALID). */
export class QueryParamError extends InvalidParameter {
  constructor(errors: FieldErrors) {
    super(errors)
  }
}

/** The instant one `unit` before `t` (a calendar month in `tz`, clamped to the month's last day). */
function unitBefore(t: number, unit: TimeUnit, tz: string): number {
  if (unit === 'hour') return t - HOUR
  if (unit === 'day') return t - DAY
  if (unit === 'week') return t - 7 * DAY
  const clock = new ZoneClock(tz)
  const wall = new Date(clock.toWall(t))
  const y = wall.getUTCFullYear()
  const m = wall.getUTCMonth() - 1
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate()
  const back = Date.UTC(
    y,
    m,
    Math.min(wall.getUTCDate(), lastDay),
    wall.getUTCHours(),
    wall.getUTCMinutes(),
    wall.getUTCSeconds(),
    wall.getUTCMilliseconds(),
  )
  return clock.toEpoch(back)
}

/** The default window of an explicit range, by its span: as the time_unit it is closest to. */
function windowForSpan(span: number): string {
  if (span <= HOUR) return DEFAULT_WINDOW.hour
  if (span <= DAY) return DEFAULT_WINDOW.day
  if (span <= 7 * DAY) return DEFAULT_WINDOW.week
  return DEFAULT_WINDOW.month
}

/** Resolves the range parameters against `now` in `tz`; throws QueryParamError naming every bad parameter. */
export function resolveRange(p: RangeParams, tz: string, now: number): QueryRange {
  const errors: FieldErrors = {}
  const unit = (p.time_unit ?? 'day') as TimeUnit
  if (!TIME_UNITS.includes(unit)) errors.time_unit = `must be one of ${TIME_UNITS.join(', ')}`
  const time = (name: 'startTime' | 'endTime') => {
    const text = p[name]
    if (text === undefined || text === '') return undefined
    const t = parseTime(text, tz)
    if (t === null)
      errors[name] = 'not a time: use YYYY-MM-DD HH:MM:SS or epoch seconds/milliseconds'
    return t ?? undefined
  }
  const start = time('startTime')
  const endAt = time('endTime')
  if (start !== undefined && endAt !== undefined && start > endAt)
    errors.startTime = 'must not be after endTime'
  if (Object.keys(errors).length) throw new QueryParamError(errors)

  if (start === undefined && endAt === undefined) {
    return {
      start: unitBefore(now, unit, tz),
      end: now + 1,
      param: 'time_unit',
      window: DEFAULT_WINDOW[unit],
    }
  }
  const end = endAt === undefined ? now + 1 : Math.floor(endAt / 1000) * 1000 + 1000
  const from = start ?? unitBefore(end, unit, tz)
  if (from >= end)
    throw new QueryParamError({
      startTime: 'must be before endTime (and not in the future when endTime is not given)',
    })
  return {
    start: from,
    end,
    param: 'startTime',
    window: p.time_unit ? DEFAULT_WINDOW[unit] : windowForSpan(end - from),
  }
}
