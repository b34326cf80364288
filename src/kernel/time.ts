/** Timestamps on the wire are `YYYY-MM-DD HH:MM:SS` in the configured IANA zone. */

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz)
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    formatters.set(tz, f)
  }
  return f
}

interface Parts {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
}

/** The wall-clock fields of `ms` in `tz`, read from the formatter's typed parts (literals skipped). */
function partsAt(ms: number, tz: string): Parts {
  const p: Parts = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 }
  for (const { type, value } of formatter(tz).formatToParts(new Date(ms))) {
    switch (type) {
      case 'year':
      case 'month':
      case 'day':
      case 'hour':
      case 'minute':
      case 'second':
        p[type] = Number(value)
    }
  }
  return p
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0')

/** Epoch milliseconds → `YYYY-MM-DD HH:MM:SS` in `tz`; null stays null. */
export function formatTime(ms: number | null | undefined, tz: string): string | null {
  if (ms === null || ms === undefined) return null
  if (tz === 'UTC') {
    const d = new Date(ms)
    return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  }
  const p = partsAt(ms, tz)
  return `${p.year}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`
}

/** Offset of `tz` from UTC at the instant `ms`, in milliseconds. */
export function zoneOffset(ms: number, tz: string): number {
  if (tz === 'UTC') return 0
  const p = partsAt(ms, tz)
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second)
  return asUtc - (ms - (((ms % 1000) + 1000) % 1000))
}

/**
 * Local wall-clock fields in `tz` → epoch milliseconds. A repeated wall time (autumn) gives the earlier instant;
 * a skipped one (spring) is read with the offset before the change, i.e. it lands after the gap.
 */
export function localToEpoch(p: Parts, tz: string): number {
  const guess = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second)
  const before = guess - zoneOffset(guess - 43_200_000, tz)
  const after = guess - zoneOffset(guess + 43_200_000, tz)
  const valid = [before, after].filter((t) => zoneOffset(t, tz) === guess - t)
  return valid.length ? Math.min(...valid) : before
}

export const TIME_PATTERN = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/

/** A year of the Gregorian calendar with a February 29: divisible by 4, and by 400 when by 100. */
const LEAP_YEAR = '(?:[1-9]\\d(?:0[48]|[2468][048]|[13579][26])|(?:[13579][26]|[2468][048])00)'

/**
 * A wire time `YYYY-MM-DD HH:MM:SS` whose fields are in range (days up to the month's last, February 29 in leap
 * years only): what request schemas check and document, the same dates parseTime reads.
 */
export const WIRE_TIME = new RegExp(
  '^(?:[1-9]\\d{3}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|' +
    `02-(?:0[1-9]|1\\d|2[0-8]))|${LEAP_YEAR}-02-29) (?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d$`,
)

/** How request schemas document WIRE_TIME (the same pattern, also where the service checks the time itself). */
export const WIRE_TIME_DOC = {
  pattern: WIRE_TIME.source,
  description: 'YYYY-MM-DD HH:MM:SS (February 29 in leap years)',
}

/**
 * Parses `YYYY-MM-DD HH:MM:SS` (wall time in `tz`), or a number of epoch seconds/milliseconds.
 * Returns null when the text is not a valid time.
 */
export function parseTime(text: string, tz: string): number | null {
  const m = TIME_PATTERN.exec(text.trim())
  if (!m) {
    if (/^\d{9,13}$/.test(text.trim())) {
      const n = Number(text)
      return n > 1e12 ? n : n * 1000
    }
    return null
  }
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ]
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59)
    return null
  const check = new Date(Date.UTC(year, month - 1, day))
  if (check.getUTCDate() !== day) return null
  return localToEpoch({ year, month, day, hour, minute, second }, tz)
}
