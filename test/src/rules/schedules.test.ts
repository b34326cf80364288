import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  firstRunAt,
  nextRunAfter,
  parseCron,
  timingErrors,
  type Timing,
} from '../../../src/rules/schedules.ts'

const MINUTE = 60_000
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
const cron = (expr: string): Timing => ({
  scheduleType: 3,
  crontabTime: null,
  IntervalMinute: null,
  cron: expr,
})
const every = (minutes: number): Timing => ({
  scheduleType: 2,
  crontabTime: null,
  IntervalMinute: minutes,
  cron: null,
})

const rules = suite('schedule timing rules')

rules('parseCron :: 5 fields only, with the reason of a bad one', () => {
  assert.ok('cron' in parseCron('*/5 * * * *', 'UTC'))
  assert.ok('cron' in parseCron('0 9 * * MON-FRI', 'Europe/Berlin'))
  const reason = (expr: string) => {
    const r = parseCron(expr, 'UTC')
    return 'error' in r ? r.error : 'ok'
  }
  assert.match(reason('@daily'), /5 fields.*not 1/)
  assert.match(reason('0 0 * * * *'), /5 fields.*not 6/)
  assert.match(reason('0 24 * * *'), /hour/i)
  assert.match(reason('0 0 30 2 *'), /never matches/)
})

rules('cron in a zone :: wall time of that zone', () => {
  const t = Date.UTC(2030, 0, 1, 0, 0) // 08:00 in Shanghai
  assert.is(iso(firstRunAt(cron('30 9 * * *'), t, 'Asia/Shanghai')), '2030-01-01T01:30:00.000Z')
  assert.is(iso(firstRunAt(cron('30 9 * * *'), t, 'UTC')), '2030-01-01T09:30:00.000Z')
})

rules('cron over a spring-forward gap :: the skipped time fires right after the jump', () => {
  // Berlin 2030-03-31 02:00 CET → 03:00 CEST; 02:30 does not exist that night
  const before = Date.UTC(2030, 2, 30, 12)
  const first = firstRunAt(cron('30 2 * * *'), before, 'Europe/Berlin')
  assert.is(iso(first), '2030-03-31T01:00:00.000Z')
  assert.is(
    iso(nextRunAfter(cron('30 2 * * *'), first!, first!, 'Europe/Berlin')),
    '2030-04-01T00:30:00.000Z',
  )
})

rules('cron over a fall-back overlap :: a fixed time once, a wildcard minute on both', () => {
  // Berlin 2030-10-27 03:00 CEST → 02:00 CET; 02:00-03:00 happens twice
  const before = Date.UTC(2030, 9, 26, 12)
  const fixed: string[] = []
  let t = before
  for (let i = 0; i < 2; i++) {
    t = nextRunAfter(cron('30 2 * * *'), t, t, 'Europe/Berlin')!
    fixed.push(iso(t)!)
  }
  assert.equal(fixed, ['2030-10-27T00:30:00.000Z', '2030-10-28T01:30:00.000Z'])
  const wild: string[] = []
  t = Date.UTC(2030, 9, 26, 23, 50)
  for (let i = 0; i < 4; i++) {
    t = nextRunAfter(cron('*/30 2 * * *'), t, t, 'Europe/Berlin')!
    wild.push(iso(t)!)
  }
  assert.equal(wild, [
    '2030-10-27T00:00:00.000Z',
    '2030-10-27T00:30:00.000Z',
    '2030-10-27T01:00:00.000Z',
    '2030-10-27T01:30:00.000Z',
  ])
})

rules('interval :: the due time plus the interval; a missed stretch from now', () => {
  const due = Date.UTC(2030, 0, 1)
  assert.is(nextRunAfter(every(5), due, due + 1000, 'UTC'), due + 5 * MINUTE)
  assert.is(nextRunAfter(every(5), due, due + 60 * MINUTE, 'UTC'), due + 65 * MINUTE)
  assert.is(firstRunAt(every(5), due, 'UTC'), due + 5 * MINUTE)
})

rules('cron after a missed stretch :: the next match after now, once', () => {
  const due = Date.UTC(2030, 0, 1, 0, 0)
  const now = Date.UTC(2030, 0, 1, 3, 7, 30)
  assert.is(iso(nextRunAfter(cron('*/15 * * * *'), due, now, 'UTC')), '2030-01-01T03:15:00.000Z')
})

rules('timingErrors :: the field each type needs; a past once time when asked', () => {
  const now = Date.UTC(2030, 0, 1)
  const once = (crontabTime: number | null): Timing => ({
    scheduleType: 1,
    crontabTime,
    IntervalMinute: null,
    cron: null,
  })
  assert.equal(Object.keys(timingErrors(once(null), now, 'UTC', true)), ['crontabTime'])
  assert.equal(timingErrors(once(now), now, 'UTC', true), { crontabTime: 'must be in the future' })
  assert.equal(timingErrors(once(now), now, 'UTC', false), {})
  assert.equal(timingErrors(once(now + 1000), now, 'UTC', true), {})
  assert.equal(Object.keys(timingErrors({ ...every(1), IntervalMinute: null }, now, 'UTC', true)), [
    'IntervalMinute',
  ])
  assert.match(timingErrors(cron('* * *'), now, 'UTC', true).cron!, /5 fields/)
  assert.equal(nextRunAfter(once(now), now, now, 'UTC'), null)
})

rules.run()
