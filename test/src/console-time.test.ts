/**
 * The console's wire-time conversion (src/console/time.ts, Intl in the browser) reads and writes the same instants
 * as the service's own (src/kernel/time.ts), across the DST changes of a zone that has them.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { epochToWire, wireToEpoch } from '../../src/console/time.ts'
import { formatTime, parseTime } from '../../src/kernel/time.ts'

const time = suite('console wire times')

time('Europe/Berlin, clocks forward and back in 2026 :: the wall times the service means', () => {
  const tz = 'Europe/Berlin'
  assert.is(wireToEpoch('2026-03-29 01:59:59', tz), Date.UTC(2026, 2, 29, 0, 59, 59))
  // skipped by the change: read with the offset before it (lands after the gap), as the service does
  assert.is(wireToEpoch('2026-03-29 02:30:00', tz), Date.UTC(2026, 2, 29, 1, 30))
  assert.is(wireToEpoch('2026-03-29 03:00:00', tz), Date.UTC(2026, 2, 29, 1, 0))
  // repeated by the change: the earlier instant
  assert.is(wireToEpoch('2026-10-25 02:30:00', tz), Date.UTC(2026, 9, 25, 0, 30))
  assert.is(epochToWire(Date.UTC(2026, 9, 25, 1, 30), tz), '2026-10-25 02:30:00')
  assert.is(epochToWire(Date.UTC(2026, 2, 29, 1, 0), tz), '2026-03-29 03:00:00')
})

time('every 10 minutes over both change days in 4 zones :: same as the service both ways', () => {
  for (const tz of ['Europe/Berlin', 'America/New_York', 'Asia/Shanghai', 'UTC']) {
    for (const day of [Date.UTC(2026, 2, 28), Date.UTC(2026, 9, 24), Date.UTC(2026, 10, 1)]) {
      for (let ms = day; ms < day + 3 * 86_400_000; ms += 600_000) {
        const wire = formatTime(ms, tz)!
        assert.is(epochToWire(ms, tz), wire, `${tz} ${ms}`)
        assert.is(wireToEpoch(wire, tz), parseTime(wire, tz), `${tz} ${wire}`)
      }
    }
  }
  assert.ok(Number.isNaN(wireToEpoch('yesterday', 'UTC')))
})

time.run()
