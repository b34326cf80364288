/** src/services/sleepers.ts: callers asleep under a key wake after their time, when their key is woken, or all. */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { sleepers } from '../../../src/services/sleepers.ts'

const test = suite('sleepers')

/** Whether `p` settled within a turn or two of the event loop. */
const settledSoon = async (p: Promise<void>) => {
  let done = false
  void p.then(() => (done = true))
  await new Promise((r) => setImmediate(r))
  return done
}

test('wake :: wakes the callers of that key only, and forgets the key', async () => {
  const s = sleepers<string>()
  const a1 = s.sleep('a', 60_000)
  const a2 = s.sleep('a', 60_000)
  const b = s.sleep('b', 60_000)
  assert.is(s.size, 2)
  s.wake('a')
  assert.equal(
    [await settledSoon(a1), await settledSoon(a2), await settledSoon(b)],
    [true, true, false],
  )
  assert.is(s.size, 1)
  s.wake('b')
  assert.is(await settledSoon(b), true)
  assert.is(s.size, 0)
})

test('wakeAll :: wakes every caller', async () => {
  const s = sleepers<number>()
  const all = [s.sleep(1, 60_000), s.sleep(2, 60_000), s.sleep(2, 60_000)]
  s.wakeAll()
  assert.equal(await Promise.all(all.map(settledSoon)), [true, true, true])
  assert.is(s.size, 0)
})

test('sleep :: resolves by itself after its time, and forgets the key', async () => {
  const s = sleepers<string>()
  const p = s.sleep('a', 20)
  assert.is(await settledSoon(p), false)
  await p
  assert.is(s.size, 0)
})

test.run()
