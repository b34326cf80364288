/**
 * When schedules fire. scheduleType 1 fires once at `crontabTime`; 2 every `IntervalMinute` minutes; 3 at each
 * match of a 5-field cron expression (minute hour day-of-month month day-of-week) read as wall time in the
 * service's time zone. A cron time skipped by a daylight-saving jump fires right after the jump; a cron time
 * that occurs twice fires once, unless the minute or hour field is a wildcard or a step (`*`, `*\/5`), which
 * fires on both occurrences as every other matching instant.
 */
import { Cron } from 'croner'
import type { FieldErrors } from '../kernel/errors.ts'

export const MINUTE_MS = 60_000
export const MAX_INTERVAL_MINUTES = 525_600

/** The fields that decide a schedule's due times (crontabTime as epoch milliseconds). */
export interface Timing {
  scheduleType: number
  crontabTime: number | null
  IntervalMinute: number | null
  cron: string | null
}

const crons = new Map<string, Cron>()

/**
 * `expr` as a 5-field cron expression evaluated in time zone `tz`, or the reason it is not one (a wrong number
 * of fields, a value out of range, a pattern that never matches).
 */
export function parseCron(expr: string, tz: string): { cron: Cron } | { error: string } {
  const key = `${tz}\n${expr}`
  const known = crons.get(key)
  if (known) return { cron: known }
  const fields = expr.trim().split(/\s+/).filter(Boolean)
  if (fields.length !== 5)
    return {
      error: `must have 5 fields (minute hour day-of-month month day-of-week), not ${fields.length}`,
    }
  let cron: Cron
  try {
    cron = new Cron(fields.join(' '), {
      timezone: tz,
      mode: '5-part',
      fixedTimeRule: 'no-wildcard',
    })
  } catch (e) {
    return { error: (e as Error).message.replace(/^CronPattern:\s*/, '') }
  }
  if (cron.nextRun() === null) return { error: 'never matches a date' }
  if (crons.size > 1000) crons.clear()
  crons.set(key, cron)
  return { cron }
}

/** The first match of `cron` strictly after `after`, or null when there is none (or `cron` is not valid). */
function cronAfter(expr: string, after: number, tz: string): number | null {
  const parsed = parseCron(expr, tz)
  if ('error' in parsed) return null
  return parsed.cron.nextRun(new Date(after))?.getTime() ?? null
}

/**
 * The errors of a schedule's timing: the field its type needs is missing or invalid. With `future`, a once
 * schedule's crontabTime must be later than `now`.
 */
export function timingErrors(t: Timing, now: number, tz: string, future: boolean): FieldErrors {
  if (t.scheduleType === 1) {
    if (t.crontabTime === null)
      return { crontabTime: 'required for scheduleType 1: YYYY-MM-DD HH:MM:SS' }
    if (future && t.crontabTime <= now) return { crontabTime: 'must be in the future' }
  } else if (t.scheduleType === 2) {
    if (t.IntervalMinute === null)
      return {
        IntervalMinute: `required for scheduleType 2: minutes, 1 to ${MAX_INTERVAL_MINUTES}`,
      }
  } else if (t.scheduleType === 3) {
    if (t.cron === null || t.cron.trim() === '')
      return { cron: 'required for scheduleType 3: a 5-field cron expression' }
    const parsed = parseCron(t.cron, tz)
    if ('error' in parsed) return { cron: `not a valid cron expression: ${parsed.error}` }
  }
  return {}
}

/** The first due time of a schedule armed at `now` (its timing valid): null when it has none. */
export function firstRunAt(t: Timing, now: number, tz: string): number | null {
  if (t.scheduleType === 1) return t.crontabTime
  if (t.scheduleType === 2) return now + (t.IntervalMinute ?? 0) * MINUTE_MS
  return t.cron === null ? null : cronAfter(t.cron, now, tz)
}

/**
 * The due time after due time `due` fired at `now`. Once: none. Interval: `due` plus the interval, or, when that
 * is already past (no node ran for a while), `now` plus the interval, so a missed stretch fires once. Cron: the
 * next match after both `due` and `now`.
 */
export function nextRunAfter(t: Timing, due: number, now: number, tz: string): number | null {
  if (t.scheduleType === 2) {
    const step = (t.IntervalMinute ?? 0) * MINUTE_MS
    if (step <= 0) return null
    return due + step > now ? due + step : now + step
  }
  if (t.scheduleType === 3 && t.cron !== null) return cronAfter(t.cron, Math.max(due, now), tz)
  return null
}
