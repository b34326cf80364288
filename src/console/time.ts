/**
 * Wire times in the console: the API's times are `YYYY-MM-DD HH:MM:SS` wall-clock times in the service's TIMEZONE,
 * which the page the service serves names in `<meta name="devicecloud-timezone">`. These convert them to and from
 * epoch milliseconds with Intl (no server code is bundled: the console imports nothing of the server).
 */

const formatters = new Map<string, Intl.DateTimeFormat>()

function parts(ms: number, tz: string): number[] {
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
  const p: Record<string, number> = {}
  for (const { type, value } of f.formatToParts(new Date(ms))) p[type] = Number(value)
  return [p.year!, p.month!, p.day!, p.hour!, p.minute!, p.second!]
}

const QUARTER = 900_000
/** Offsets by zone and quarter hour: zones change offset only at quarter hours, and a chart has ~1,000 times. */
const offsets = new Map<string, number>()

/** The offset of `tz` from UTC at the instant `ms`, in ms. */
function offset(ms: number, tz: string): number {
  if (tz === 'UTC') return 0
  const at = Math.floor(ms / QUARTER) * QUARTER
  const key = `${tz} ${at}`
  let o = offsets.get(key)
  if (o === undefined) {
    const [y, mo, d, h, mi, s] = parts(at, tz) as [number, number, number, number, number, number]
    o = Date.UTC(y, mo - 1, d, h, mi, s) - at
    if (offsets.size > 20_000) offsets.clear()
    offsets.set(key, o)
  }
  return o
}

/** The service's time zone as the page names it (UTC when it does not). */
export function serviceZone(): string {
  // typed without the DOM library: unit tests under Node import this file too
  const doc = (
    globalThis as {
      document?: { querySelector(s: string): { getAttribute(name: string): string | null } | null }
    }
  ).document
  return doc?.querySelector('meta[name="devicecloud-timezone"]')?.getAttribute('content') || 'UTC'
}

const WIRE = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/

/**
 * A wire time in `tz` → epoch ms (NaN when unreadable). A wall time repeated when clocks go back is the earlier
 * instant; one skipped when they go forward is read with the offset before the change.
 */
export function wireToEpoch(text: string, tz = serviceZone()): number {
  const m = WIRE.exec(text)
  if (!m) return NaN
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ]
  const guess = Date.UTC(y, mo - 1, d, h, mi, s)
  const before = guess - offset(guess - 43_200_000, tz)
  const after = guess - offset(guess + 43_200_000, tz)
  const valid = [before, after].filter((t) => offset(t, tz) === guess - t)
  return valid.length ? Math.min(...valid) : before
}

const pad = (n: number) => String(n).padStart(2, '0')

/** Epoch ms → the wire form `YYYY-MM-DD HH:MM:SS` in `tz`. */
export function epochToWire(ms: number, tz = serviceZone()): string {
  const [y, mo, d, h, mi, s] = parts(ms, tz)
  return `${y}-${pad(mo!)}-${pad(d!)} ${pad(h!)}:${pad(mi!)}:${pad(s!)}`
}
