/**
 * The rules of a rollout (src/rules/rollout.ts): which report may follow which state, the ramped rate, the slots a
 * pacer takes (evenly, never a burst to catch up), the failure threshold, retries and what a finished rollout is.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  CATCH_UP_MS,
  afterFailure,
  dueSlots,
  emptyCounts,
  mayReport,
  outcomeOf,
  pending,
  rateNow,
  shouldAbort,
  slotMs,
  type Counts,
} from '../../../src/rules/rollout.ts'

const test = suite('rollout rules')

const counts = (c: Partial<Counts>): Counts => ({ ...emptyCounts(), ...c })

test('mayReport :: forward through the steps, a step repeated, failed from any; nothing before notify or after the outcome', () => {
  assert.ok(mayReport('notified', 'downloading'))
  assert.ok(mayReport('notified', 'updated'), 'steps may be skipped')
  assert.ok(mayReport('downloading', 'downloading'), 'a step repeated with a new progress')
  assert.ok(mayReport('updating', 'failed'))
  assert.not.ok(mayReport('updating', 'downloading'), 'never back')
  assert.not.ok(mayReport('queued', 'downloading'), 'a retry not yet notified')
  for (const done of ['updated', 'failed', 'timed_out', 'canceled'] as const)
    assert.not.ok(mayReport(done, 'updated'), done)
})

test('rateNow :: the ramp-up multiplies by factor each `every` updated, up to the rate', () => {
  const ramp = { startPerMinute: 10, factor: 2, every: 5 }
  assert.is(rateNow(100, null, 0), 100)
  assert.equal(
    [0, 4, 5, 10, 15, 20, 1000].map((u) => rateNow(100, ramp, u)),
    [10, 10, 20, 40, 80, 100, 100],
  )
  assert.is(rateNow(10_000, { startPerMinute: 1, factor: 1.1, every: 1 }, 1e9), 10_000)
})

test('dueSlots :: on time one slot; behind, at most CATCH_UP_MS of slots; never more than `most`', () => {
  const interval = slotMs(1000) // 60 ms
  assert.equal(dueSlots(1000, 999, interval, 200), { due: 0, nextAt: 1000 })
  assert.equal(dueSlots(1000, 1000, interval, 200), { due: 1, nextAt: 1060 })
  // 10 s behind: the slots older than CATCH_UP_MS are given up
  const late = dueSlots(0, 10_000, interval, 200)
  assert.is(late.due, Math.floor(CATCH_UP_MS / interval) + 1)
  assert.ok(late.nextAt > 10_000 - interval && late.nextAt <= 10_000 + interval)
  assert.is(dueSlots(0, 10_000, 1, 50).due, 50)
  // one slot every 6 s: one due, the next 6 s on
  assert.equal(dueSlots(0, 0, 6000, 200), { due: 1, nextAt: 6000 })
})

test('dueSlots :: a pacer ticking every 50 ms for a minute takes the rate, the busiest second near its share', () => {
  const interval = slotMs(1000)
  let nextAt = 0
  const taken: number[] = []
  for (let t = 0; t < 60_000; t += 50) {
    const s = dueSlots(nextAt, t, interval, 200)
    for (let i = 0; i < s.due; i++) taken.push(t)
    nextAt = s.nextAt
  }
  assert.ok(Math.abs(taken.length - 1000) <= 1, `${taken.length}`)
  const perSecond = new Map<number, number>()
  for (const t of taken)
    perSecond.set(Math.floor(t / 1000), (perSecond.get(Math.floor(t / 1000)) ?? 0) + 1)
  assert.ok(Math.max(...perSecond.values()) <= 18, 'at most one slot over the share of 16.7')
})

test('shouldAbort :: the share of failed and timed out among the finished, once enough finished', () => {
  assert.not.ok(shouldAbort(counts({ failed: 5 }), null, 1), 'no threshold')
  assert.not.ok(shouldAbort(counts({ failed: 5 }), 50, 10), 'not enough finished')
  assert.ok(shouldAbort(counts({ failed: 3, timed_out: 2, updated: 5 }), 50, 10))
  assert.not.ok(shouldAbort(counts({ failed: 4, updated: 6 }), 50, 10))
  assert.not.ok(
    shouldAbort(counts({ canceled: 10, failed: 1, updated: 9 }), 50, 10),
    'canceled do not count',
  )
})

test('outcomeOf, pending, afterFailure :: succeeded, partial, failed; retries while attempts remain', () => {
  assert.is(outcomeOf(counts({ updated: 3, canceled: 2 })), 'succeeded')
  assert.is(outcomeOf(counts({ updated: 3, timed_out: 1 })), 'partial')
  assert.is(outcomeOf(counts({ failed: 2 })), 'failed')
  assert.is(pending(counts({ queued: 1, downloading: 2, updated: 9 })), 3)
  assert.is(afterFailure(1, 1, 'failed'), 'queued')
  assert.is(afterFailure(2, 1, 'failed'), 'failed')
  assert.is(afterFailure(1, 0, 'timed_out'), 'timed_out')
})

test.run()
