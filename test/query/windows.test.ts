/** Pure parts of the query path: windows, zone clock, fast time formatting, ranges, downsampling. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  aggregateSorted,
  parseEvery,
  windowBounds,
  WindowError,
  ZoneClock,
} from '../../store/windows.ts'
import { formatTime, localToEpoch } from '../../src/kernel/time.ts'
import { WireTimeFormatter } from '../../query/format.ts'
import { QueryParamError, resolveRange } from '../../query/range.ts'
import { Downsampler, downsample } from '../../store/downsample.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR
const test = suite('query parts')

test('parseEvery :: n and unit; anything else is null', () => {
  assert.equal(parseEvery('15m'), { n: 15, unit: 'm' })
  assert.equal(parseEvery('1mo'), { n: 1, unit: 'mo' })
  for (const bad of ['', '0m', '1w', '1.5h', '-1h', 'h', '1 h', '1H', '1000000s', '1m; drop'])
    assert.is(parseEvery(bad), null, bad)
})

test('ZoneClock :: offsets and wall-clock conversions agree with Intl across a year of DST changes', () => {
  for (const tz of [
    'Europe/Berlin',
    'America/New_York',
    'Asia/Kolkata',
    'Australia/Lord_Howe',
    'UTC',
  ]) {
    const from = Date.parse('2026-01-01T00:00:00Z')
    const clock = new ZoneClock(tz)
    const fmt = new WireTimeFormatter(tz)
    for (let t = from; t < from + 366 * DAY; t += 7 * HOUR + 13 * 60_000 + 7_000) {
      assert.is(fmt.format(t), formatTime(t, tz), `${tz} ${new Date(t).toISOString()}`)
      const wall = clock.toWall(t)
      const d = new Date(wall)
      const p = {
        year: d.getUTCFullYear(),
        month: d.getUTCMonth() + 1,
        day: d.getUTCDate(),
        hour: d.getUTCHours(),
        minute: d.getUTCMinutes(),
        second: d.getUTCSeconds(),
      }
      assert.is(clock.toEpoch(wall - (wall % 1000)), localToEpoch(p, tz), `${tz} toEpoch`)
    }
  }
})

test('windowBounds :: 2d and 3mo windows count from 1970 local; too many windows is a WindowError', () => {
  /** The UTC days the windows of `every` from `from` to `to` start on. */
  const days = (from: string, to: string, every: string) =>
    windowBounds(Date.parse(from), Date.parse(to), every, 'UTC').map((t) =>
      new Date(t).toISOString().slice(0, 10),
    )
  // 2026-03-09 is day 20521 since 1970-01-01 (odd), so 2-day windows start on 03-08 and 03-10
  assert.equal(days('2026-03-10T12:00:00Z', '2026-03-13T00:00:00Z', '2d'), [
    '2026-03-10',
    '2026-03-12',
    '2026-03-14',
  ])
  assert.equal(days('2026-05-01T00:00:00Z', '2026-08-01T00:00:00Z', '3mo'), [
    '2026-04-01',
    '2026-07-01',
    '2026-10-01',
  ])
  assert.throws(
    () => windowBounds(0, 365 * DAY, '1s', 'UTC'),
    (e: unknown) => e instanceof WindowError && /more than 100000 windows/.test(String(e)),
  )
  assert.throws(
    () => windowBounds(0, DAY, '5x', 'UTC'),
    (e: unknown) => e instanceof WindowError,
  )
})

test('aggregateSorted :: values outside the bounds and non-numbers are ignored', () => {
  const bounds = [0, 10, 20]
  assert.equal(
    aggregateSorted([-1, 0, 5, 9, 10, 15, 20], [100, 1, 'x', 3, true, 5, 100], bounds, 'sum'),
    { time: [0, 10], value: [4, 5] },
  )
  assert.equal(aggregateSorted([], [], bounds, 'max'), { time: [], value: [] })
})

test('resolveRange :: units, explicit ranges, inclusive end, default windows and errors', () => {
  const now = Date.parse('2026-03-31T10:00:00Z')
  assert.equal(resolveRange({}, 'UTC', now), {
    start: now - DAY,
    end: now + 1,
    param: 'time_unit',
    window: '1h',
  })
  assert.equal(resolveRange({ time_unit: 'hour' }, 'UTC', now).window, '1m')
  assert.equal(resolveRange({ time_unit: 'week' }, 'UTC', now).start, now - 7 * DAY)
  // a calendar month back, clamped to the shorter month's last day: 03-31 → 02-28
  assert.is(
    resolveRange({ time_unit: 'month' }, 'UTC', now).start,
    Date.parse('2026-02-28T10:00:00Z'),
  )
  const r = resolveRange(
    { startTime: '2026-03-01 00:00:00', endTime: '2026-03-01 05:59:59' },
    'Europe/Berlin',
    now,
  )
  assert.equal(r, {
    start: Date.parse('2026-02-28T23:00:00Z'),
    end: Date.parse('2026-03-01T05:00:00Z'),
    param: 'startTime',
    window: '1h',
  })
  assert.is(
    resolveRange({ startTime: '2026-03-01 00:00:00' }, 'UTC', now).end,
    now + 1,
    'only startTime runs to now',
  )
  assert.is(
    resolveRange({ endTime: '2026-03-10 00:00:00', time_unit: 'hour' }, 'UTC', now).start,
    Date.parse('2026-03-09T23:00:01Z'),
  )
  assert.is(
    resolveRange({ startTime: '2026-01-01 00:00:00', endTime: '2026-03-01 00:00:00' }, 'UTC', now)
      .window,
    '1d',
  )
  const bad = (p: object, field: string) =>
    assert.throws(
      () => resolveRange(p, 'UTC', now),
      (e: unknown) => e instanceof QueryParamError && field in e.errors,
    )
  bad({ time_unit: 'year' }, 'time_unit')
  bad({ startTime: 'soon' }, 'startTime')
  bad({ endTime: '2026-02-30 00:00:00' }, 'endTime')
  bad({ startTime: '2026-03-02 00:00:00', endTime: '2026-03-01 00:00:00' }, 'startTime')
  bad({ startTime: '2027-01-01 00:00:00' }, 'startTime')
})

test('downsample :: at most maxPoints, every bucket keeps its extremes in time order, short series untouched', () => {
  const n = 100_000
  const time = Array.from({ length: n }, (_, i) => i * 1000)
  const value = time.map((_, i) => (i === 777 ? 1e6 : i === 55_555 ? -1e6 : Math.sin(i / 50)))
  const d = downsample({ time, value }, 0, n * 1000, 500)
  assert.ok(d.time.length <= 500 && d.time.length >= 450, String(d.time.length))
  assert.ok(d.value.includes(1e6) && d.value.includes(-1e6))
  for (let i = 1; i < d.time.length; i++) assert.ok(d.time[i]! > d.time[i - 1]!)
  const short = { time: [1, 2, 3], value: [3, 2, 1] }
  assert.is(downsample(short, 0, 10, 500), short)
  const s = new Downsampler(0, 100, 4) // 2 buckets: first and last of strings
  s.add([0, 10, 20, 60, 70], ['a', 'b', 'c', 'd', 'e'])
  assert.equal(s.result(), { time: [0, 20, 60, 70], value: ['a', 'c', 'd', 'e'] })
})

test.run()
