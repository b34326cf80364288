import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { mayMatch } from '../../ingest/broker/fanout.ts'

const subs = (...filters: string[]) => Object.fromEntries(filters.map((f) => [f, { qos: 1 }]))
const up = '/mqtt/T1/P1/d1/data/1'

test('no subscriptions :: nothing can match', () => {
  assert.is(mayMatch({}, up), false)
})

test("the device's inbox and a group topic :: an uplink on its data topic matches neither", () => {
  assert.is(mayMatch(subs('/mqtt/T1/P1/d1/inbox', '/mqtt/T1/P1/group/g1'), up), false)
})

test('exact, +, # and # on the parent level :: each matches', () => {
  for (const f of [
    '/mqtt/T1/P1/d1/data/1',
    '/mqtt/T1/P1/d1/data/+',
    '/mqtt/T1/P1/d1/#',
    '/mqtt/T1/P1/d1/data/#',
  ])
    assert.is(mayMatch(subs('/mqtt/T1/P1/d1/inbox', f), up), true, f)
})

test('a filter one level off :: does not match', () => {
  for (const f of [
    '/mqtt/T1/P1/d1/data',
    '/mqtt/T1/P1/d1/data/1/x',
    '/mqtt/T1/P1/d1/+',
    '/mqtt/T1/P1/d2/#',
  ])
    assert.is(mayMatch(subs(f), up), false, f)
})

test('a shared subscription :: counted as matching (routed as before)', () => {
  for (const f of ['$share/g/anything', '$share/g/+/x', '$share/g/#'])
    assert.is(mayMatch(subs(f), up), true, f)
})

test.run()
